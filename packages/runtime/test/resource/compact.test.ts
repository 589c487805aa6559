import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '@fw/testing';
import { heartbeat } from '@fw/runtime';
import { connectWs, notOnBun, startFw } from '../helpers.js';

// What the memory-saving representation of a resource (packed address, flag bits, a ring only
// from the first message, no per-transport index, loose-socket tracking) must not change.

test('remoteAddress: every client address reads back exactly as it came in (IPv4 kept as 32 bits, the rest as strings)', async () => {
  const app = await startFw({ 'fw.security.trusted-proxies': 'loopback' }, (fw) => fw.handle('/a', {}));
  try {
    const addresses = ['10.0.0.7', '0.0.0.0', '255.255.255.255', '198.51.100.4', '2001:db8::1', '::ffff:10.1.2.3', 'fe80::1'];
    const clients = [];
    for (const a of addresses) clients.push(await connectWs(`${app.ws}/fw/a`, { headers: { 'x-forwarded-for': a } }));
    clients.push(await connectWs(`${app.ws}/fw/a`));
    await waitFor('all connected', () => app.fw.resources.size === addresses.length + 1);
    const seen = [...app.fw.runtime.resources.values()].map((r) => r.remoteAddress);
    assert.deepEqual(seen, [...addresses, '127.0.0.1']);
    // The admin search matches on the formatted address.
    assert.equal(app.fw.runtime.listResources({ search: '198.51.100' }).total, 1);
    for (const c of clients) c.socket.close();
  } finally {
    await app.close();
  }
});

test('transport counts and filters follow resources as they come, resume over another transport, and go', async () => {
  // A short resume grace: the SSE resource ends soon after its stream does.
  const app = await startFw({ 'fw.resume.grace': 500 }, (fw) => fw.handle('/a', {}));
  try {
    const ws1 = await connectWs(`${app.ws}/fw/a?fw=1`);
    const hs = JSON.parse(await ws1.messages.next()) as { uuid: string };
    const ws2 = await connectWs(`${app.ws}/fw/a`);
    await waitFor('two connected', () => app.fw.resources.size === 2);
    const rt = app.fw.runtime;
    assert.equal(rt.listResources({ transport: 'websocket' }).total, 2);
    assert.equal(rt.listResources({ transport: 'sse' }).total, 0);
    // The fw client drops and comes back over SSE with its tracking id.
    rt.resources.get(hs.uuid)!.connection!.destroy();
    await ws1.closed;
    const sse = await fetch(`${app.base}/fw/a?fw=1&transport=sse&tracking=${hs.uuid}&last=0`, { headers: { accept: 'text/event-stream' } });
    assert.equal(sse.status, 200);
    await waitFor('resumed over sse', () => rt.resources.get(hs.uuid)?.transport === 'sse');
    const bySse = rt.listResources({ transport: 'sse' });
    assert.deepEqual([bySse.total, bySse.items.map((i) => i.uuid)], [1, [hs.uuid]]);
    assert.equal(rt.listResources({ transport: 'websocket' }).total, 1);
    await sse.body!.cancel();
    ws2.socket.close();
    await waitFor('all gone', () => app.fw.resources.size === 0, 10_000);
    assert.deepEqual([rt.resources.countOf('sse'), rt.resources.countOf('websocket')], [0, 0]);
  } finally {
    await app.close();
  }
});

test('heartbeat: a resource closed by an earlier interceptor is not swept and leaves no timer behind', async () => {
  const app = await startFw({ 'fw.heartbeat.interval': 0 }, (fw) => {
    fw.intercept({ name: 'gate', attach: (r) => r.close('not allowed') });
    fw.intercept(heartbeat({ interval: 50 }));
    fw.handle('/a', {});
  });
  try {
    const c = await connectWs(`${app.ws}/fw/a?fw=1`);
    await c.closed;
    await waitFor('closed', () => app.fw.resources.size === 0);
    assert.equal(app.fw.runtime.diagnostics().timers, 0);
  } finally {
    await app.close();
  }
});

test(
  'close(): sockets attached, not yet attached and closing are all drained; none is counted afterwards',
  notOnBun("counts the runtime's ws sockets (looseSockets) between upgrade and attach; Bun attaches in its open handler"),
  async () => {
    const app = await startFw({ 'fw.close.drain-timeout': 2000 }, (fw) => fw.handle('/a', {}));
    const clients = await Promise.all([1, 2, 3].map(() => connectWs(`${app.ws}/fw/a?fw=1`)));
    await waitFor('three connected', () => app.fw.resources.size === 3);
    assert.equal(app.fw.runtime.diagnostics().webSockets, 3);
    // One closed by the server whose client never answers the close frame: it stays loose until the drain.
    clients[0]!.socket.pause();
    [...app.fw.runtime.resources.values()][0]!.close('bye');
    assert.equal(app.fw.runtime.diagnostics().webSockets, 3, 'the closing socket still counts');
    const t0 = Date.now();
    await app.close();
    assert.ok(Date.now() - t0 < 4000, `close took ${Date.now() - t0} ms`);
    assert.equal(app.fw.runtime.diagnostics().webSockets, 0);
    await Promise.all(clients.slice(1).map((c) => c.closed));
    clients[0]!.socket.terminate();
  },
);

/** A masked client frame (RFC 6455 §5.2), payload under 126 bytes, built by hand to split it across writes. */
function clientFrame(opcode: number, payload: string): Buffer {
  const data = Buffer.from(payload);
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const masked = Buffer.from(data.map((b, i) => b ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | data.length]), mask, masked]);
}

test(
  'a raw client answers heartbeat pings: the frame parser stays exact (a pong sharing a chunk with half a message), errors need no listener',
  notOnBun("the ws package's frame parser internals ( _receiver, _socket ): Bun's server parses frames natively"),
  async () => {
    const got: string[] = [];
    const ended: string[] = [];
    const app = await startFw({ 'fw.heartbeat.interval': 30 }, (fw) =>
      fw.handle(
        '/a',
        { message: (_r, data) => void got.push(data), close: (_r, reason) => void ended.push(reason) },
        { broadcaster: null },
      ),
    );
    try {
      // Pongs by hand, so that none lands between the halves of the frame written below.
      const c = await connectWs(`${app.ws}/fw/a`, { autoPong: false });
      let pings = 0;
      let answering = true;
      c.socket.on('ping', () => {
        pings++;
        if (answering) c.socket.pong();
      });
      await waitFor('pinged and answered twice', () => pings >= 2);
      answering = false;
      const conn = [...app.fw.runtime.resources.values()][0]!.connection!;
      // The parts of `ws` fw trims after a pong (WebSocketConnection.trimChunks): if an upgrade of
      // `ws` renames them, this fails instead of the saving silently going away.
      const receiver = (conn as unknown as { _receiver: { _buffers: unknown; _bufferedBytes: unknown } })._receiver;
      assert.ok(Array.isArray(receiver._buffers), 'ws Receiver._buffers is an array');
      assert.equal(receiver._bufferedBytes, 0, 'ws Receiver._bufferedBytes is a number');
      // A listener of one's own still hears the events fw handles itself.
      const heard: string[] = [];
      (conn as unknown as { on(e: string, l: (d: Buffer) => void): void }).on('message', (d) => heard.push(d.toString()));

      // An unsolicited pong followed by the first half of a message, in one write; the rest later.
      const tcp = (c.socket as unknown as { _socket: import('node:net').Socket })._socket;
      const message = clientFrame(0x1, 'whole after a pong');
      tcp.write(Buffer.concat([clientFrame(0xa, ''), message.subarray(0, 9)]));
      await new Promise((r) => setTimeout(r, 50));
      tcp.write(message.subarray(9));
      c.socket.send('and the next one');
      await waitFor('both messages', () => got.length === 2);
      assert.deepEqual(got, ['whole after a pong', 'and the next one']);
      assert.deepEqual(heard, got);

      // A frame with a reserved opcode: `ws` answers 1002 and emits an error nobody listens to.
      tcp.write(clientFrame(0x3, 'x'));
      assert.equal((await c.closed).code, 1002);
      await waitFor('resource ended', () => ended.length === 1);
      assert.match(ended[0]!, /^protocol error: /);
      // The server carries on.
      const d = await connectWs(`${app.ws}/fw/a`);
      d.socket.send('still here');
      await waitFor('served', () => got.length === 3);
      d.socket.close();
    } finally {
      await app.close();
    }
  },
);
