/**
 * Lifecycle (issue 15): `fw.close()` flushes the audit log. Records still on their way to the sink
 * when close begins are all in it afterwards, in order, with the default file sink (audit.jsonl in
 * fw.data-dir) and with the PostgreSQL sink of the store (fw.store.postgres-url).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Framework } from '@fw/runtime';
import { openStore } from '@fw/store';
import { createTestDatabase } from '@fw/testing';
import { admin } from '../dist/index.js';

const COUNT = 200;

/** Starts fw with the admin plane, records COUNT entries without waiting for them, and closes at once. */
async function recordThenClose(options: Record<string, unknown>, tag: string): Promise<void> {
  const fw = new Framework({ configFile: false, ...options });
  await fw.use(admin());
  await fw.listen(0, '127.0.0.1');
  const audit = fw.services.get('admin')!.audit;
  for (let i = 0; i < COUNT; i++) {
    void audit.note({
      action: 'broadcast',
      target: `${tag}-${i}`,
      principal: 'flush-test',
      address: '127.0.0.1',
      success: true,
      outcome: 'allowed',
      reason: null,
      source: 'rest',
    });
  }
  await fw.close();
}

test('close flushes the audit log: every record reaches the default file sink, in order', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-audit-flush-'));
  try {
    await recordThenClose({ 'fw.data-dir': dir }, 'file');
    const lines = readFileSync(join(dir, 'audit.jsonl'), 'utf8').trim().split('\n');
    const targets = lines.map((l) => (JSON.parse(l) as { target: string }).target).filter((t) => t.startsWith('file-'));
    assert.deepEqual(
      targets,
      Array.from({ length: COUNT }, (_, i) => `file-${i}`),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('close flushes the audit log: every record reaches the PostgreSQL sink', async () => {
  const db = await createTestDatabase('fw_audit_flush');
  try {
    await recordThenClose({ 'fw.data-dir': '', 'fw.store.postgres-url': db.url }, 'pg');
    const store = await openStore({ postgresUrl: db.url });
    try {
      const rows = await store.audit.newest(COUNT + 10);
      const targets = [...rows]
        .sort((a, b) => a.seq - b.seq)
        .map((r) => (JSON.parse(r.body) as { target?: string }).target)
        .filter((t): t is string => typeof t === 'string' && t.startsWith('pg-'));
      assert.deepEqual(
        targets,
        Array.from({ length: COUNT }, (_, i) => `pg-${i}`),
      );
    } finally {
      await store.close();
    }
  } finally {
    await db.drop();
  }
});
