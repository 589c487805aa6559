/**
 * Human approvals' repository (migration 0012-approvals) on both backends: a pending approval is
 * listed (by status, newest first), decided exactly once by a conditional update (a second
 * decision, or an expiry after a decision, changes nothing), found when due, and a decided one is
 * pruned after its retention while a pending one never is; it all survives reopening the file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ApprovalRecords, openStore, type ApprovalTable, type StoreOptions } from '../dist/index.js';
import { createTestDatabase } from '@fw/testing';

const dir = mkdtempSync(join(tmpdir(), 'fw-approvals-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const row = (id: string, requestedAt: number, extra: Partial<ApprovalTable> = {}): ApprovalTable => ({
  id,
  run_id: `run-${id}`,
  agent: 'banker',
  tool: 'transfer',
  arguments: JSON.stringify({ amount: 40 }),
  principal: 'alice',
  surface: 'chat',
  status: 'pending',
  reason: 'money leaves the bank',
  requested_at: requestedAt,
  expires_at: requestedAt + 1000,
  decided_at: null,
  decided_by: null,
  ...extra,
});

async function exercise(options: StoreOptions, reopen: boolean): Promise<void> {
  let store = await openStore(options);
  try {
    assert.ok(store.migrated.includes('0012-approvals'));
    const approvals = new ApprovalRecords(store.db);
    await approvals.insert(row('a1', 1000));
    await approvals.insert(row('a2', 2000));
    await approvals.insert(row('a3', 3000));
    assert.deepEqual(
      (await approvals.list(undefined, 10)).map((r) => r.id),
      ['a3', 'a2', 'a1'],
    );
    assert.deepEqual(
      (await approvals.list('pending', 2)).map((r) => r.id),
      ['a3', 'a2'],
    );

    const first = await approvals.decide('a1', { status: 'approved', reason: 'ok', decidedAt: 1500, decidedBy: 'otto' });
    assert.equal(first.decided, true);
    assert.equal(first.row?.status, 'approved');
    assert.equal(first.row?.decided_at, 1500);
    assert.equal(typeof first.row?.requested_at, 'number');
    // Decided once: another decision, or an expiry, changes nothing.
    const second = await approvals.decide('a1', { status: 'denied', reason: 'no', decidedAt: 1600, decidedBy: 'ada' });
    assert.equal(second.decided, false);
    assert.equal(second.row?.status, 'approved');
    assert.equal(second.row?.decided_by, 'otto');
    assert.equal((await approvals.decide('missing', { status: 'approved', reason: null, decidedAt: 1, decidedBy: null })).row, undefined);

    // Due: pending and past expires_at (a2 expires at 3000, a3 at 4000); a decided one never is.
    assert.deepEqual(
      (await approvals.due(3000, 10)).map((r) => r.id),
      ['a2'],
    );
    assert.deepEqual(
      (await approvals.due(10_000, 10)).map((r) => r.id),
      ['a2', 'a3'],
    );

    if (reopen) {
      await store.close();
      store = await openStore(options);
      assert.deepEqual(store.migrated, []);
    }
    const again = new ApprovalRecords(store.db);
    assert.equal((await again.get('a2'))?.status, 'pending', 'a pending approval outlives the process');
    assert.deepEqual((await again.get('a2'))?.arguments, JSON.stringify({ amount: 40 }));

    // Retention at its edge: decided before the cut is pruned, decided at it is kept, pending never.
    await again.decide('a3', { status: 'expired', reason: 'expired', decidedAt: 5000, decidedBy: null });
    assert.equal(await again.prune(1500), 0, 'decided at the cut: kept');
    assert.equal(await again.prune(1501), 1);
    assert.equal(await again.prune(1_000_000), 1);
    assert.deepEqual(
      (await again.list(undefined, 10)).map((r) => [r.id, r.status]),
      [['a2', 'pending']],
    );
  } finally {
    await store.close();
  }
}

test('approvals repository on embedded SQLite (and across a reopen of the file)', () =>
  exercise({ file: join(dir, 'approvals.db') }, true));

test('approvals repository on PostgreSQL', async () => {
  const db = await createTestDatabase();
  try {
    await exercise({ postgresUrl: db.url }, false);
  } finally {
    await db.drop();
  }
});
