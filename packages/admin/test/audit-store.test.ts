/**
 * The store-backed audit sink over a real store (an embedded SQLite file here; PostgreSQL in the
 * demo's security and restart tests): what the admin appends comes back after a reopen in the
 * order the log expects, a write the database refuses throws (so the admin fails closed), and
 * the table is pruned to fw.admin.audit.store-max-entries.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStore } from '@fw/store';
import { AuditLog, AuditUnavailableError } from '../dist/audit.js';
import { StoreAuditSink } from '../dist/audit-store.js';

const record = (target: string) => ({
  action: 'broadcast',
  target,
  principal: 'alice',
  address: '127.0.0.1',
  success: true,
  outcome: 'allowed' as const,
  reason: null,
  source: 'rest' as const,
});

test('store sink on SQLite: records survive a reopen in order; seq continues; pruned to the limit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-audit-store-'));
  const file = join(dir, 'fw.db');
  try {
    const first = await openStore({ file });
    const log = await new AuditLog(100, new StoreAuditSink(async () => first.audit, 'store test', { maxEntries: 3 })).open();
    for (const t of ['a', 'b', 'c', 'd', 'e']) await log.record(record(t));
    await log.close();
    assert.equal(await first.audit.count(), 3, 'pruned to store-max-entries after every append at this limit');
    await first.close();

    const second = await openStore({ file });
    const again = await new AuditLog(2, new StoreAuditSink(async () => second.audit, 'store test', { maxEntries: 3 })).open();
    assert.deepEqual(
      again.query().map((e) => [e.target, e.seq]),
      [
        ['e', 5],
        ['d', 4],
      ],
      'newest first, at most fw.admin.audit.max-entries in memory',
    );
    assert.equal((await again.record(record('f'))).seq, 6, 'seq continues after the loaded records');
    assert.equal(again.query()[0]?.address, '127.0.0.1');
    // The database goes away: the next record is refused (fail closed), the log says so, reads go on.
    await second.close();
    await assert.rejects(again.record(record('g')), AuditUnavailableError);
    assert.equal(again.available, false);
    assert.equal(again.query()[0]?.target, 'g', 'the attempt is still listed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('store sink: a store-max-entries below 1 is refused', () => {
  assert.throws(
    () =>
      new StoreAuditSink(
        async () => {
          throw new Error('unused');
        },
        'x',
        { maxEntries: 0 },
      ),
    /store-max-entries/,
  );
});
