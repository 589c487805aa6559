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

test('FrameBatches: sockets that get the same messages in a turn share one buffer; one that differs anywhere gets its own', () => {
  const [a, b, c] = ['one', 'two', 'three'].map((m, i) => Outgoing.from(m, '/fw/room', i + 1));
  const other = Outgoing.from('just you');
  const batches = new FrameBatches();
  const first = batches.frames(ringOf([a!, b!, c!]), 1, 4, true);
  // The shared fw frames of the three, one after the other: no id in any of them.
  assert.deepEqual(
    first,
    frames([
      '{"t":"m","d":"one","b":"/fw/room","bid":1}',
      '{"t":"m","d":"two","b":"/fw/room","bid":2}',
      '{"t":"m","d":"three","b":"/fw/room","bid":3}',
    ]),
  );
  assert.equal(batches.frames(ringOf([a!, b!, c!]), 1, 4, true), first, 'the same buffer object for the next socket');
  assert.notEqual(batches.frames(ringOf([a!, other, c!]), 1, 4, true), first, 'a unicast in the middle: not shared');
  const raw = batches.frames(ringOf([a!, b!, c!]), 1, 4, false);
  assert.deepEqual(raw, frames(['one', 'two', 'three']));
  // Ids from elsewhere in a ring: the window is what counts.
  assert.equal(batches.frames(ringOf([other, a!, b!, c!]), 2, 5, false), raw);
  batches.clear();
  assert.notEqual(batches.frames(ringOf([a!, b!, c!]), 1, 4, false), raw, 'cleared: built again');
});
