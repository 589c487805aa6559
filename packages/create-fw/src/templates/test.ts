import type { Part } from '../parts.js';

/** test/app.test.ts: starts the app on a free port and checks each chosen part answers over real HTTP. */
export function appTestTs(parts: ReadonlySet<Part>): string {
  const imports = ["import { test } from 'node:test';", "import assert from 'node:assert/strict';"];
  if (parts.has('realtime')) imports.push("import { connect } from '@fw/client/node';");
  imports.push("import { createApp } from '../src/app.js';");
  const checks: string[] = [];
  if (parts.has('realtime')) {
    checks.push(`    // Real-time: a client of the lobby gets its welcome.
    const client = connect<{ in: { text: string }; out: string }>(\`\${origin}/fw/chat/lobby\`);
    const welcome = await new Promise<{ text: string }>((resolve) => client.onJson(resolve));
    client.close();
    assert.deepEqual(welcome, { text: 'welcome to lobby' });`);
  }
  if (parts.has('mcp')) {
    checks.push(`    // MCP: one stateless tools/call (protocol revision 2026-07-28) of the app's tool.
    const call = await fetch(\`\${origin}/mcp\`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'shout',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'shout',
          arguments: { text: 'hi' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'app-test', version: '1' },
          },
        },
      }),
    });
    assert.equal(call.status, 200);
    assert.match(await call.text(), /"text":"HI"/);`);
  }
  if (parts.has('agents')) {
    checks.push(`    // Agents: an A2A 1.0 message to the greeter, answered by its own @OnPrompt.
    const a2a = await fetch(\`\${origin}/fw/agent/greeter/a2a\`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'ada' }] } },
      }),
    });
    assert.equal(a2a.status, 200);
    assert.match(await a2a.text(), /hello, ada/);`);
  }
  if (parts.has('admin')) {
    checks.push(`    // The admin plane: the dashboard page and the overview (loopback needs no credential).
    const dashboard = await fetch(\`\${origin}/fw/admin/\`);
    assert.equal(dashboard.status, 200);
    await dashboard.body?.cancel();
    const overview = await fetch(\`\${origin}/api/admin/overview\`);
    assert.equal(overview.status, 200);
    assert.equal(((await overview.json()) as { status: string }).status, 'UP');`);
  }
  if (parts.has('cluster')) {
    checks.push(`    // Cluster mode is installed and, without fw.cluster.redis-url, stays a single node.
    assert.ok(fw.hasModule('@fw/redis'));
    assert.equal(fw.services.get('cluster'), undefined);`);
  }
  checks.push(`    // And the health probe every deployment uses.
    assert.equal((await fetch(\`\${origin}/fw/health\`)).status, 200);`);
  return `${imports.join('\n')}

test('the app serves what it is made of', async () => {
  // No fw.config.json, no FW_* variables, state in memory: the test sees only its own settings.
  const fw = await createApp({ configFile: false, env: {}, 'fw.data-dir': '' });
  const { port } = await fw.listen(0, '127.0.0.1');
  const origin = \`http://127.0.0.1:\${port}\`;
  try {
${checks.join('\n\n')}
  } finally {
    await fw.close();
  }
});
`;
}
