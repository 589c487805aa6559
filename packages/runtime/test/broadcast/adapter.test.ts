import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FwBroadcaster } from '../../dist/internals.js';
import { FrameRing } from '../../dist/broadcast/frame-ring.js';
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
