/** Acceptance: the bridge against the real runtime and the fw client over WebSocket and SSE. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework, type Resource } from '@fw/runtime';
import { connect } from '@fw/client/node';
import { BiDirectionalToolBridge, BridgeDisconnectedError, BridgeTimeoutError } from '../src/index.js';

async function serve(): Promise<{ fw: Framework; url: string; connected: () => Promise<Resource> }> {
  const fw = new Framework({ configFile: false, 'fw.modules.autoload': false });
  const waiting: ((r: Resource) => void)[] = [];
  const ready: Resource[] = [];
  fw.handle('/assistant', {
    open(resource) {
      const w = waiting.shift();
      if (w) w(resource);
      else ready.push(resource);
    },
  });
  const addr = await fw.listen(0, '127.0.0.1');
  return {
    fw,
    url: `http://127.0.0.1:${addr.port}/fw/assistant`,
    connected: () => new Promise((resolve) => {
      const r = ready.shift();
      if (r) resolve(r);
      else waiting.push(resolve);
    }),
  };
}

for (const transport of ['websocket', 'sse'] as const) {
  test(`bridge round trip over the fw client (${transport}): results by id, 100 concurrent calls, client errors`, async () => {
    const { fw, url, connected } = await serve();
    const client = connect(url, { transports: [transport] });
    try {
      client.registerTool('add', (args) => (args.a as number) + (args.b as number));
      client.registerTool('upper', async (args) => {
        await new Promise((r) => setTimeout(r, Math.random() * 20));
        return String(args.s).toUpperCase();
      });
      client.registerTool('boom', () => {
        throw new Error('kaboom');
      });
      const resource = await connected();
      assert.equal(resource.transport, transport);
      const bridge = new BiDirectionalToolBridge(5000);
      assert.equal(await bridge.callClientTool(resource, 'add', { a: 2, b: 40 }), '42');
      const calls = Array.from({ length: 100 }, (_, i) => bridge.callClientTool(resource, 'upper', { s: `item-${i}` }));
      assert.equal(bridge.pendingCount(), 100);
      assert.deepEqual(await Promise.all(calls), Array.from({ length: 100 }, (_, i) => `ITEM-${i}`));
      assert.equal(bridge.pendingCount(), 0);
      assert.deepEqual(bridge.pendingCalls(), []);
      await assert.rejects(bridge.callClientTool(resource, 'boom'), /kaboom/);
      await assert.rejects(bridge.callClientTool(resource, 'unregistered'), /no handler registered/);
    } finally {
      client.close();
      await fw.close();
    }
  });

  test(`bridge over the fw client (${transport}): timeout with the typed error; disconnect rejects pending calls at once`, async () => {
    const { fw, url, connected } = await serve();
    const client = connect(url, { transports: [transport] });
    try {
      client.registerTool('never', () => new Promise(() => undefined));
      const resource = await connected();
      const short = new BiDirectionalToolBridge(150);
      await assert.rejects(short.callClientTool(resource, 'never'), (e: unknown) => e instanceof BridgeTimeoutError && e.code === 'bridge_timeout');
      assert.equal(short.pendingCount(), 0);

      const long = new BiDirectionalToolBridge(); // 30 s default: only the disconnect can end these
      const pending = [long.callClientTool(resource, 'never'), long.callClientTool(resource, 'never')];
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(long.pendingCount(), 2);
      fw.runtime.disconnect(resource.uuid, 'operator kick');
      for (const p of pending) await assert.rejects(p, BridgeDisconnectedError);
      assert.equal(long.pendingCount(), 0);
    } finally {
      client.close();
      await fw.close();
    }
  });
}
