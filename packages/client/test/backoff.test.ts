import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay, reconnectOptions } from '../dist/backoff.js';

test('backoff doubles from minDelay, stays within [cap·(1-jitter), cap] and never above maxDelay', () => {
  const o = reconnectOptions({ minDelay: 100, maxDelay: 1000, jitter: 0.5 });
  // random() = 0 gives the top of the window, 1 the bottom.
  assert.deepEqual(
    [0, 1, 2, 3, 4, 10, 5000].map((n) => backoffDelay(n, o, () => 0)),
    [100, 200, 400, 800, 1000, 1000, 1000],
  );
  assert.deepEqual(
    [0, 1, 2, 3, 4].map((n) => backoffDelay(n, o, () => 1)),
    [50, 100, 200, 400, 500],
  );
  for (let n = 0; n < 50; n++) {
    const d = backoffDelay(n, o);
    const cap = Math.min(1000, 100 * 2 ** n);
    assert.ok(d >= cap * 0.5 && d <= cap, `attempt ${n}: ${d}`);
  }
  assert.equal(backoffDelay(3, reconnectOptions({ minDelay: 100, maxDelay: 1000, jitter: 0 })), 800);
});

test('reconnect options are checked', () => {
  assert.throws(() => reconnectOptions({ minDelay: 500, maxDelay: 100 }), RangeError);
  assert.throws(() => reconnectOptions({ jitter: 1.5 }), RangeError);
  assert.throws(() => reconnectOptions({ minDelay: -1 }), RangeError);
  assert.deepEqual(reconnectOptions(undefined), { minDelay: 250, maxDelay: 10_000, jitter: 0.5, maxAttempts: Infinity });
});
