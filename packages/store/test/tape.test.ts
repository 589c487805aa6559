/**
 * The run tape's repository (migration 0007-tape) on both backends: a run opens, gets its steps in
 * batches, ends once; lists filter by agent, status, principal, time and parent; steps page by seq;
 * runs a stopped process left open become interrupted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openStore, type StoreOptions, type TapeStepRow } from '../dist/index.js';
import { createTestDatabase } from '@fw/testing';

const dir = mkdtempSync(join(tmpdir(), 'fw-tape-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const run = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  agent: 'clerk',
  protocol: 'chat',
  ref: null,
  owner: 'principal:alice',
  principal: 'alice',
  parent_run_id: null,
  coordination_id: null,
  session_id: null,
  status: 'open',
  started_at: 1000,
  ended_at: null,
  duration_ms: null,
  error: null,
  ...extra,
});
const step = (runId: string, seq: number, kind = 'tool-call'): TapeStepRow => ({
  run_id: runId,
  seq,
  at: 1000 + seq,
  kind,
  duration_ms: seq,
  body: JSON.stringify({ n: seq }),
});

async function exercise(options: StoreOptions): Promise<void> {
  const store = await openStore(options);
  try {
    assert.ok(store.migrated.includes('0007-tape'));
    const t = store.tape;
    await t.open(run('r1'));
    await t.open(run('r2', { agent: 'lead', principal: 'bob', owner: 'principal:bob', started_at: 2000 }));
    await t.open(run('r3', { agent: 'helper', parent_run_id: 'r2', started_at: 3000, principal: 'bob' }));
    await t.append([step('r1', 0, 'input'), step('r1', 1), step('r1', 2)]);
    await t.append([step('r1', 2), step('r1', 3, 'end')]); // a retried batch: seq 2 once
    await t.end('r1', { status: 'completed', endedAt: 5000, durationMs: 4000, inputTokens: 70, outputTokens: 17, steps: 4, error: null });
    await t.end('r1', { status: 'failed', endedAt: 6000, durationMs: 1, inputTokens: 0, outputTokens: 0, steps: 0, error: 'late' });

    const r1 = await t.get('r1');
    assert.deepEqual(
      [r1?.status, r1?.ended_at, r1?.input_tokens, r1?.output_tokens, r1?.steps, r1?.error],
      ['completed', 5000, 70, 17, 4, null],
    );
    assert.deepEqual(
      (await t.steps('r1')).map((s) => [s.seq, s.kind, s.at, JSON.parse(s.body).n]),
      [
        [0, 'input', 1000, 0],
        [1, 'tool-call', 1001, 1],
        [2, 'tool-call', 1002, 2],
        [3, 'end', 1003, 3],
      ],
    );
    assert.deepEqual(
      (await t.steps('r1', 1, 2)).map((s) => s.seq),
      [1, 2],
    );
    assert.deepEqual(
      (await t.list()).map((r) => r.id),
      ['r3', 'r2', 'r1'],
    );
    assert.deepEqual(
      (await t.list({ principal: 'bob' })).map((r) => r.id),
      ['r3', 'r2'],
    );
    assert.deepEqual(
      (await t.list({ status: 'completed' })).map((r) => r.id),
      ['r1'],
    );
    assert.deepEqual(
      (await t.list({ since: 2000, agent: 'lead' })).map((r) => r.id),
      ['r2'],
    );
    assert.deepEqual(
      (await t.list({ parentRunId: 'r2' })).map((r) => r.id),
      ['r3'],
    );
    assert.deepEqual(
      (await t.list({}, 1)).map((r) => r.id),
      ['r3'],
    );

    assert.equal(await t.interruptOpen(9000), 2);
    assert.deepEqual(
      (await t.list({ status: 'interrupted' })).map((r) => r.id),
      ['r3', 'r2'],
    );
    assert.equal((await t.get('r1'))?.status, 'completed', 'an ended run stays as it ended');
  } finally {
    await store.close();
  }
}

test('tape repository on embedded SQLite', () => exercise({ file: join(dir, 'tape.db') }));

test('tape repository on PostgreSQL', async () => {
  const db = await createTestDatabase();
  try {
    await exercise({ postgresUrl: db.url });
  } finally {
    await db.drop();
  }
});
