import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { waitFor } from '@fw/testing';
import { Framework } from '../../dist/index.js';
import { connectWs, notOnBun, openStream, type Running, startFw, type WsClient } from '../helpers.js';

/** `n` raw WebSocket subscribers of `/fw/s`, connected and registered. */
async function subscribers(app: Running, n: number): Promise<WsClient[]> {
  const clients = await Promise.all(Array.from({ length: n }, () => connectWs(`${app.ws}/fw/s`)));
  await waitFor(`${n} subscribers`, () => app.fw.broadcasters.lookup('/fw/s')?.size === n);
  return clients;
}

/** Counts the writes the server's sockets hand to the kernel (`_write`, or `_writev` for a corked batch). */
function countWrites(app: Running): { writes: number } {
  const seen = { writes: 0 };
  const server = app.fw.listeningServers[0]!;
  server.on('connection', (socket: Socket) => {
    const s = socket as Socket & { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void };
    const write = s._write.bind(s);
    const writev = s._writev.bind(s);
    s._write = (...a) => {
      seen.writes++;
      write(...a);
    };
    s._writev = (...a) => {
      seen.writes++;
      writev(...a);
    };
  });
  return seen;
}

/** Broadcasts `count` numbered messages on `/fw/s`, one per event-loop turn. */
async function publish(app: Running, count: number): Promise<void> {
  const b = app.fw.broadcasters.lookup('/fw/s')!;
  for (let i = 0; i < count; i++) {
    b.broadcast(String(i));
    await nextTurn();
  }
}

async function expectAll(clients: WsClient[], count: number): Promise<void> {
  for (const c of clients) {
    const got: string[] = [];
    for (let i = 0; i < count; i++) got.push(await c.messages.next());
    assert.deepEqual(
      got,
      Array.from({ length: count }, (_, i) => String(i)),
    );
  }
}

test('fw.flush.slice: at most that many connections are written per event-loop turn; the rest in the next turns', async () => {
  // On Bun a broadcast to sockets in step is one native publish (fw.bun.topics), not flushes: off here.
  const app = await startFw({ 'fw.flush.slice': 2, 'fw.bun.topics': false }, (fw) => fw.handle('/s', {}));
  try {
    const clients = await subscribers(app, 5);
    app.fw.broadcasters.lookup('/fw/s')!.broadcast('one');
    await Promise.resolve(); // the flush queue's microtask ran first: its first slice is written
    assert.equal(app.fw.runtime.diagnostics().pendingFlushes, 3);
    await nextTurn();
    assert.equal(app.fw.runtime.diagnostics().pendingFlushes, 1);
    await nextTurn();
    assert.equal(app.fw.runtime.diagnostics().pendingFlushes, 0);
    for (const c of clients) assert.equal(await c.messages.next(), 'one');
  } finally {
    await app.close();
  }
});

test('fw.flush.slice: 0 writes every connection in one turn; a negative or fractional value is refused', async () => {
  const app = await startFw({ 'fw.flush.slice': 0 }, (fw) => fw.handle('/s', {}));
  try {
    const clients = await subscribers(app, 5);
    app.fw.broadcasters.lookup('/fw/s')!.broadcast('one');
    await Promise.resolve();
    assert.equal(app.fw.runtime.diagnostics().pendingFlushes, 0);
    for (const c of clients) assert.equal(await c.messages.next(), 'one');
  } finally {
    await app.close();
  }
  for (const bad of [-1, 1.5])
    assert.throws(() => new Framework({ configFile: false, env: {}, 'fw.flush.slice': bad }), { code: 'invalid_config' }, String(bad));
});

test(
  'messages that arrive while a fan-out is being written in slices join the writes still to come: fewer writes, none lost, in order',
  notOnBun("counts writes on node:net server sockets; Bun's server has none"),
  async () => {
    const app = await startFw({ 'fw.flush.slice': 2 }, (fw) => fw.handle('/s', {}));
    const seen = countWrites(app);
    try {
      const clients = await subscribers(app, 6);
      seen.writes = 0;
      await publish(app, 30);
      await expectAll(clients, 30);
      // One write per socket per message would be 180; a socket's turn comes every third turn and
      // carries the messages of the turns it waited.
      assert.ok(seen.writes <= 90, `${seen.writes} writes for 30 messages to 6 sockets`);
    } finally {
      await app.close();
    }
  },
);

test('a connection whose resume ring would overflow before its turn is written at once: waiting loses nothing', async () => {
  // Ten connections one per turn: each waits ten turns, its ring (4) holds four messages.
  const app = await startFw({ 'fw.flush.slice': 1, 'fw.resume.buffer': 4 }, (fw) => fw.handle('/s', {}));
  try {
    const clients = await subscribers(app, 10);
    await publish(app, 40);
    await expectAll(clients, 40);
    assert.equal(app.fw.runtime.stats().lost, 0);
  } finally {
    await app.close();
  }
});

test('fw-protocol WebSocket and SSE subscribers waiting for their slice get every message once, in order, with consecutive ids and no gap', async () => {
  const app = await startFw({ 'fw.flush.slice': 1, 'fw.resume.buffer': 4 }, (fw) => fw.handle('/s', {}));
  try {
    const sockets = await Promise.all(Array.from({ length: 4 }, () => connectWs(`${app.ws}/fw/s?fw=1`)));
    const streams = await Promise.all(Array.from({ length: 4 }, () => openStream(`${app.base}/fw/s`, true)));
    await waitFor('8 subscribers', () => app.fw.broadcasters.lookup('/fw/s')?.size === 8);
    await publish(app, 30);
    for (const c of sockets) {
      const frames: { t: string; id?: number; d?: string }[] = [];
      while (frames.filter((f) => f.t === 'm').length < 30) frames.push(JSON.parse(await c.messages.next()));
      assert.deepEqual(
        frames.filter((f) => f.t !== 'hs').map((f) => f.t),
        Array(30).fill('m'),
      );
      const messages = frames.filter((f) => f.t === 'm');
      assert.deepEqual(
        messages.map((f) => f.d),
        Array.from({ length: 30 }, (_, i) => String(i)),
      );
      assert.deepEqual(
        messages.map((f) => f.id! - messages[0]!.id!),
        Array.from({ length: 30 }, (_, i) => i),
      );
    }
    for (const s of streams) {
      const got: string[] = [];
      while (got.length < 30) {
        const e = await s.events.next();
        if (!e.comment) got.push(e.data);
      }
      assert.deepEqual(
        got,
        Array.from({ length: 30 }, (_, i) => String(i)),
      );
      s.abort();
    }
    assert.equal(app.fw.runtime.stats().gaps, 0);
  } finally {
    await app.close();
  }
});
