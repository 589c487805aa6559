/**
 * An endpoint with its own registry and its own door (`access`), and a registry shown only to the
 * sessions a predicate admits: what the admin plane needs for `/fw/admin/mcp` and the opt-in
 * `fw_*` tools on a user's server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { Framework, FwError } from '@fw/runtime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpRegistry, ToolRegistry, mountMcpServer } from '../dist/index.js';

async function start(): Promise<{ fw: Framework; base: string }> {
  const fw = new Framework({ configFile: false });
  const { port } = await fw.listen(0, '127.0.0.1');
  return { fw, base: `http://127.0.0.1:${port}` };
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'access-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

test('an endpoint with its own registry and an access check: refused requests never reach a session', async () => {
  const { fw, base } = await start();
  const own = new ToolRegistry('programmatic');
  own.registerTool({ name: 'own_tool', handler: (_a, ctx) => `hello ${ctx.principal?.id ?? 'nobody'}` });
  const offGlobal = McpRegistry.of(fw).registerTool({ name: 'global_tool_access_test', handler: () => 'global' });
  const asked: string[] = [];
  mountMcpServer(
    fw,
    { name: 'own', path: '/own' },
    {
      frameworkRegistry: false,
      registries: [own],
      principalResolver: (req) => (req.headers['x-user'] ? { id: String(req.headers['x-user']) } : undefined),
      access: (req: IncomingMessage) => {
        asked.push(String(req.method));
        if (req.headers['x-user'] !== 'alice') throw new FwError('unauthorized', 'alice only', 401);
      },
    },
  );
  try {
    const refused = await fetch(`${base}/own`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { code: string }).code, 'unauthorized');

    const client = await connect(`${base}/own`, { 'x-user': 'alice' });
    const tools = (await client.listTools()).tools.map((t) => t.name);
    assert.deepEqual(tools, ['own_tool'], 'the process-wide registry is not served');
    const r = await client.callTool({ name: 'own_tool', arguments: {} });
    assert.deepEqual(r.content, [{ type: 'text', text: 'hello alice' }]);
    await client.close();
    assert.ok(asked.length >= 3, 'every request is asked, not only initialize');
  } finally {
    offGlobal();
    await fw.close();
  }
});

test('a registry added with a visibility predicate is listed and callable only by admitted sessions', async () => {
  const { fw, base } = await start();
  let address = '127.0.0.1';
  fw.services.provide('client-address', () => address);
  const hidden = new ToolRegistry('programmatic');
  hidden.registerTool({ name: 'secret_tool', handler: () => 'secret' });
  const mounted = mountMcpServer(fw, { name: 'user', path: '/user' }, { frameworkRegistry: false });
  mounted.endpoint.catalog.add(hidden, (session) => session.clientAddress === '127.0.0.1');
  try {
    const near = await connect(`${base}/user`);
    assert.deepEqual(
      (await near.listTools()).tools.map((t) => t.name),
      ['secret_tool'],
    );
    address = '203.0.113.7';
    const far = await connect(`${base}/user`);
    assert.deepEqual(
      (await far.listTools()).tools.map((t) => t.name),
      [],
    );
    await assert.rejects(far.callTool({ name: 'secret_tool', arguments: {} }), /unknown tool/);
    // The near session keeps the address it opened with.
    assert.deepEqual((await near.callTool({ name: 'secret_tool', arguments: {} })).content, [{ type: 'text', text: 'secret' }]);
    await near.close();
    await far.close();
  } finally {
    await fw.close();
  }
});
