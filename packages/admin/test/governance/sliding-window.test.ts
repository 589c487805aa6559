/**
 * The rate-limit window at its edges: a call counts until exactly `windowMs` after it, expired
 * calls leave from the front however many there are (and the window compacts without losing a
 * live one), and a clock that steps back never lets a call expire early.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SlidingWindow } from '../../dist/governance/sliding-window.js';

test('a call counts until exactly windowMs after it', () => {
  const w = new SlidingWindow(1000);
  w.add(5000);
  assert.equal(w.count(5000), 1);
  assert.equal(w.count(5999), 1);
  assert.equal(w.count(6000), 0, 'at now - windowMs it has expired');
});

test('many expired calls leave, the live ones stay, across compactions', () => {
  const w = new SlidingWindow(100);
  for (let t = 0; t < 10_000; t++) {
    w.add(t);
    // The window ending at t holds the calls at t-99 … t.
    assert.equal(w.count(t), Math.min(t + 1, 100), `at ${t}`);
  }
  assert.equal(w.count(10_098), 1);
  assert.equal(w.count(10_099), 0);
});

test('a clock that steps back keeps a call counted at least its window', () => {
  const w = new SlidingWindow(1000);
  w.add(10_000);
  w.add(9_500); // the clock stepped back half a second
  assert.equal(w.count(10_400), 2);
  // 9 500 + 1000 has passed, but it waits behind the earlier entry: counted longer, never shorter.
  assert.equal(w.count(10_600), 2);
  assert.equal(w.count(11_000), 0);
});
