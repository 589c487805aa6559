import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { WebSocket } from 'ws';
import { Framework } from '@fw/runtime';
import { admin } from '../dist/index.js';

interface BroadcasterRow {
  id: string;
  lost: number;
  recovered: number;
  replayWindow: { first: number; last: number } | null;
}

/** Frames of one fw-protocol WebSocket, in order, awaited one at a time. */
function frames(ws: WebSocket): () => Promise<{ t: string; [k: string]: unknown }> {
  const queue: string[] = [];
  const waiting: ((s: string) => void)[] = [];
  ws.on('message', (d) => {
    const s = String(d);
    const w = waiting.shift();
    if (w) w(s);
    else queue.push(s);
  });
  return async () => JSON.parse(queue.shift() ?? (await new Promise<string>((r) => waiting.push(r)))) as { t: string };
}

test("admin REST: a broadcaster's recovered count and replay window follow a real replay; the runtime counts it as a metric", async () => {
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': '',
    'fw.admin.mcp-tools': false,
    'fw.broadcaster.replay-cache': 4,
    'fw.heartbeat.interval': 0,
  });
  fw.handle('/room', {});
  await fw.use(admin());
  const { port } = await fw.listen(0, '127.0.0.1');
  const row = async (): Promise<BroadcasterRow> => {
    const res = await fetch(`http://127.0.0.1:${port}/api/admin/broadcasters/${encodeURIComponent('/fw/room')}`);
    assert.equal(res.status, 200);
    return (await res.json()) as BroadcasterRow;
  };
  const sockets: WebSocket[] = [];
  try {
    // A member keeps the broadcaster alive; its handshake names the epoch the cursors live in.
    const member = new WebSocket(`ws://127.0.0.1:${port}/fw/room?fw=1`);
    sockets.push(member);
    const next = frames(member);
    const hs = await next();
    assert.equal(hs.t, 'hs');
    const b = fw.broadcasters.lookup('/fw/room');
    assert.ok(b);
    for (let i = 1; i <= 6; i++) b.broadcast(`m${i}`);
    for (let i = 1; i <= 6; i++) assert.equal((await next()).t, 'm');
    assert.deepEqual(await row().then((r) => ({ recovered: r.recovered, lost: r.lost, replayWindow: r.replayWindow })), {
      recovered: 0,
      lost: 0,
      replayWindow: { first: 3, last: 6 },
    });

    // A fresh connection that last saw bid 4 gets 5 and 6 again: two recovered, nothing lost.
    const since = Buffer.from(JSON.stringify({ '/fw/room': 4 })).toString('base64url');
    const late = new WebSocket(`ws://127.0.0.1:${port}/fw/room?fw=1&since=${since}&epoch=${String(hs.epoch)}`);
    sockets.push(late);
    const lateNext = frames(late);
    assert.equal((await lateNext()).t, 'hs');
    const replayed: unknown[] = [];
    for (let f = await lateNext(); f.t !== 'rec'; f = await lateNext()) replayed.push(f.bid);
    assert.deepEqual(replayed, [5, 6]);
    const r = await row();
    assert.equal(r.recovered, 2);
    assert.equal(r.lost, 0);
    assert.equal(fw.runtime.stats().recovered, 2);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/fw/metrics`)).text();
    assert.match(metrics, /^fw_messages_recovered_total 2$/m);
  } finally {
    for (const s of sockets) s.terminate();
    await Promise.all(sockets.map((s) => (s.readyState === WebSocket.CLOSED ? undefined : once(s, 'close'))));
    await fw.close();
  }
});
