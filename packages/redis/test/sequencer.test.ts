import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEnvelope, encodeBody, Sequencer } from '../dist/index.js';
import { waitFor } from '@fw/testing';

function sink(next: number | null = 1) {
  const delivered: [string, number][] = [];
  const lost: [number, string][] = [];
  let expected: number | undefined = next ?? undefined;
  return {
    delivered,
    lost,
    sink: {
      expected: () => expected,
      deliver: (_id: string, payload: string, bid: number) => {
        delivered.push([payload, bid]);
        expected = bid + 1;
      },
      lost: (_id: string, n: number, why: string) => void lost.push([n, why]),
    },
  };
}

test('envelope: round trip with spaces and unicode; junk is refused, never thrown', () => {
  const body = encodeBody('node-1', '/fw/chat/a b', 'héllo {"x": 1}');
  assert.deepEqual(decodeEnvelope(`42 ${body}`), { bid: 42, node: 'node-1', broadcaster: '/fw/chat/a b', payload: 'héllo {"x": 1}' });
  assert.deepEqual(decodeEnvelope(`1 ${encodeBody('n', '/b', '')}`)?.payload, '');
  for (const junk of ['', 'x', '1 n', '1 n 99 /short', 'a n 2 /b', '0 n 2 /b', '-1 n 2 /b'])
    assert.equal(decodeEnvelope(junk), undefined, junk);
});

test('sequencer: in order at once; a later sequence waits for the gap to fill', () => {
  const s = sink();
  const q = new Sequencer(s.sink, 60_000);
  q.accept('b', 5, 'five'); // first seen: the start
  q.accept('b', 7, 'seven');
  assert.deepEqual(s.delivered, [['five', 5]]);
  q.accept('b', 6, 'six');
  assert.deepEqual(s.delivered, [
    ['five', 5],
    ['six', 6],
    ['seven', 7],
  ]);
  assert.equal(q.pending, 0);
  q.accept('b', 6, 'again');
  assert.deepEqual(s.lost, [[1, 'stale']], 'an old sequence is counted, not delivered');
  q.close();
});

test('sequencer: a gap that does not fill is counted as lost after the gap timeout', async () => {
  const s = sink();
  const q = new Sequencer(s.sink, 30);
  q.accept('b', 1, 'one');
  q.accept('b', 4, 'four');
  q.accept('b', 5, 'five');
  assert.equal(q.pending, 1);
  await new Promise((r) => setTimeout(r, 80));
  assert.deepEqual(s.delivered, [
    ['one', 1],
    ['four', 4],
    ['five', 5],
  ]);
  assert.deepEqual(s.lost, [[2, 'gap']]);
  assert.equal(q.pending, 0);
  q.close();
});

test('sequencer: with a replay store, a timed-out gap is read back from it first; only what it lacks is lost', async () => {
  // The store holds 2 and 3 of the gap 2–4 (4 is gone from it too): a gap timeout means "late
  // over the subscription", not "lost to the cluster".
  const store = new Map([
    [2, 'two'],
    [3, 'three'],
  ]);
  const s = sink();
  const reads: number[] = [];
  const q: Sequencer = new Sequencer(
    {
      ...s.sink,
      fill: async (id, from) => {
        reads.push(from);
        await new Promise((r) => setTimeout(r, 5));
        for (const [bid, payload] of store) if (bid >= from) q.accept(id, bid, payload);
      },
    },
    20,
  );
  q.accept('b', 1, 'one');
  q.accept('b', 5, 'five');
  await waitFor('the gap settled', () => (q.pending === 0 ? true : undefined), 2000);
  assert.deepEqual(
    s.delivered.map((d) => d[1]),
    [1, 2, 3, 5],
    'what the store held is delivered, in order',
  );
  assert.deepEqual(s.lost, [[1, 'gap']], 'only 4, which the store lacks too, is lost');
  assert.deepEqual(reads, [2, 4], 'one read per timed-out gap');

  // Paused (Redis away again) while the read fails: nothing is given up on; the recovery will read.
  const p = sink();
  const paused: Sequencer = new Sequencer(
    {
      ...p.sink,
      fill: async () => {
        paused.pause();
        throw new Error('Redis is unreachable');
      },
    },
    20,
  );
  paused.accept('b', 1, 'one');
  paused.accept('b', 3, 'three');
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(p.lost, [], 'nothing lost while the store cannot be read and Redis is away');
  assert.equal(paused.pending, 1);
  q.close();
  paused.close();
});

test('sequencer: Redis gone → held messages are released at once, local ones continue the sequence', () => {
  const s = sink();
  const q = new Sequencer(s.sink, 60_000);
  q.accept('b', 1, 'one');
  q.accept('b', 3, 'three');
  q.local('b', 'local');
  assert.deepEqual(s.delivered, [
    ['one', 1],
    ['three', 3],
    ['local', 4],
  ]);
  assert.deepEqual(s.lost, [[1, 'gap']]);
  // The local broadcaster moved on by itself: later cluster sequences below it are stale.
  q.accept('b', 4, 'late');
  assert.deepEqual(s.lost, [
    [1, 'gap'],
    [1, 'stale'],
  ]);
  q.close();
});

test('sequencer: no local broadcaster → nothing is kept; the held-back bound forces the gap', () => {
  const none = sink(null);
  const q = new Sequencer(none.sink, 60_000);
  q.accept('b', 3, 'x');
  assert.deepEqual(none.delivered, []);
  assert.equal(q.pending, 0);
  const s = sink();
  const bounded = new Sequencer(s.sink, 60_000, 2);
  bounded.accept('b', 1, 'one');
  bounded.accept('b', 3, 'three');
  bounded.accept('b', 4, 'four');
  assert.equal(bounded.pending, 1);
  bounded.accept('b', 5, 'five'); // the third held one exceeds the bound of 2
  assert.deepEqual(
    s.delivered.map((d) => d[1]),
    [1, 3, 4, 5],
  );
  assert.deepEqual(s.lost, [[1, 'gap']]);
  bounded.close();
});

test('sequencer: settle counts what never came up to a counter, even with no later message', () => {
  const s = sink();
  const q = new Sequencer(s.sink, 60_000);
  q.accept('b', 1, 'one');
  q.accept('b', 4, 'four'); // held: 2 and 3 missing
  q.settle('b', 5); // the counter says 5 were published: 2, 3 and 5 never came
  assert.deepEqual(s.delivered, [
    ['one', 1],
    ['four', 4],
  ]);
  assert.deepEqual(
    s.lost,
    [
      [2, 'gap'],
      [1, 'gap'],
    ],
    'one loss per missing range (2–3, 5), each said to the members',
  );
  q.accept('b', 6, 'six');
  assert.deepEqual(s.delivered.at(-1), ['six', 6]);
  q.settle('b', 6); // nothing missing: nothing counted
  assert.deepEqual(s.lost, [
    [2, 'gap'],
    [1, 'gap'],
  ]);
  assert.equal(q.pending, 0);
  q.close();
});

test("sequencer: a broadcaster's first message from another node does not skip this node's own publish still in flight (its reply comes over the other connection)", async () => {
  const s = sink();
  let publishing = true;
  const q = new Sequencer({ ...s.sink, publishing: () => publishing }, 60_000);
  q.accept('b', 8, 'theirs'); // arrives first, over the subscription
  assert.deepEqual(s.delivered, [], 'held: our own publish may come before it');
  publishing = false;
  q.accept('b', 7, 'ours', true); // our publish reply: the earlier sequence
  assert.deepEqual(s.delivered, [
    ['ours', 7],
    ['theirs', 8],
  ]);
  assert.deepEqual(s.lost, [], 'nothing counted lost');
  // Our own publish got the later sequence: the stream starts at the earliest one held.
  const t = sink();
  const r = new Sequencer({ ...t.sink, publishing: () => true }, 60_000);
  r.accept('c', 4, 'theirs');
  r.accept('c', 5, 'ours', true);
  assert.deepEqual(t.delivered, [
    ['theirs', 4],
    ['ours', 5],
  ]);
  // A reply that never comes: after the gap timeout the stream starts at what it holds, nothing lost.
  const u = sink();
  const w = new Sequencer({ ...u.sink, publishing: () => true }, 20);
  w.accept('d', 3, 'theirs');
  await waitFor('the held message delivered after the gap timeout', () => u.delivered.length === 1);
  assert.deepEqual(u.delivered, [['theirs', 3]]);
  assert.deepEqual(u.lost, []);
  q.close();
  r.close();
  w.close();
});

test("sequencer: a broadcaster's first own publish reply does not skip another node's earlier sequence still on the subscription", async () => {
  // Our reply (7) comes before another node's 6, published just before ours: wait for the subscription.
  const s = sink();
  const q = new Sequencer({ ...s.sink, publishing: () => false }, 60_000);
  q.accept('b', 7, 'ours', true);
  assert.deepEqual(s.delivered, [], 'held until the subscription has caught up with our publish');
  q.accept('b', 6, 'theirs');
  assert.deepEqual(s.delivered, [
    ['theirs', 6],
    ['ours', 7],
  ]);
  assert.deepEqual(s.lost, [], 'nothing counted lost');
  // Nothing earlier was on the way: our own echo starts the stream at our publish.
  const t = sink();
  const r = new Sequencer({ ...t.sink, publishing: () => false }, 60_000);
  r.accept('c', 9, 'ours', true);
  r.echo('c');
  assert.deepEqual(t.delivered, [['ours', 9]]);
  r.accept('c', 10, 'theirs');
  assert.deepEqual(t.delivered, [
    ['ours', 9],
    ['theirs', 10],
  ]);
  // An echo that never comes is bounded by the gap timeout.
  const u = sink();
  const w = new Sequencer({ ...u.sink, publishing: () => false }, 20);
  w.accept('d', 3, 'ours', true);
  await waitFor('our held message delivered after the gap timeout', () => u.delivered.length === 1);
  assert.deepEqual(u.delivered, [['ours', 3]]);
  assert.deepEqual(u.lost, []);
  // A local history already says where the stream is: no wait.
  const v = sink(5);
  const x = new Sequencer({ ...v.sink, publishing: () => false }, 60_000);
  x.accept('e', 5, 'ours', true);
  assert.deepEqual(v.delivered, [['ours', 5]]);
  for (const z of [q, r, w, x]) z.close();
});
