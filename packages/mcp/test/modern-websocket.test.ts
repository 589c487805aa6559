import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Framework } from '@fw/runtime';
import { WebSocket } from 'ws';
import { mountMcpServer, ToolRegistry, type McpContext } from '../dist/index.js';

/** 2026-07-28 over the WebSocket transport: stateless requests on a socket that sent no initialize. */
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

test('WebSocket: modern requests are served statelessly; notifications/cancelled ends a request or a subscription', async () => {
  const fw = new Framework({ configFile: false });
  const registry = new ToolRegistry('programmatic');
  let aborted = 0;
  registry.registerTool({ name: 'echo', params: [{ name: 'text', type: 'string' }], handler: (args) => `echo ${String(args.text)}` });
  registry.registerTool({
    name: 'hang',
    handler: (_a, ctx: McpContext) =>
      new Promise((resolve) =>
        ctx.signal.addEventListener('abort', () => {
          aborted++;
          resolve('x');
        }),
      ),
  });
  mountMcpServer(fw, { name: 'ws-modern', version: '1.0.0', path: '/w' }, { registries: [registry], frameworkRegistry: false });
  const { port } = await fw.listen(0, '127.0.0.1');
  const ws = new WebSocket(`ws://127.0.0.1:${port}/w`, 'mcp');
  const inbox: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (d) => {
    inbox.push(JSON.parse(d.toString()) as Record<string, unknown>);
    waiters.splice(0).forEach((w) => w());
  });
  const next = async (match: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
    for (let i = 0; i < 100; i++) {
      const idx = inbox.findIndex(match);
      if (idx >= 0) return inbox.splice(idx, 1)[0] as Record<string, unknown>;
      await new Promise<void>((r) => waiters.push(r));
    }
    throw new Error('no such message');
  };
  const send = (m: unknown) => ws.send(JSON.stringify(m));
  try {
    await once(ws, 'open');
    send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' }, _meta: meta } });
    const r1 = await next((m) => m.id === 1);
    const result = r1.result as Record<string, unknown>;
    assert.equal(result.resultType, 'complete');
    assert.deepEqual(result.content, [{ type: 'text', text: 'echo hi' }]);

    send({ jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: meta } });
    assert.equal(((await next((m) => m.id === 2)).error as { code: number }).code, -32601);

    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'hang', arguments: {}, _meta: meta } });
    await new Promise((r) => setTimeout(r, 20));
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } });
    for (let i = 0; i < 50 && aborted === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(aborted, 1);

    send({ jsonrpc: '2.0', id: 'l', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: meta } });
    const ack = await next((m) => m.method === 'notifications/subscriptions/acknowledged');
    assert.deepEqual((ack.params as Record<string, unknown>)._meta, { 'io.modelcontextprotocol/subscriptionId': 'l' });
    registry.registerTool({ name: 'later', handler: () => 'x' });
    const changed = await next((m) => m.method === 'notifications/tools/list_changed');
    assert.deepEqual(changed.params, { _meta: { 'io.modelcontextprotocol/subscriptionId': 'l' } });
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'l' } });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: meta } });
    await next((m) => m.id === 4);
    registry.registerTool({ name: 'after-cancel', handler: () => 'x' });
    send({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: meta } });
    await next((m) => m.id === 5);
    assert.equal(
      inbox.filter((m) => m.method === 'notifications/tools/list_changed').length,
      0,
      'a cancelled subscription gets nothing more',
    );
  } finally {
    ws.close();
    await fw.close();
  }
});
