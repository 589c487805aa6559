/**
 * Daily spend (migration 0011-spend) on both backends: deltas sum into their row, totals group
 * per agent, principal or model over a day range, the rows are kept across a reopen, and
 * retention deletes whole past days by age and by count but never today's rows.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createTestDatabase } from '@fw/testing';
import { openStore, spendDayOf, type BudgetSettings, type RetentionSettings, type SpendDelta, type StoreOptions } from '../dist/index.js';

const dir = mkdtempSync(join(tmpdir(), 'fw-store-spend-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const DAY = 86_400_000;

function delta(day: string, agent: string, principal: string, model: string, input: number, output: number, cost: number): SpendDelta {
  return {
    day,
    agent,
    principal,
    model,
    calls: 1,
    input_tokens: input,
    output_tokens: output,
    cached_tokens: Math.floor(input / 2),
    cost_usd: cost,
    updated_at: Date.now(),
  };
}

function knobs() {
  const none = { maxAgeMs: 0, maxRows: 0 };
  const k = {
    retention: {
      intervalMs: 0,
      batch: 2,
      maxTransactionMs: 60_000,
      limits: { runs: { ...none }, sessions: { ...none }, messages: { ...none }, tasks: { ...none }, spend: { ...none } },
    } as RetentionSettings,
    budget: { bytes: 0, pruneAt: 0.8, refuseAt: 0.9, checkIntervalMs: 60_000, minFreeDisk: 0 } as BudgetSettings,
  };
  return { k, options: { settings: () => k.retention, budget: () => k.budget } };
}

const backends: { name: string; open(): Promise<{ options: StoreOptions; cleanup(): Promise<void> }> }[] = [
  {
    name: 'embedded SQLite file',
    open: async () => ({ options: { file: join(mkdtempSync(join(dir, 'd-')), 'fw.db') }, cleanup: async () => {} }),
  },
  {
    name: 'PostgreSQL',
    open: async () => {
      const db = await createTestDatabase('fw_spend');
      return { options: { postgresUrl: db.url }, cleanup: () => db.drop() };
    },
  },
];

for (const backend of backends) {
  describe(`spend on ${backend.name}`, () => {
    test('deltas sum into their row; totals group per agent, principal and model over a day range; kept across a reopen', async () => {
      const { options, cleanup } = await backend.open();
      const today = spendDayOf(Date.now());
      const yesterday = spendDayOf(Date.now() - DAY);
      try {
        const a = await openStore(options);
        try {
          await a.writes.commit((w) =>
            w.spend.add([delta(today, 'writer', 'otto', 'm1', 20, 10, 0.5), delta(today, 'writer', '', 'm2', 4, 2, 0)]),
          );
          await a.writes.commit((w) =>
            w.spend.add([delta(today, 'writer', 'otto', 'm1', 20, 10, 0.25), delta(yesterday, 'helper', 'vera', 'm1', 100, 50, 2)]),
          );
        } finally {
          await a.close();
        }
        const b = await openStore(options);
        try {
          assert.deepEqual(await b.spend.totals('agent', today, today), [
            { key: 'writer', calls: 3, inputTokens: 44, outputTokens: 22, cachedTokens: 22, costUsd: 0.75 },
          ]);
          assert.deepEqual(await b.spend.totals('agent', yesterday, today), [
            { key: 'helper', calls: 1, inputTokens: 100, outputTokens: 50, cachedTokens: 50, costUsd: 2 },
            { key: 'writer', calls: 3, inputTokens: 44, outputTokens: 22, cachedTokens: 22, costUsd: 0.75 },
          ]);
          assert.deepEqual(
            (await b.spend.totals('principal', today, today)).map((r) => [r.key, r.calls]),
            [
              ['otto', 2],
              ['', 1],
            ],
          );
          assert.deepEqual(
            (await b.spend.totals('model', yesterday, today)).map((r) => [r.key, r.calls, r.inputTokens]),
            [
              ['m1', 3, 140],
              ['m2', 1, 4],
            ],
          );
        } finally {
          await b.close();
        }
      } finally {
        await cleanup();
      }
    });

    test('retention deletes whole past days by age and by count, never today', async () => {
      const { options, cleanup } = await backend.open();
      const { k, options: retention } = knobs();
      const store = await openStore({ ...options, retention });
      const day = (n: number) => spendDayOf(Date.now() - n * DAY);
      try {
        const rows = [0, 0, 1, 2, 3, 3, 4].map((n, i) => delta(day(n), `a${i}`, '', 'm', 1, 1, 0));
        await store.writes.commit((w) => w.spend.add(rows));
        // Older than 2 days: the days 3 and 4 ago (three rows), whatever the time of day. (A day goes
        // once it ended before now - max-age: with 2.5 days, the day 3 ago stays until noon UTC.)
        k.retention.limits.spend = { maxAgeMs: 2 * DAY, maxRows: 0 };
        assert.deepEqual((await store.retention.run()).pruned, { fw_spend_daily: 3 });
        // At most one row: the oldest days go, today's two rows stay (they are live).
        k.retention.limits.spend = { maxAgeMs: 0, maxRows: 1 };
        assert.deepEqual((await store.retention.run()).pruned, { fw_spend_daily: 2 });
        assert.deepEqual((await store.spend.totals('agent', day(10), day(0))).map((r) => r.key).sort(), ['a0', 'a1']);
      } finally {
        await store.close();
        await cleanup();
      }
    });
  });
}
