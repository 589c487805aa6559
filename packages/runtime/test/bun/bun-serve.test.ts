/**
 * fw.listen() on Bun (docs/bun.md): these run under `bun test` (scripts/test-bun.mjs) and skip
 * themselves on Node. The rest of the runtime's suite runs on Bun too; these check what only Bun
 * has: that `listen()` really serves through `Bun.serve` (so that suite is not passing on Bun's
 * node:http compatibility instead), that `fw.bun.native=false` goes back to node:http, and how
 * the adapter answers what it cannot serve natively.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { FwResource } from '../../dist/resource/resource.js';
import { connectWs, onBun, recordEvents, refusedUpgrade, startFw } from '../helpers.js';
import { waitFor } from '@fw/testing';

const onlyOnBun = { skip: onBun ? false : 'runs on Bun only (node scripts/test-bun.mjs)' };

test('fw.listen() on Bun serves through Bun.serve: no node:http server, its address listed', onlyOnBun, async () => {
  const app = await startFw({}, (fw) => fw.handle('/room', {}));
  try {
    assert.equal(app.fw.listeningServers.length, 0, 'no node:http server');
    const [address] = app.fw.listeningAddresses;
    assert.equal(address?.address, '127.0.0.1');
    assert.equal(`http://127.0.0.1:${address?.port}`, app.base);
    const c = await connectWs(`${app.ws}/fw/room?fw=1`);
    const hs = JSON.parse(await c.messages.next()) as { t: string; transport: string };
    assert.deepEqual([hs.t, hs.transport], ['hs', 'websocket']);
    // The runtime's WebSocket server (`ws`) is never created: the socket is Bun's.
    assert.equal((app.fw.runtime as unknown as { server?: unknown }).server, undefined);
    c.socket.close(1000);
  } finally {
    await app.close();
  }
});

test('fw.bun.native=false: fw.listen() on Bun uses node:http and ws, as on Node', onlyOnBun, async () => {
  const app = await startFw({ 'fw.bun.native': false }, (fw) => fw.handle('/room', {}));
  try {
    assert.equal(app.fw.listeningServers.length, 1, 'a node:http server');
    const c = await connectWs(`${app.ws}/fw/room?fw=1`);
    assert.equal((JSON.parse(await c.messages.next()) as { t: string }).t, 'hs');
    c.socket.close(1000);
  } finally {
    await app.close();
  }
});

test('Bun.serve: a foreign Host or Origin is refused before any socket, by the same policy as on Node', onlyOnBun, async () => {
  const app = await startFw({}, (fw) => fw.handle('/room', {}));
  const events = recordEvents(app.fw);
  try {
    const host = await refusedUpgrade(`${app.base}/fw/room`, { host: 'evil.example' });
    assert.equal(host.status, 421);
    assert.equal(host.body.code, 'host_not_allowed');
    const origin = await refusedUpgrade(`${app.base}/fw/room`, { origin: 'https://evil.example' });
    assert.equal(origin.status, 403);
    assert.equal(app.fw.runtime.stats().connections, 0);
    assert.equal(events.filter((e) => e.type === 'ResourceConnected').length, 0);
    const sse = await fetch(`${app.base}/fw/room?fw=1`, { headers: { accept: 'text/event-stream', origin: 'https://evil.example' } });
    assert.equal(sse.status, 403);
  } finally {
    await app.close();
  }
});

test('Bun.serve: an upgrade route built on ws (not a real-time endpoint) is answered 501, naming fw.bun.native', onlyOnBun, async () => {
  const app = await startFw({}, (fw) => {
    fw.upgrade('/fw/custom', (_req, socket) => socket.destroy());
  });
  try {
    const r = await refusedUpgrade(`${app.base}/fw/custom`);
    assert.equal(r.status, 501);
    assert.equal(r.body.code, 'websocket_not_native');
    assert.match(String(r.body.detail), /fw\.bun\.native=false/);
  } finally {
    await app.close();
  }
});

test('Bun.serve: the client address of a request and of a WebSocket is the socket peer', onlyOnBun, async () => {
  const app = await startFw({}, (fw) => fw.handle('/room', {}));
  try {
    const c = await connectWs(`${app.ws}/fw/room?fw=1`);
    const hs = JSON.parse(await c.messages.next()) as { uuid: string };
    assert.equal(app.fw.resources.get(hs.uuid)?.remoteAddress, '127.0.0.1');
    c.socket.close(1000);
  } finally {
    await app.close();
  }
});

test('Bun.serve: an SSE client that stops reading is a slow consumer (the response stream backs up)', onlyOnBun, async () => {
  const app = await startFw({ 'fw.slow-consumer.high-water-mark': 64 * 1024, 'fw.heartbeat.interval': 0 }, (fw) => fw.handle('/room', {}));
  const port = Number(new URL(app.base).port);
  // A raw TCP client that sends the request and never reads the answer.
  const socket = connect(port, '127.0.0.1', () => {
    socket.write('GET /fw/room?fw=1&transport=sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n');
  });
  socket.pause();
  try {
    await waitFor('connected', () => app.fw.runtime.stats().connections === 1);
    const big = 'x'.repeat(32 * 1024);
    for (let i = 0; i < 5000 && app.fw.runtime.stats().dropped === 0; i++) {
      app.fw.runtime.broadcast('/fw/room', `${i} ${big}`);
      await new Promise((r) => setImmediate(r));
    }
    assert.ok(app.fw.runtime.stats().dropped > 0, 'the server dropped messages for the reader that stopped');
  } finally {
    socket.destroy();
    await app.close();
  }
});

test(
  'Bun.serve: broadcasts reach sockets in step through the broadcaster topic (fw.bun.topics), and one that stops reading leaves it for the slow-consumer policy',
  onlyOnBun,
  async (t) => {
    for (const topics of [true, false]) {
      const app = await startFw({ 'fw.bun.topics': topics, 'fw.slow-consumer.high-water-mark': 64 * 1024 }, (fw) => fw.handle('/room', {}));
      const implicit = await connectWs(`${app.ws}/fw/room?fw=1&ids=implicit`);
      const explicit = await connectWs(`${app.ws}/fw/room?fw=1`);
      const raw = await connectWs(`${app.ws}/fw/room`);
      t.after(() => {
        for (const c of [implicit, explicit, raw]) c.socket.terminate();
      });
      const room = app.fw.broadcasters.lookup('/fw/room')!;
      await waitFor('3 members', () => room.size === 3);
      for (const m of ['1', '2']) room.broadcast(m);
      await new Promise((r) => setTimeout(r, 50));
      room.broadcast('3');
      const topicOf = (r: unknown) => (r as FwResource).connection?.topic ?? null;
      const topicsOf = () => [...room.resources].map((r) => [r.protocol, topicOf(r)]).sort();
      // An fw client that asked for implicit ids and a raw client take the topic; one without implicit ids cannot.
      assert.deepEqual(
        topicsOf(),
        topics
          ? [
              ['fw', null],
              ['fw', '/fw/room'],
              ['raw', '/fw/room'],
            ]
          : [
              ['fw', null],
              ['fw', null],
              ['raw', null],
            ],
      );
      assert.deepEqual(await raw.messages.take(3), ['1', '2', '3']);
      // The raw client stops reading: past the high-water mark it leaves the topic and its messages are dropped (policy drop), counted.
      raw.socket.pause();
      const big = 'x'.repeat(16 * 1024);
      // Until the socket and the kernel's buffers are full (bounded: 4,000 broadcasts, 64 MB).
      for (let i = 0; i < 4000 && app.fw.runtime.stats().dropped === 0; i++) {
        room.broadcast(big);
        if (i % 20 === 0) await new Promise((r) => setTimeout(r, 2));
      }
      assert.ok(app.fw.runtime.stats().dropped > 0, 'the reader that stopped has messages dropped');
      const rawResource = [...room.resources].find((r) => r.protocol === 'raw')!;
      assert.equal(topicOf(rawResource), null);
      await app.close();
    }
  },
);
