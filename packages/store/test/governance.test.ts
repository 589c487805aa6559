/** Governance state (issue 26): one document per key, replaced by a newer write only, kept across a reopen, on both backends. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createTestDatabase } from '@fw/testing';
import { GovernanceRecords, openStore, type StoreOptions } from '../dist/index.js';

const dir = mkdtempSync(join(tmpdir(), 'fw-store-gov-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function roundTrip(options: StoreOptions): Promise<void> {
  const a = await openStore(options);
  const records = new GovernanceRecords(a.db);
  assert.equal(await records.get('kill-switch'), undefined);
  await records.put('kill-switch', { armed: true, reason: 'first' }, 10);
  await records.put('kill-switch', { armed: true, reason: 'second' }, 20);
  // A late write of an older document (another node's) leaves the newer one in place.
  await records.put('kill-switch', { armed: false, reason: 'stale' }, 15);
  await a.close();
  const b = await openStore(options);
  try {
    assert.deepEqual(await new GovernanceRecords(b.db).get('kill-switch'), { value: { armed: true, reason: 'second' }, updatedAt: 20 });
  } finally {
    await b.close();
  }
}

test('governance state on the embedded SQLite file: replaced by a newer write and read back after a reopen', async () => {
  await roundTrip({ file: join(dir, 'gov.db') });
});

test('governance state on PostgreSQL: replaced by a newer write and read back after a reopen', async () => {
  const db = await createTestDatabase();
  try {
    await roundTrip({ postgresUrl: db.url });
  } finally {
    await db.drop();
  }
});
