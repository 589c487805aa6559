/**
 * The slow-consumer `drop` gap must not wait for the next message (issue #25): in a room that goes
 * quiet after the drops, the gap frame is written when the connection drains, and after
 * `fw.slow-consumer.gap-delay` at the latest even if it never does. An fw-protocol WebSocket client
 * whose socket stops reading, over real loopback sockets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { connectWs, startFw, type WsClient } from '../helpers.js';
import { waitFor } from '@fw/testing';

interface Frame {
  t: string;
  uuid?: string;
  d?: string;
  lost?: number;
  reason?: string;
}

const ROOM = '/fw/room';
const onBun = 'Bun' in globalThis;

/** Connects, stops reading, and broadcasts until the server drops messages for it; then the room is quiet. */
async function overflow(
  options: Record<string, unknown>,
): Promise<{ app: Awaited<ReturnType<typeof startFw>>; c: WsClient; socket: Socket; uuid: string }> {
  const app = await startFw({ 'fw.slow-consumer.high-water-mark': 64 * 1024, 'fw.heartbeat.interval': 0, ...options }, (fw) =>
    fw.handle('/room', {}),
  );
  const c = await connectWs(`${app.ws}${ROOM}?fw=1`);
  const hs = JSON.parse(await c.messages.next()) as Frame;
  const socket = (c.socket as unknown as { _socket: Socket })._socket;
  socket.pause();
  const big = 'x'.repeat(32 * 1024);
  for (let i = 0; i < 5000 && app.fw.runtime.stats().dropped === 0; i++) {
    app.fw.runtime.broadcast(ROOM, `${i} ${big}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.ok(app.fw.runtime.stats().dropped > 0, 'the server dropped messages for the slow client');
  // A few more drops in the same run, then nothing more is broadcast.
  for (let i = 0; i < 3; i++) app.fw.runtime.broadcast(ROOM, `late ${i} ${big}`);
  return { app, c, socket, uuid: hs.uuid! };
}

/** Every frame the client has, once it reads again, until the gap (or a deadline). */
async function readUntilGap(c: WsClient): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (;;) {
    const f = JSON.parse(await c.messages.next(15_000)) as Frame;
    frames.push(f);
    if (f.t === 'gap') return frames;
  }
}

test('drop, then a quiet room: the gap is written when the connection drains, not with a next message', async (t) => {
  const { app, c, socket } = await overflow({ 'fw.slow-consumer.gap-delay': 600_000 });
  t.after(async () => {
    c.socket.terminate();
    await app.close();
  });
  const dropped = app.fw.runtime.stats().dropped;
  socket.resume();
  const frames = await readUntilGap(c);
  const gap = frames.at(-1)!;
  assert.deepEqual([gap.reason, gap.lost], ['slow-consumer-dropped', dropped]);
  assert.ok(
    frames.slice(0, -1).every((f) => f.t === 'm'),
    'the messages sent before the drops, then the gap',
  );
});

test('drop, and the client never reads again: the gap is written after fw.slow-consumer.gap-delay anyway', async (t) => {
  const { app, c, socket, uuid } = await overflow({ 'fw.slow-consumer.gap-delay': 300 });
  t.after(async () => {
    c.socket.terminate();
    await app.close();
  });
  const conn = app.fw.resources.get(uuid)!.connection!;
  const before = conn.bufferedBytes();
  // Nothing else is written to this connection (no heartbeats, no messages): only the gap can grow
  // its buffer. On Bun the socket may hand it all to the kernel at once (its buffered amount
  // counts only what the kernel refused): there the bound's timer, the only one, is gone once the
  // gap is written.
  await waitFor(
    'the gap frame queued behind the unread messages',
    () => conn.bufferedBytes() > before || (onBun && app.fw.runtime.diagnostics().timers === 0),
    10_000,
  );
  const dropped = app.fw.runtime.stats().dropped;
  socket.resume();
  const gap = (await readUntilGap(c)).at(-1)!;
  assert.deepEqual([gap.reason, gap.lost], ['slow-consumer-dropped', dropped]);
  assert.equal(app.fw.runtime.diagnostics().timers, 0, 'the bound timer is gone once the gap is out');
});

test('drop, then the client drops too: its resume gets the gap at once, in a quiet room', async (t) => {
  const { app, c, uuid } = await overflow({ 'fw.slow-consumer.gap-delay': 600_000 });
  t.after(async () => {
    c.socket.terminate();
    await app.close();
  });
  const dropped = app.fw.runtime.stats().dropped;
  // The client never read what was buffered: it resumes from the handshake (last=0).
  c.socket.terminate();
  await waitFor('the resource detached', () => app.fw.resources.get(uuid)?.connection === undefined);
  const again = await connectWs(`${app.ws}${ROOM}?fw=1&tracking=${uuid}&last=0`);
  t.after(() => again.socket.terminate());
  const frames = await readUntilGap(again);
  assert.equal(frames[0]!.t, 'hs');
  const gap = frames.at(-1)!;
  assert.deepEqual([gap.reason, gap.lost], ['slow-consumer-dropped', dropped]);
  assert.ok(
    frames.slice(1, -1).every((f) => f.t === 'm'),
    'what the buffer kept, then the gap',
  );
});
