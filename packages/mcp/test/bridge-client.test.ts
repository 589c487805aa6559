/** Acceptance: the bridge against the real runtime and the fw client over WebSocket and SSE. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework, type Resource } from '@fw/runtime';
import { connect } from '@fw/client/node';
import { WebSocket } from 'ws';
import { BiDirectionalToolBridge, BridgeDisconnectedError, BridgeTimeoutError } from '../dist/index.js';

async function serve(): Promise<{ fw: Framework; url: string; connected: () => Promise<Resource> }> {
  const fw = new Framework({ configFile: false });
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
    connected: () =>
      new Promise((resolve) => {
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
      assert.deepEqual(
        await Promise.all(calls),
        Array.from({ length: 100 }, (_, i) => `ITEM-${i}`),
      );
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
      await assert.rejects(
        short.callClientTool(resource, 'never'),
        (e: unknown) => e instanceof BridgeTimeoutError && e.code === 'bridge_timeout',
      );
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

/**
 * Attack (issue 11 item 6): the handler has no `message()`, so every app message a client sends is
 * broadcast to its path. A bridge answer must still reach only the pending call: a second client
 * of the same path sees nothing of it, whether the answering client speaks fw (its `tool-response`
 * frame) or is a raw WebSocket client (the §2.4 JSON as a message).
 */
for (const transport of ['websocket', 'sse', 'long-polling', 'streaming'] as const) {
  test(`a bridge answer is not seen by a second client of the same path (${transport}, handler without message())`, async () => {
    const { fw, url, connected } = await serve();
    const caller = connect(url, { transports: [transport] });
    caller.registerTool('secret', () => 'the answer only the server may read');
    const callerResource = await connected();
    const bystander = connect(url, { transports: ['websocket'] });
    const seen: string[] = [];
    try {
      bystander.onMessage((d) => seen.push(d));
      await connected();
      const bridge = new BiDirectionalToolBridge(5000);
      assert.equal(await bridge.callClientTool(callerResource, 'secret'), 'the answer only the server may read');
      // A later broadcast on the path proves the bystander is live and ordered after the answer.
      caller.send('after');
      await new Promise<void>((resolve) => {
        const off = bystander.onMessage((d) => {
          if (d === 'after') {
            off();
            resolve();
          }
        });
      });
      assert.deepEqual(seen, ['after'], 'the bystander saw only the ordinary message');
    } finally {
      caller.close();
      bystander.close();
      await fw.close();
    }
  });
}

test('a raw WebSocket client answers with the §2.4 message; the answer is not broadcast, and non-answers still are', async () => {
  const { fw, url, connected } = await serve();
  const wsUrl = url.replace('http:', 'ws:');
  const raw = new WebSocket(wsUrl);
  const bystander = connect(url, { transports: ['websocket'] });
  const seen: string[] = [];
  try {
    bystander.onMessage((d) => seen.push(d));
    const calls: string[] = [];
    raw.on('message', (data) => {
      const text = String(data);
      calls.push(text);
      if (!text.startsWith('{"type":"tool-call"')) return; // broadcasts of the path, its own included
      const msg = JSON.parse(text) as { type?: string; id?: string };
      if (msg.type === 'tool-call') raw.send(JSON.stringify({ type: 'tool-response', id: msg.id, result: 'raw secret' }));
    });
    const first = await connected();
    const second = await connected();
    const rawResource = first.protocol === 'raw' ? first : second;
    assert.equal(rawResource.protocol, 'raw');
    const bridge = new BiDirectionalToolBridge(5000);
    assert.equal(await bridge.callClientTool(rawResource, 'secret'), 'raw secret');
    assert.equal(JSON.parse(calls[0]!).type, 'tool-call', 'a raw client gets the spec §2.4 JSON');
    // A message of the same shape that answers no pending call is the application's: broadcast.
    const unclaimed = JSON.stringify({ type: 'tool-response', id: 'no-such-call', result: 'x' });
    raw.send(unclaimed);
    raw.send('after');
    await new Promise<void>((resolve) => {
      const off = bystander.onMessage((d) => {
        if (d === 'after') {
          off();
          resolve();
        }
      });
    });
    assert.deepEqual(seen, [unclaimed, 'after']);
  } finally {
    raw.close();
    bystander.close();
    await fw.close();
  }
});

test('POST with an unknown frame kind is 400 invalid_query, and nothing reaches the path', async () => {
  const { fw, url, connected } = await serve();
  const client = connect(url, { transports: ['sse'] });
  try {
    await connected();
    const uuid = await new Promise<string>((resolve) => {
      const check = (): void => (client.uuid ? resolve(client.uuid) : void setTimeout(check, 5));
      check();
    });
    const res = await fetch(`${url}?tracking=${uuid}&frame=bogus`, { method: 'POST', body: 'x' });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { code: string; parameter: string };
    assert.equal(body.code, 'invalid_query');
    assert.equal(body.parameter, 'frame');
  } finally {
    client.close();
    await fw.close();
  }
});

for (const transport of ['websocket', 'sse'] as const) {
  test(`a call written while the fw client's connection is down is replayed on resume and answered once (${transport}); client close rejects at once`, async () => {
    const { fw, url, connected } = await serve();
    const sockets = new Set<import('node:net').Socket>();
    for (const s of fw.listeningServers)
      s.on('connection', (socket: import('node:net').Socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
    const client = connect(url, { transports: [transport], reconnect: { minDelay: 10, maxDelay: 50 } });
    let answered = 0;
    try {
      client.registerTool('count', () => String(++answered));
      const resource = await connected();
      // The client has the handshake (so it will resume this resource, not open another).
      for (let i = 0; i < 2000 && client.state !== 'open'; i++) await new Promise((r) => setTimeout(r, 5));
      assert.equal(client.state, 'open');
      const bridge = new BiDirectionalToolBridge(10_000);
      const reconnected = new Promise<void>((resolve) => {
        const off = client.onStateChange((s, previous) => {
          if (s === 'open' && previous !== 'open') {
            off();
            resolve();
          }
        });
      });
      for (const s of sockets) s.destroy(); // a network drop: the resource waits for the resume
      const call = bridge.callClientTool(resource, 'count');
      await reconnected;
      assert.equal(await call, '1');
      assert.equal(answered, 1, 'answered exactly once');

      const never = new BiDirectionalToolBridge(30_000);
      client.registerTool('hang', () => new Promise(() => undefined));
      const pending = never.callClientTool(resource, 'hang');
      await new Promise((r) => setTimeout(r, 50));
      client.close();
      await assert.rejects(pending, (e: unknown) => e instanceof BridgeDisconnectedError && e.code === 'bridge_disconnected');
      assert.equal(never.pendingCount(), 0);
    } finally {
      client.close();
      await fw.close();
    }
  });
}
