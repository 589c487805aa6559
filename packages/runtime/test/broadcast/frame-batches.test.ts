import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameRing } from '../../dist/broadcast/frame-ring.js';
import { FrameBatches, Outgoing } from '../../dist/broadcast/outgoing.js';

/** Short unmasked WebSocket text frames (RFC 6455 §5.2: 0x81, the length, the bytes), one after another. */
function frames(texts: string[]): Buffer {
  return Buffer.concat(texts.map((t) => Buffer.concat([Buffer.from([0x81, Buffer.byteLength(t)]), Buffer.from(t)])));
}

/** A ring holding these messages from id 1. */
function ringOf(outs: Outgoing[]): FrameRing<Outgoing> {
  const ring = new FrameRing<Outgoing>(64);
  for (const o of outs) ring.push(o);
  return ring;
}

/** A socket with implicit ids that has had no sequenced broadcast yet. */
const fresh = (): { seqB: string | undefined; seqBid: number } => ({ seqB: undefined, seqBid: 0 });

test('FrameBatches: sockets that get the same messages in a turn share one buffer; one that differs anywhere gets its own', () => {
  const [a, b, c] = ['one', 'two', 'three'].map((m, i) => Outgoing.from(m, '/fw/room', i + 1));
  const other = Outgoing.from('just you');
  const batches = new FrameBatches();
  const at = fresh();
  const first = batches.frames(ringOf([a!, b!, c!]), 1, 4, true, at);
  // The fw frames of the three without ids: the first names its broadcaster and sequence, the
  // next ones follow it (sequels); the socket now stands at the third.
  assert.deepEqual(first, frames(['{"t":"m","d":"one","b":"/fw/room","bid":1}', '{"t":"s","d":"two"}', '{"t":"s","d":"three"}']));
  assert.deepEqual(at, { seqB: '/fw/room', seqBid: 3 });
  const next = fresh();
  assert.equal(batches.frames(ringOf([a!, b!, c!]), 1, 4, true, next), first, 'the same buffer object for the next socket');
  assert.deepEqual(next, { seqB: '/fw/room', seqBid: 3 }, 'and it stands where the first one does');
  // A socket that got broadcast 0 of the room before: all three are sequels, not the same bytes.
  const ahead = { seqB: '/fw/room', seqBid: 0 };
  assert.deepEqual(
    batches.frames(ringOf([a!, b!, c!]), 1, 4, true, ahead),
    frames(['{"t":"s","d":"one"}', '{"t":"s","d":"two"}', '{"t":"s","d":"three"}']),
  );
  // A unicast in the middle: not shared; it names no broadcaster, and the third does not follow the first.
  assert.deepEqual(
    batches.frames(ringOf([a!, other, c!]), 1, 4, true, fresh()),
    frames(['{"t":"m","d":"one","b":"/fw/room","bid":1}', '{"t":"m","d":"just you"}', '{"t":"m","d":"three","b":"/fw/room","bid":3}']),
  );
  const raw = batches.frames(ringOf([a!, b!, c!]), 1, 4, false);
  assert.deepEqual(raw, frames(['one', 'two', 'three']));
  // Ids from elsewhere in a ring: the window is what counts.
  assert.equal(batches.frames(ringOf([other, a!, b!, c!]), 2, 5, false), raw);
  batches.clear();
  assert.notEqual(batches.frames(ringOf([a!, b!, c!]), 1, 4, false), raw, 'cleared: built again');
});
