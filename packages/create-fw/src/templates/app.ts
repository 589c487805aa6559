import type { Part } from '../parts.js';

/** src/app.ts: one Framework with the chosen parts, made by a function so the test can start it too. */
export function appTs(parts: ReadonlySet<Part>): string {
  const imports = ["import { Framework, type FrameworkOptions } from '@fw/runtime';"];
  const body: string[] = [];
  if (parts.has('realtime')) {
    body.push(`  // Real-time: every client of /fw/chat/<room> (WebSocket, SSE or long-polling) joins the
  // broadcaster /fw/chat/<room>; with no \`message\` callback, what one sends reaches them all.
  fw.handle('/chat/{room}', {
    open(resource) {
      resource.write({ text: \`welcome to \${resource.params.room}\` });
    },
  });`);
  }
  if (parts.has('mcp')) {
    imports.push("import { mcp } from '@fw/mcp';");
    body.push(`  // MCP: a tool every MCP client (a desktop assistant, an agent) can call at /mcp.
  fw.mcp.tool(
    'shout',
    {
      description: 'Says the text back in capitals',
      input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
    (args) => String(args.text).toUpperCase(),
  );
  await fw.use(mcp());`);
  }
  if (parts.has('agents')) {
    imports.push("import { agents } from '@fw/agent';", "import { Greeter } from './greeter.js';");
    body.push(`  // Agents: Greeter over A2A, AG-UI and MCP under /fw/agent/greeter (src/greeter.ts).
  await fw.use(agents({ agents: [Greeter] }));`);
  }
  if (parts.has('admin')) {
    imports.push("import { admin } from '@fw/admin';");
    body.push(`  // The admin plane: the dashboard at /fw/admin/ and the REST API at /api/admin/, for loopback
  // clients until a credential is set (FW_ADMIN_AUTH_TOKEN, 16 characters or more).
  await fw.use(admin());`);
  }
  if (parts.has('cluster')) {
    imports.push("import { cluster } from '@fw/redis';");
    body.push(`  // Cluster mode: one node until fw.cluster.redis-url (FW_CLUSTER_REDIS_URL) is set; then every
  // node with the same Redis acts as one.
  await fw.use(cluster());`);
  }
  return `${imports.join('\n')}

/**
 * The app: everything it serves, on one Framework. \`main.ts\` starts it; the test starts it on a
 * free port. Configuration comes from \`options\`, then FW_* variables, then fw.config.json
 * (docs/configuration.md).
 */
export async function createApp(options: FrameworkOptions = {}): Promise<Framework> {
  const fw = new Framework(options);

${body.join('\n\n')}

  return fw;
}
`;
}

/** src/greeter.ts: an agent with its own answer (no model needed; see docs/agents.md for real models). */
export function greeterTs(): string {
  return `import { Agent, OnPrompt } from '@fw/agent';

@Agent({ name: 'greeter', description: 'Greets whoever writes to it', headless: true })
export class Greeter {
  @OnPrompt()
  prompt(message: string): string {
    return \`hello, \${message}\`;
  }
}
`;
}

/** src/main.ts: starts the app where FW_PORT / PORT say, and stops it cleanly on Ctrl+C. */
export function mainTs(): string {
  return `import { createApp } from './app.js';

try {
  // Ctrl+C or SIGTERM: fw drains its connections, then the process ends.
  const fw = await createApp({ 'fw.close.signals': 'SIGINT,SIGTERM' });
  // FW_PORT (or PORT) picks the port, 8080 by default; FW_HOST the address, 127.0.0.1 by default.
  // fw logs every URL it serves once it listens: the app, the dashboard, MCP, the agents.
  await fw.listen();
} catch (err) {
  // A configuration mistake or a busy port is one line that says what to do; a bug keeps its stack.
  const said = err instanceof Error && typeof (err as { code?: unknown }).code === 'string';
  console.error(said ? err.message : err);
  process.exit(1);
}
`;
}
