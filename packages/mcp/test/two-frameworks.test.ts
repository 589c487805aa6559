/**
 * No process-global state: two frameworks in one process, each with a tool of the same name in
 * its own registry and an @McpServer class mounted on one of them only, serve each their own;
 * closing one leaves the other working.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BiDirectionalToolBridge, mcp, McpRegistry, McpServer, McpTool, mountedServers, pendingBridgeCalls } from '../dist/index.js';

@McpServer({ name: 'only-on-a', path: '/only-a' })
class OnlyOnA {
  @McpTool({ name: 'a_only', description: 'mounted on framework a' })
  aOnly(): string {
    return 'a';
  }
}

async function callTool(port: number, path: string, name: string): Promise<string> {
  const client = new Client({ name: 'two', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}${path}`)));
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(tools.includes(name), `${path} lists ${name}: ${tools.join(', ')}`);
    const r = await client.callTool({ name, arguments: {} });
    return (r.content as { text: string }[])[0]!.text;
  } finally {
    await client.close();
  }
}

test('two frameworks in one process: their own registries, servers, bridges; closing one leaves the other', async () => {
  const a = new Framework({ configFile: false });
  const b = new Framework({ configFile: false });
  await a.use(mcp({ servers: [OnlyOnA] }));
  await b.use(mcp());
  McpRegistry.of(a).registerTool({ name: 'who', handler: () => 'framework a' });
  McpRegistry.of(b).registerTool({ name: 'who', handler: () => 'framework b' });
  assert.notEqual(McpRegistry.of(a), McpRegistry.of(b));
  assert.equal(a.mcp, McpRegistry.of(a), "fw.mcp is the instance's own registry");
  assert.notEqual(a.mcp, b.mcp);
  const pa = (await a.listen(0, '127.0.0.1')).port;
  const pb = (await b.listen(0, '127.0.0.1')).port;
  let bClosed = false;
  try {
    assert.equal(await callTool(pa, '/mcp', 'who'), 'framework a');
    assert.equal(await callTool(pb, '/mcp', 'who'), 'framework b');
    assert.equal(await callTool(pa, '/only-a', 'a_only'), 'a');
    assert.deepEqual(
      mountedServers(b).map((m) => m.endpoint.path),
      ['/mcp'],
      'the class mounted on a is not on b',
    );
    assert.equal((await fetch(`http://127.0.0.1:${pb}/only-a`, { method: 'POST', body: '{}' })).status, 404);
    // The admin views list only their own framework's tools.
    assert.deepEqual(
      a.services
        .get('mcp')!
        .tools()
        .map((t) => t.name)
        .sort(),
      ['a_only', 'who'],
    );
    assert.deepEqual(
      b.services
        .get('mcp')!
        .tools()
        .map((t) => t.name),
      ['who'],
    );
    // Bridges are listed by the framework they were made for.
    const bridge = new BiDirectionalToolBridge({ timeout: 5000, framework: a });
    const fake = { uuid: 'u1', closed: false, write: () => true, onMessage: () => () => {}, onClose: () => () => {} };
    const pending = bridge.callClientTool(fake as never, 'remote', {}).catch(() => undefined);
    assert.equal(pendingBridgeCalls(a).length, 1);
    assert.equal(pendingBridgeCalls(b).length, 0);
    bridge.close();
    await pending;

    await b.close();
    bClosed = true;
    assert.equal(await callTool(pa, '/mcp', 'who'), 'framework a', 'a works after b closed');
  } finally {
    if (!bClosed) await b.close();
    await a.close();
  }
});
