import type { Part } from '../parts.js';

/** README.md of the generated app: how to run it, where everything is, where to read on. */
export function readmeMd(name: string, parts: ReadonlySet<Part>): string {
  const where: string[] = ['| `http://127.0.0.1:8080/fw/health` | health probe (and `/fw/ready`) |'];
  if (parts.has('realtime'))
    where.push(
      '| `ws://127.0.0.1:8080/fw/chat/<room>` | the real-time handler (src/app.ts); a page loads the client from `/fw/client.js` |',
    );
  if (parts.has('mcp')) where.push('| `http://127.0.0.1:8080/mcp` | the MCP server with the `shout` tool |');
  if (parts.has('agents'))
    where.push('| `http://127.0.0.1:8080/fw/agent/greeter/a2a` | the Greeter agent over A2A (src/greeter.ts); also AG-UI and MCP |');
  if (parts.has('admin')) where.push('| `http://127.0.0.1:8080/fw/admin/` | the dashboard; the REST API is under `/api/admin/` |');
  const docs = 'https://github.com/fw-contributors/fw/blob/main/docs';
  const notes: string[] = [];
  if (parts.has('admin')) {
    notes.push(
      `The admin plane answers loopback clients only until a credential is set: \`FW_ADMIN_AUTH_TOKEN=$(openssl rand -hex 24) npm start\`, then \`Authorization: Bearer <token>\` ([security](${docs}/security.md)).\n\n`,
    );
  }
  if (parts.has('cluster')) {
    notes.push(`Cluster mode: \`FW_CLUSTER_REDIS_URL=redis://127.0.0.1:6379 npm start\` on each node ([cluster](${docs}/cluster.md)).\n\n`);
  }
  const reading = [`[runtime](${docs}/runtime.md)`];
  if (parts.has('mcp')) reading.push(`[MCP](${docs}/mcp.md)`);
  if (parts.has('agents')) reading.push(`[agents](${docs}/agents.md)`);
  if (parts.has('admin')) reading.push(`[admin](${docs}/admin.md)`);
  return `# ${name}

An [fw](https://github.com/fw-contributors/fw) app, made by \`create-fw\`.

\`\`\`sh
npm install
npm start        # builds (tsc) and starts; logs every URL it serves
npm test         # builds and runs test/app.test.ts against the app on a free port
\`\`\`

Node 22 or 24. \`FW_PORT=9000 npm start\` (or \`PORT\`) picks another port; \`FW_HOST=0.0.0.0\`
listens on every interface. Every setting is an \`fw.*\` key, set as an option in \`src/app.ts\`,
in \`fw.config.json\` or as an \`FW_*\` variable ([configuration](${docs}/configuration.md)).

| where | what |
|---|---|
${where.join('\n')}

${notes.join('')}Read on: ${reading.join(', ')}.
`;
}

export function gitignore(): string {
  return 'node_modules/\ndist/\n.fw-data/\n';
}
