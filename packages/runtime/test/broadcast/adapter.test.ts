import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FwBroadcaster } from '../../dist/internals.js';
import { FrameRing } from '../../dist/broadcast/frame-ring.js';
import { type ReplayEntry, type ReplayRead, scalingOf } from '../../dist/adapter.js';
import { connectWs, startFw } from '../helpers.js';

type Frame = { t: string; id?: number; d?: string; b?: string; bid?: number };

test('frame ring: skipTo leaves holes inside the capacity and restarts numbering beyond it', () => {
  const ring = new FrameRing<string>(4);
  ring.push('a');
  ring.skipTo(4);
  assert.equal(ring.push('d'), 4);
  assert.deepEqual(
    [1, 2, 3, 4].map((id) => ring.get(id)),
    ['a', undefined, undefined, 'd'],
  );
  ring.skipTo(100);
  assert.deepEqual({ first: ring.first, next: ring.next, size: ring.size }, { first: 100, next: 100, size: 0 });
  assert.equal(ring.push('x'), 100);
  ring.skipTo(50); // never backwards
  assert.equal(ring.next, 101);
});

test('broadcast adapter: a full broadcast goes to the adapter, delivery follows the sequence it assigns', async () => {
  const published: { id: string; payload: string }[] = [];
  let accept = true;
  const app = await startFw({}, (fw) => fw.handle('/room', {}));
  try {
    app.fw.runtime.adapter = {
      publish(b: FwBroadcaster, payload: string) {
        published.push({ id: b.id, payload });
        return accept;
      },
    };
    const ws = await connectWs(`${app.ws}/fw/room?fw=1`);
    const frame = async (): Promise<Frame> => JSON.parse(await ws.messages.next()) as Frame;
    assert.equal((await frame()).t, 'hs');
    const b = app.fw.broadcasters.lookup('/fw/room')!;
    // Taken by the adapter: nothing is delivered until it hands the message back.
    assert.equal(b.broadcast({ n: 1 }), 1);
    assert.deepEqual(published, [{ id: '/fw/room', payload: '{"n":1}' }]);
    assert.equal(b.deliverSequenced('{"n":1}', 7), 1);
    assert.deepEqual(await frame(), { t: 'm', id: 1, d: '{"n":1}', b: '/fw/room', bid: 7 });
    assert.equal(b.deliverSequenced('old', 7), 0, 'a sequence already delivered is ignored');
    assert.equal(b.deliverSequenced('nine', 9), 1);
    assert.deepEqual(await frame(), { t: 'm', id: 2, d: 'nine', b: '/fw/room', bid: 9 });
    // The adapter declines (offline): delivered at once with the next local sequence.
    accept = false;
    assert.equal(b.broadcast('local'), 1);
    assert.deepEqual(await frame(), { t: 'm', id: 3, d: 'local', b: '/fw/room', bid: 10 });
    // Subset broadcasts and internal broadcasters never go to the adapter.
    published.length = 0;
    app.fw.broadcasters.create('/fw/internal', { internal: true }).broadcast('x');
    b.broadcast('only you', [...b.resources]);
    assert.deepEqual(published, []);
    // A fresh connection's `since` replays the cache; the hole at 8 (never received) is a gap.
    const since = Buffer.from(JSON.stringify({ '/fw/room': 6 })).toString('base64url');
    const late = await connectWs(`${app.ws}/fw/room?fw=1&since=${since}`);
    const frames: Frame[] = [];
    for (let i = 0; i < 6; i++) frames.push(JSON.parse(await late.messages.next()) as Frame);
    assert.deepEqual(
      frames.slice(1).map((f) => (f.t === 'm' ? f.bid : f)),
      [7, { t: 'gap', lost: 1, reason: 'cluster-link-lost', b: '/fw/room', from: 8, to: 8 }, 9, 10, { t: 'rec', recovered: false }],
    );
    ws.socket.close();
    late.socket.close();
  } finally {
    await app.close();
  }
});

test('broadcast adapter: remember fills the replay cache without delivering or counting', async () => {
  const app = await startFw({}, (fw) => fw.handle('/news', {}));
  try {
    const b = app.fw.broadcasters.create('/fw/news');
    b.remember('earlier', 41);
    b.remember('older', 40); // never backwards
    b.remember('later', 43);
    assert.equal(b.messages, 0);
    assert.equal(app.fw.runtime.stats().broadcasts, 0);
    const since = Buffer.from(JSON.stringify({ '/fw/news': 40 })).toString('base64url');
    const ws = await connectWs(`${app.ws}/fw/news?fw=1&since=${since}`);
    const frames: Frame[] = [];
    for (let i = 0; i < 5; i++) frames.push(JSON.parse(await ws.messages.next()) as Frame);
    assert.deepEqual(
      frames.slice(1).map((f) => (f.t === 'm' ? [f.d, f.bid] : f)),
      [
        ['earlier', 41],
        { t: 'gap', lost: 1, reason: 'cluster-link-lost', b: '/fw/news', from: 42, to: 42 },
        ['later', 43],
        { t: 'rec', recovered: false },
      ],
    );
    ws.socket.close();
  } finally {
    await app.close();
  }
});

test('broadcast adapter: gaps of the live stream while a client catches up from the replay store say only what the replay did not bring', async () => {
  const app = await startFw({}, (fw) => fw.handle('/room', {}));
  // A replay store whose reads the test answers, so the live stream moves on while one is under way.
  const reads: ((read: ReplayRead) => void)[] = [];
  app.fw.runtime.replayStore = { read: () => new Promise<ReplayRead>((resolve) => reads.push(resolve)) };
  app.fw.runtime.adapter = { publish: () => true };
  const readStarted = async (n: number): Promise<void> => {
    for (let i = 0; i < 400 && reads.length < n; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(reads.length, n, 'the catch-up reads the replay store');
  };
  const entries = (...bids: number[]): ReplayEntry[] => bids.map((bid) => ({ bid, payload: `m${bid}` }));
  const sinceOne = Buffer.from(JSON.stringify({ '/fw/room': 1 })).toString('base64url');
  try {
    const first = await connectWs(`${app.ws}/fw/room?fw=1`);
    assert.equal((JSON.parse(await first.messages.next()) as Frame).t, 'hs');
    const b = app.fw.broadcasters.lookup('/fw/room')!;
    for (const bid of [1, 2, 3]) b.deliverSequenced(`m${bid}`, bid);

    // 1. This node gives up on 4 while the read is under way, but the stream holds it: no gap at all
    // (before: a gap for 4 ahead of the replay, then 4 itself: a gap for a message received).
    const a = await connectWs(`${app.ws}/fw/room?fw=1&since=${sinceOne}`);
    await readStarted(1);
    b.lose(4, 4, 'cluster-link-lost');
    b.deliverSequenced('m5', 5);
    reads[0]!({ entries: entries(2, 3, 4, 5), first: 1, last: 5 });
    const fa: Frame[] = [];
    for (let i = 0; i < 6; i++) fa.push(JSON.parse(await a.messages.next()) as Frame);
    assert.deepEqual(
      fa.slice(1).map((f) => (f.t === 'm' ? f.bid : f)),
      [2, 3, 4, 5, { t: 'rec', recovered: true }],
    );

    // 2. The stream lacks what this node gives up on (and nothing after it came yet): the gap is
    // said once, at its place after the replay.
    const c = await connectWs(`${app.ws}/fw/room?fw=1&since=${Buffer.from(JSON.stringify({ '/fw/room': 3 })).toString('base64url')}`);
    await readStarted(2);
    b.lose(6, 7, 'cluster-link-lost');
    reads[1]!({ entries: entries(4, 5), first: 1, last: 7 });
    const fc: Frame[] = [];
    for (let i = 0; i < 5; i++) fc.push(JSON.parse(await c.messages.next()) as Frame);
    assert.deepEqual(
      fc.slice(1).map((f) => (f.t === 'm' ? f.bid : f)),
      [4, 5, { t: 'gap', lost: 2, reason: 'cluster-link-lost', b: '/fw/room', from: 6, to: 7 }, { t: 'rec', recovered: false }],
    );

    // 3. A replay that went past this node (the stream reached 9, the node is at 7): a later gap of
    // the live stream is said only for its part past the replay.
    const d = await connectWs(`${app.ws}/fw/room?fw=1&since=${Buffer.from(JSON.stringify({ '/fw/room': 7 })).toString('base64url')}`);
    await readStarted(3);
    reads[2]!({ entries: entries(8, 9), first: 1, last: 9 });
    const fd: Frame[] = [];
    for (let i = 0; i < 4; i++) fd.push(JSON.parse(await d.messages.next()) as Frame);
    assert.deepEqual(
      fd.slice(1).map((f) => (f.t === 'm' ? f.bid : f)),
      [8, 9, { t: 'rec', recovered: true }],
    );
    b.lose(8, 10, 'cluster-link-lost');
    b.deliverSequenced('m11', 11);
    assert.deepEqual(JSON.parse(await d.messages.next()), {
      t: 'gap',
      lost: 1,
      reason: 'cluster-link-lost',
      b: '/fw/room',
      from: 10,
      to: 10,
    });
    assert.equal((JSON.parse(await d.messages.next()) as Frame).bid, 11);
    for (const ws of [first, a, c, d]) ws.socket.close();
  } finally {
    await app.close();
  }
});

test('broadcast adapter: a replay store whose counter is below the cursor (Redis lost it, numbering started over) proves nothing: a gap without a count, not recovered', async () => {
  const app = await startFw({}, (fw) => fw.handle('/fresh', {}));
  // Redis restarted empty and the room was published to again from 1 under the same epoch: the
  // counter says 3, the stream holds 1–3, the client saw up to 60 before. Those 1–3 are not the
  // client's 1–3, and what it will get next is numbered below its cursor.
  app.fw.runtime.replayStore = {
    read: async () => ({ entries: [1, 2, 3].map((bid) => ({ bid, payload: `new${bid}` })), first: 1, last: 3 }),
  };
  app.fw.runtime.adapter = { publish: () => true };
  try {
    const since = Buffer.from(JSON.stringify({ '/fw/fresh': 60 })).toString('base64url');
    const ws = await connectWs(`${app.ws}/fw/fresh?fw=1&since=${since}`);
    const frames: Frame[] = [];
    for (let i = 0; i < 3; i++) frames.push(JSON.parse(await ws.messages.next()) as Frame);
    assert.deepEqual(frames.slice(1), [
      { t: 'gap', reason: 'replay-window-exceeded', b: '/fw/fresh', from: 61 },
      { t: 'rec', recovered: false },
    ]);
    ws.socket.close();
  } finally {
    await app.close();
  }
});

test('broadcast adapter: a node that takes the cluster epoch after clients connected still knows their cursors where it has reached them', async () => {
  const app = await startFw({}, (fw) => fw.handle('/early', {}));
  try {
    const host = scalingOf(app.fw);
    const first = await connectWs(`${app.ws}/fw/early?fw=1`);
    const hs = JSON.parse(await first.messages.next()) as { epoch: string };
    const b = app.fw.broadcasters.lookup('/fw/early')!;
    for (let i = 1; i <= 3; i++) b.broadcast(`m${i}`);
    // The node reaches Redis now and takes the cluster's epoch; its numbering goes on.
    host.adoptEpoch('clusterEpoch1');
    b.broadcast('m4');
    const resume = async (epoch: string, cursor: number): Promise<Frame[]> => {
      const since = Buffer.from(JSON.stringify({ '/fw/early': cursor })).toString('base64url');
      const ws = await connectWs(`${app.ws}/fw/early?fw=1&since=${since}&epoch=${epoch}`);
      const frames: Frame[] = [];
      for (;;) {
        const f = JSON.parse(await ws.messages.next()) as Frame;
        frames.push(f);
        if (f.t === 'rec') break;
      }
      ws.socket.close();
      return frames.slice(1).map((f) => (f.t === 'm' ? ({ bid: f.bid } as Frame) : f));
    };
    // Before: server-restarted and the whole cache again, for a client that missed nothing but 3–4.
    assert.deepEqual(await resume(hs.epoch, 2), [{ bid: 3 }, { bid: 4 }, { t: 'rec', recovered: true }]);
    // A cursor past what this process numbered proves nothing here; an unknown epoch neither.
    for (const [epoch, cursor] of [
      [hs.epoch, 9],
      ['someOtherEpoch', 2],
    ] as const) {
      const frames = await resume(epoch, cursor);
      assert.deepEqual(frames[0], { t: 'gap', reason: 'server-restarted', b: '/fw/early' }, `${epoch} ${cursor}`);
      assert.deepEqual(frames.at(-1), { t: 'rec', recovered: false });
    }
    first.socket.close();
  } finally {
    await app.close();
  }
});
