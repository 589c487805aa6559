/**
 * The dashboard's time series (docs/dashboard.md, Charts): a bounded ring of samples per
 * framework, served by GET /api/admin/history and pushed on the event stream, user traffic only.
 * Real parts: a real Framework, fw clients over two transports, a plain WebSocket consumer of the
 * event stream.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import WebSocket from 'ws';
import { Framework } from '@fw/runtime';
import { connect, type FwClient } from '@fw/client/node';
import { admin, type HistorySample } from '../dist/index.js';

interface HistoryBody {
  intervalMs: number;
  capacity: number;
  now: number;
  totals: { broadcasts: number; agentRuns: number; errors: number };
  samples: HistorySample[];
}
interface Frame {
  type: string;
  [k: string]: unknown;
}

async function startFw(props: Record<string, unknown> = {}): Promise<{ fw: Framework; base: string; ws: string }> {
  const fw = new Framework({ configFile: false, 'fw.admin.mcp-tools': false, 'fw.heartbeat.interval': 0, ...props });
  await fw.use(admin());
  fw.handle('/chat/{room}', {});
  const { port } = await fw.listen(0, '127.0.0.1');
  return { fw, base: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${port}` };
}

/** Polls `read` until `ok` holds: bounded in time, never a fixed sleep. */
async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  do {
    last = await read();
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  } while (Date.now() < deadline);
  assert.fail(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
}

async function open(url: string, transport: 'websocket' | 'sse'): Promise<FwClient> {
  const client = connect(url, { transports: [transport] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${transport} client did not open`)), 10_000);
    client.onStateChange((s) => {
      if (s === 'open') {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return client;
}

test("history: samples count user connections by transport, broadcasts, runs and errors; the dashboards' own stream is left out; the ring keeps fw.admin.history.samples", async () => {
  const { fw, base, ws } = await startFw({ 'fw.admin.history.interval-ms': 150, 'fw.admin.history.samples': 4 });
  const clients: FwClient[] = [];
  const consumer = new WebSocket(`${ws}/fw/admin/events`);
  try {
    const frames: Frame[] = [];
    consumer.on('message', (d) => frames.push(JSON.parse(String(d)) as Frame));
    await once(consumer, 'open');
    clients.push(
      await open(`${base}/fw/chat/lobby`, 'websocket'),
      await open(`${base}/fw/chat/lobby`, 'websocket'),
      await open(`${base}/fw/chat/lobby`, 'sse'),
    );

    // Three broadcasts to the room reach three members each; a failed control action is an error.
    const before = ((await (await fetch(`${base}/api/admin/history`)).json()) as HistoryBody).totals;
    for (let i = 0; i < 3; i++) assert.equal(fw.runtime.broadcast('/fw/chat/lobby', `m${i}`), 3);
    const notFound = await fetch(`${base}/api/admin/broadcasters/broadcast`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ broadcasterId: '/fw/nope', message: 'x' }),
    });
    assert.equal(notFound.status, 404);

    const body = await eventually(
      async () => (await (await fetch(`${base}/api/admin/history`)).json()) as HistoryBody,
      (b) => b.samples.some((s) => s.broadcasts > 0) && b.samples.at(-1)!.connections.websocket === 2,
      'a sample with the broadcasts',
    );
    assert.equal(body.intervalMs, 150);
    assert.equal(body.capacity, 4);
    const last = body.samples.at(-1)!;
    // The consumer of /fw/admin/events is a websocket connection too, but not a user's.
    assert.deepEqual(last.connections, { websocket: 2, sse: 1, 'long-polling': 0, streaming: 0 });
    const all = body.samples.reduce((n, s) => n + s.broadcasts, 0);
    assert.equal(body.totals.broadcasts - before.broadcasts, 3);
    assert.ok(all >= 3 && all <= body.totals.broadcasts, `sampled broadcasts ${all}`);
    assert.equal(body.samples.reduce((n, s) => n + s.deliveries, 0) >= 9, true);
    assert.ok(body.totals.errors - before.errors >= 1, 'a control action that failed (not found) counts as an error');
    for (const s of body.samples) assert.ok(s.intervalMs > 0 && Number.isInteger(s.t));

    // The overview counts user broadcasts only: the event stream's own frames are internal.
    const overview = (await (await fetch(`${base}/api/admin/overview`)).json()) as {
      broadcasts: number;
      connections: number;
      internal: { connections: number; messages: number };
    };
    assert.equal(overview.broadcasts, 3);
    assert.equal(overview.connections, 3);
    assert.equal(overview.internal.connections, 1);
    assert.ok(overview.internal.messages > 0, 'the stream did broadcast frames to the consumer');

    // The same samples arrive on the event stream, without entering events/recent.
    await eventually(
      async () => frames.filter((f) => f.type === 'HistorySample').length,
      (n) => n >= 2,
      'HistorySample frames',
    );
    const pushed = frames.filter((f) => f.type === 'HistorySample').at(-1)!;
    assert.ok(typeof pushed.t === 'number' && typeof pushed.connections === 'object');
    const recent = (await (await fetch(`${base}/api/admin/events/recent`)).json()) as Frame[];
    assert.ok(recent.length > 0 && recent.every((e) => e.type !== 'HistorySample'));

    // At the edge: never more than fw.admin.history.samples, the oldest dropped first.
    const full = await eventually(
      async () => (await (await fetch(`${base}/api/admin/history`)).json()) as HistoryBody,
      (b) => b.samples.length === 4 && b.samples[0]!.t > last.t,
      'the ring to turn over',
    );
    assert.equal(full.samples.length, 4);
    for (let i = 1; i < full.samples.length; i++) assert.ok(full.samples[i]!.t > full.samples[i - 1]!.t, 'oldest first');
    const since = (await (await fetch(`${base}/api/admin/history?since=${full.samples[2]!.t}`)).json()) as HistoryBody;
    assert.ok(since.samples.every((s) => s.t > full.samples[2]!.t) && since.samples.length >= 1);
    assert.equal((await fetch(`${base}/api/admin/history?since=-1`)).status, 400);
  } finally {
    consumer.close();
    for (const c of clients) c.close();
    await fw.close();
  }
});

test('history: a bad fw.admin.history.* value stops the admin plane at start with the key in the message', async () => {
  for (const [key, value] of [
    ['fw.admin.history.interval-ms', 99],
    ['fw.admin.history.samples', 0],
    ['fw.admin.history.samples', 100_001],
  ] as const) {
    const fw = new Framework({ configFile: false, 'fw.admin.mcp-tools': false, [key]: value });
    await assert.rejects(fw.use(admin()), (err: Error) => err.message.includes(key), `${key}=${value}`);
    await fw.close();
  }
  // The smallest values accepted.
  const fw = new Framework({
    configFile: false,
    'fw.admin.mcp-tools': false,
    'fw.admin.history.interval-ms': 100,
    'fw.admin.history.samples': 1,
  });
  await fw.use(admin());
  await fw.close();
});
