/** The price table: exact names before patterns, cached tokens at their own rate (default: input's), unknown models at cost 0, bad tables refused with every problem. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PriceTable, readPriceTable } from '../dist/index.js';

test('prices per million tokens: cached input at its rate, the exact name before a pattern, the first pattern in order', () => {
  const table = new PriceTable({
    'gpt-*': { input: 2, output: 8 },
    'gpt-4o-mini': { input: 0.15, output: 0.6, cached: 0.075 },
    'gpt-4*': { input: 100, output: 100 },
  });
  assert.deepEqual(table.price('gpt-4o-mini', { inputTokens: 1_000_000, outputTokens: 500_000, cachedTokens: 400_000 }), {
    inputTokens: 1_000_000,
    outputTokens: 500_000,
    cachedTokens: 400_000,
    costUsd: 0.6 * 0.15 + 0.4 * 0.075 + 0.5 * 0.6,
    priced: true,
  });
  // Matches both patterns: the first one listed decides; no cached price: cached tokens cost input's.
  assert.equal(table.price('gpt-4.1', { inputTokens: 1_000_000, outputTokens: 0, cachedTokens: 1_000_000 }).costUsd, 2);
  // More cached than input (a provider's rounding) is capped at the input.
  assert.equal(table.price('gpt-4o-mini', { inputTokens: 10, outputTokens: 0, cachedTokens: 50 }).cachedTokens, 10);
  assert.deepEqual(table.price('llama-3', { inputTokens: 7, outputTokens: 3, cachedTokens: 0 }), {
    inputTokens: 7,
    outputTokens: 3,
    cachedTokens: 0,
    costUsd: 0,
    priced: false,
  });
});

test('the setting: empty is no prices, inline JSON, a file; a bad table names every problem', () => {
  assert.equal(readPriceTable('').size, 0);
  assert.equal(readPriceTable('{"m": {"input": 1, "output": 2}}').priceOf('m')?.output, 2);
  const dir = mkdtempSync(join(tmpdir(), 'fw-prices-'));
  try {
    const file = join(dir, 'prices.json');
    writeFileSync(file, JSON.stringify({ 'm-*': { input: 0, output: 1 } }));
    assert.equal(readPriceTable(file).priceOf('m-large')?.input, 0);
    assert.throws(() => readPriceTable(join(dir, 'missing.json')), /cannot read the price table/);
    writeFileSync(file, '{"m": ');
    assert.throws(() => readPriceTable(file), /the price table is not JSON/);
    writeFileSync(file, '[1]');
    assert.throws(() => readPriceTable(file), /must be an object of model name/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.throws(
    () => readPriceTable('{"a": {"input": -1, "output": 1}, "b": {"input": 1}, "c": {"input": 1, "output": 1, "per": 3}, "d": 5}'),
    (err: Error & { code?: string; status?: number }) => {
      assert.equal(err.code, 'invalid_price_table');
      assert.equal(err.status, 400);
      assert.match(err.message, /\(fw\.agent\.prices\)/);
      assert.match(err.message, /\/a\/input: must be a number ≥ 0/);
      assert.match(err.message, /\/b\/output: must be a number ≥ 0/);
      assert.match(err.message, /\/c\/per: unknown member/);
      assert.match(err.message, /\/d: must be \{input, output, cached\?\}/);
      return true;
    },
  );
});
