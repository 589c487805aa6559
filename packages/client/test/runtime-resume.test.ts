/**
 * Acceptance 3: the server kills the client's socket in the middle of a 1000-message stream; the
 * client reconnects and has every message exactly once, in order. Also the fallback when the
 * server has forgotten the resource (404 unknown_tracking_id → fresh connection with `since`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type TransportName } from '../dist/node.js';
import { serve, until, within } from './helpers.js';

const COUNT = 1000;
const ROOM = '/fw/chat/lobby';
const expected = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `m${from + i}`);
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

for (const transport of ['websocket', 'sse', 'long-polling', 'streaming'] as TransportName[]) {
  test(`${transport}: socket killed mid-stream of ${COUNT} messages → resumed, every message exactly once, in order`, async (t) => {
    const server = await serve({}, (fw) => fw.handle('/chat/{room}', {}));
    const client = connect(server.url(ROOM), { transports: [transport], reconnect: { minDelay: 10, maxDelay: 50 } });
    t.after(() => {
      client.close();
      return server.close();
    });
    const got: string[] = [];
    const all = within(
      20_000,
      () => `${COUNT} messages (have ${got.length})`,
      (resolve) =>
        client.onMessage((d) => {
          got.push(d);
          if (got.length === COUNT) resolve();
        }),
    );
    await until(client, 'open');
    const uuid = client.uuid;
    const states: string[] = [];
    client.onStateChange((s) => states.push(s));

    let killed = 0;
    let seenAtKill = 0;
    for (let i = 0; i < COUNT; i++) {
      server.fw.runtime.broadcast(ROOM, `m${i}`);
      if (i === 400) {
        // Frames of this tick are still unflushed, earlier ones may be on the wire: both must come back.
        seenAtKill = got.length;
        killed = server.killSockets();
      }
      if (i % 50 === 49) await tick();
    }
    await all;
    await new Promise((r) => setTimeout(r, 50)); // anything delivered twice would arrive by now
    assert.ok(killed >= 1, 'the server held the client socket');
    assert.ok(seenAtKill > 0 && seenAtKill < COUNT, `killed mid-stream (client had ${seenAtKill})`);
    assert.equal(got.length, COUNT);
    assert.deepEqual(got, expected(0, COUNT));
    assert.deepEqual(states, ['reconnecting', 'open']);
    assert.equal(client.uuid, uuid, 'the same resource was resumed');
    assert.equal(server.fw.runtime.stats().connections, 1);
  });
}

for (const transport of ['websocket', 'sse', 'long-polling'] as TransportName[]) {
  test(`${transport}: a resource the server forgot (404 unknown_tracking_id) → fresh connection with since, nothing lost or repeated`, async (t) => {
    // The room (and its replay cache) outlives its last member, as a busy room would.
    // A grace long enough for long-polling's gaps between polls, and a client that comes back later.
    const server = await serve({ 'fw.resume.grace': 400, 'fw.broadcaster.destroy-empty': false }, (fw) => fw.handle('/chat/{room}', {}));
    const client = connect(server.url(ROOM), { transports: [transport], reconnect: { minDelay: 1000, maxDelay: 1000, jitter: 0 } });
    t.after(() => {
      client.close();
      return server.close();
    });
    const got: string[] = [];
    const errors: string[] = [];
    client.onError((e) => errors.push(e.code));
    let resolveAt: (() => void) | undefined;
    let target = 0;
    client.onMessage((d) => {
      got.push(d);
      if (got.length === target) resolveAt?.();
    });
    const have = (n: number): Promise<void> =>
      within(
        10_000,
        () => `${n} messages (have ${got.length})`,
        (resolve) => {
          target = n;
          resolveAt = resolve;
          if (got.length >= n) resolve();
        },
      );
    await until(client, 'open');
    const firstUuid = client.uuid;

    for (let i = 0; i < 100; i++) server.fw.runtime.broadcast(ROOM, `m${i}`);
    await have(100);
    // m100…m149 go out in the same tick as the kill; m150…m199 while the client is away and,
    // after 400 ms, forgotten along with its resource: only the room's replay cache has them.
    for (let i = 100; i < 150; i++) server.fw.runtime.broadcast(ROOM, `m${i}`);
    server.killSockets();
    await until(client, 'reconnecting');
    for (let i = 150; i < 200; i++) server.fw.runtime.broadcast(ROOM, `m${i}`);
    await until(client, 'open');
    for (let i = 200; i < 210; i++) server.fw.runtime.broadcast(ROOM, `m${i}`);
    await have(210);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(got, expected(0, 210));
    assert.ok(errors.includes('unknown_tracking_id'), errors.join(', '));
    assert.notEqual(client.uuid, firstUuid, 'a fresh resource');
  });
}

test('heartbeat timeout: a connection that goes silent is replaced and resumed; heartbeats keep a quiet one open', async (t) => {
  const quiet = await serve({ 'fw.heartbeat.interval': 0 }, (fw) => fw.handle('/chat/{room}', {}));
  const beating = await serve({ 'fw.heartbeat.interval': 300 }, (fw) => fw.handle('/chat/{room}', {}));
  const client = connect(quiet.url(ROOM), { transports: ['websocket'], heartbeatTimeout: 150, reconnect: { minDelay: 5, maxDelay: 10 } });
  const clients = [client];
  t.after(async () => {
    for (const c of clients) c.close();
    await quiet.close();
    await beating.close();
  });
  const errors: string[] = [];
  client.onError((e) => errors.push(e.code));
  await until(client, 'open');
  const uuid = client.uuid;
  await until(client, 'reconnecting');
  assert.deepEqual(errors, ['heartbeat_timeout']);
  await until(client, 'open');
  assert.equal(client.uuid, uuid, 'resumed, not a new resource');
  client.close();

  for (const transport of ['websocket', 'sse'] as TransportName[]) {
    const c = connect(beating.url(ROOM), { transports: [transport] });
    clients.push(c);
    const changes: string[] = [];
    c.onStateChange((s) => changes.push(s));
    await until(c, 'open');
    // 3 × 300 ms is the default timeout; heartbeats (not traffic) must keep this open.
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(changes, ['open'], transport);
    c.close();
  }
});
