import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BiDirectionalToolBridge, McpParam, McpRegistry, McpServer, McpTool, mcp, mountedServers, type McpContext } from '../dist/index.js';
import { UriTemplate } from '../dist/uri-template.js';

test('mcp(): switched off by fw.mcp.enabled=false, it mounts nothing and publishes no service', async () => {
  const fw = new Framework({ configFile: false, 'fw.mcp.enabled': false });
  await fw.use(mcp());
  assert.equal(fw.services.get('mcp'), undefined);
  assert.deepEqual(mountedServers(fw), []);
  await fw.close();
});

test('module: default server at /mcp for the framework registry, an @McpServer class mounted after start, admin view live', async () => {
  const fw = new Framework({ configFile: false });
  await fw.use(mcp());
  const addr = await fw.listen(0, '127.0.0.1');
  const view = fw.services.get('mcp')!;
  const { mountMcpServer } = await import('../dist/index.js');
  const offTool = McpRegistry.of(fw).registerTool({
    name: 'fw_probe',
    description: 'reads the context',
    handler: (_args, ctx) => ({
      principal: ctx.principal?.id ?? null,
      transport: ctx.session.transport,
      broadcaster: ctx.broadcaster('/fw/probe')?.id ?? null,
      connections: ctx.runtime.stats().connections,
    }),
  });
  const client = new Client({ name: 'view-test', version: '9' });
  try {
    assert.deepEqual(view.servers(), [{ name: 'fw', version: '1.0.0', path: '/mcp', sessions: 0 }]);

    // A class mounted after start is served at once (here on its own path).
    @McpServer({ name: 'late', version: '3.1.0', path: '/late' })
    class LateServer {
      @McpTool({ name: 'late_tool', description: 'declared after start' })
      lateTool(@McpParam({ name: 'x', type: 'number', required: false }) x: number | undefined, ctx: McpContext): string {
        return `${x ?? 'none'} via ${ctx.session.server}`;
      }
    }
    mountMcpServer(fw, LateServer);
    assert.deepEqual(
      mountedServers(fw)
        .map((m) => m.endpoint.path)
        .sort(),
      ['/late', '/mcp'],
    );

    fw.broadcasters.lookup('/fw/probe', true);
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${addr.port}/late`)));
    assert.equal(client.getServerVersion()?.name, 'late');
    const r = await client.callTool({ name: 'late_tool', arguments: { x: 7 } });
    assert.deepEqual(r.content, [{ type: 'text', text: '7 via /late' }]);
    const probe = await client.callTool({ name: 'fw_probe', arguments: {} });
    assert.deepEqual(probe.structuredContent, { principal: null, transport: 'streamable-http', broadcaster: '/fw/probe', connections: 0 });

    const tools = view.tools();
    assert.deepEqual(tools.find((t) => t.name === 'late_tool' && t.server === '/late')?.origin, 'decorated');
    assert.deepEqual(tools.find((t) => t.name === 'fw_probe')?.server, null);
    assert.equal(tools.filter((t) => t.name === 'fw_probe').length, 1, 'a framework-registry tool is listed once');
    const sessions = view.sessions();
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0]?.server, '/late');
    assert.equal(sessions[0]?.clientName, 'view-test');
    assert.equal(sessions[0]?.transport, 'streamable-http');
    assert.ok((sessions[0]?.requests ?? 0) >= 3);
    assert.equal(view.servers().find((s) => s.path === '/late')?.sessions, 1);

    const bridge = new BiDirectionalToolBridge({ timeout: 1000, framework: fw });
    const fake = { uuid: 'u1', closed: false, write: () => true, onMessage: () => () => {}, onClose: () => () => {} };
    const pending = bridge.callClientTool(fake as never, 'remote', {});
    assert.deepEqual(
      view
        .pendingBridgeCalls()
        .filter((c) => c.resourceUuid === 'u1')
        .map((c) => [c.toolName, c.timeoutMs]),
      [['remote', 1000]],
    );
    bridge.close();
    await assert.rejects(pending);
  } finally {
    offTool();
    await client.close();
    await fw.close();
  }
  assert.deepEqual(mountedServers(fw), [], 'fw.close() unmounts every server');
});

test('URI templates: one variable per path segment, decoded; literals escaped', () => {
  const t = new UriTemplate('fw://rooms/{roomId}/messages.{format}');
  assert.deepEqual(t.match('fw://rooms/lobby%201/messages.json'), { roomId: 'lobby 1', format: 'json' });
  assert.equal(t.match('fw://rooms/a/b/messages.json'), undefined);
  assert.equal(t.match('fw://roomsXlobby/messages.json'), undefined);
  assert.equal(UriTemplate.isTemplate('fw://status'), false);
});

test('mountMcpServer with its own registries and without the process-wide one; catalog.add/remove announce changes', async () => {
  const { ToolRegistry, mountMcpServer } = await import('../dist/index.js');
  const fw = new Framework({ configFile: false });
  const own = new ToolRegistry('programmatic');
  own.registerTool({ name: 'own_tool', description: 'only here', handler: () => 'mine' });
  const offGlobal = McpRegistry.of(fw).registerTool({ name: 'global_tool', description: 'everywhere', handler: () => 'global' });
  const mounted = mountMcpServer(fw, { name: 'agent-like', path: '/own/mcp' }, { registries: [own], frameworkRegistry: false });
  const addr = await fw.listen(0, '127.0.0.1');
  const client = new Client({ name: 'own', version: '1' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${addr.port}/own/mcp`)));
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['own_tool'],
    );
    const extra = new ToolRegistry('programmatic');
    extra.registerTool({ name: 'extra_tool', description: 'added later', handler: () => 'x' });
    mounted.endpoint.catalog.add(extra);
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['own_tool', 'extra_tool'],
    );
    assert.equal(mounted.endpoint.catalog.remove(extra), true);
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['own_tool'],
    );
  } finally {
    offGlobal();
    await client.close();
    await fw.close();
  }
});
