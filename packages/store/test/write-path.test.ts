/**
 * Issue 25: the store's write path. `writes.commit` resolves once a write is durable, concurrent
 * writes share transactions (group commit) in the order they were asked for, one write's own error
 * fails only that write, and a store fault (here SQLite refusing writes, as on a read-only disk) is
 * retried within the budget, then refused fast with store_unavailable until the probe write sees
 * the store take writes again. On SQLite files and on PostgreSQL (a database of its own).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { FwError } from '@fw/runtime';
import { createTestDatabase, waitFor } from '@fw/testing';
import { faultOf, openStore, type StoreOptions } from '../dist/index.js';

const dir = mkdtempSync(join(tmpdir(), 'fw-write-path-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const backends: { name: string; options: () => Promise<{ options: StoreOptions; cleanup(): Promise<void> }> }[] = [
  {
    name: 'embedded SQLite file',
    options: async () => ({ options: { file: join(dir, `w-${Math.random().toString(36).slice(2)}.db`) }, cleanup: async () => {} }),
  },
  {
    name: 'PostgreSQL',
    options: async () => {
      const db = await createTestDatabase();
      return { options: { postgresUrl: db.url }, cleanup: () => db.drop() };
    },
  },
];

function message(session: string, seq: number) {
  return { session_id: session, seq, role: 'user', content: `m${seq}`, at: seq };
}

for (const backend of backends) {
  describe(`write path on ${backend.name}`, () => {
    test('commit resolves once durable; concurrent writes share transactions and run in the order asked', async () => {
      const { options, cleanup } = await backend.options();
      const store = await openStore(options);
      try {
        const ran: number[] = [];
        const writes: Promise<number>[] = [];
        for (let i = 0; i < 200; i++) {
          const session = `s${i % 4}`;
          writes.push(
            store.writes.commit(async (w) => {
              ran.push(i);
              await w.sessions.addMessage(message(session, Math.floor(i / 4) + 1));
              return i;
            }),
          );
        }
        assert.deepEqual(await Promise.all(writes), [...Array(200).keys()], 'each commit resolves with its write’s result');
        // Read straight from the database, no flush: what was confirmed is there.
        for (let s = 0; s < 4; s++) {
          const seqs = (await store.sessions.messages(`s${s}`)).map((m) => m.seq);
          assert.deepEqual(
            seqs,
            [...Array(50).keys()].map((k) => k + 1),
          );
        }
        assert.deepEqual(ran, [...Array(200).keys()], 'writes ran in the order they were asked for');
        assert.ok(store.writes.batches < 200, `group commit: ${store.writes.batches} transactions for 200 writes`);
        assert.equal(store.writes.committed, 200);
      } finally {
        await store.close();
        await cleanup();
      }
    });

    test('a write that fails on its own error fails alone; the rest of its batch is committed', async () => {
      const { options, cleanup } = await backend.options();
      const store = await openStore(options);
      try {
        const good = [1, 2, 3].map((seq) => store.writes.commit((w) => w.sessions.addMessage(message('a', seq))));
        const bad = store.writes.commit((w) => sql`insert into fw_no_such_table values (1)`.execute(w.db));
        const more = store.writes.commit((w) => w.sessions.addMessage(message('a', 4)));
        await Promise.all(good);
        await more;
        await assert.rejects(bad, (err: unknown) => !(err instanceof FwError) && faultOf(err) === undefined);
        assert.deepEqual(
          (await store.sessions.messages('a')).map((m) => m.seq),
          [1, 2, 3, 4],
        );
        assert.equal(store.health.fault, undefined, 'a write’s own error is no store fault');
      } finally {
        await store.close();
        await cleanup();
      }
    });
  });
}

test('a store that refuses writes: retried within the budget, then store_unavailable fast, not ready, and back by itself', async () => {
  const store = await openStore({
    file: join(dir, 'readonly.db'),
    health: () => ({ retryBudgetMs: 300, probeIntervalMs: 50, probeTimeoutMs: 1000 }),
  });
  try {
    assert.equal(store.health.check().ready, true);
    // The embedded store is one connection: query_only makes every write fail as on a read-only disk.
    await sql`PRAGMA query_only = 1`.execute(store.db);
    let attempts = 0;
    await assert.rejects(
      store.writes.commit((w) => {
        attempts++;
        return w.sessions.addMessage(message('r', 1));
      }),
      (err: unknown) => err instanceof FwError && err.code === 'store_unavailable' && err.status === 503 && !/\//.test(err.message),
    );
    assert.ok(attempts >= 2, `the fault was retried before the write was refused (${attempts} attempts)`);
    assert.equal(store.health.check().ready, false);
    assert.equal(store.health.fault?.kind, 'read_only');
    assert.equal(store.health.down, true);
    let ran = false;
    await assert.rejects(
      store.writes.commit((w) => {
        ran = true;
        return w.sessions.addMessage(message('r', 2));
      }),
      { code: 'store_unavailable' },
    );
    assert.equal(ran, false, 'while down, a write is refused without being tried');
    await sql`PRAGMA query_only = 0`.execute(store.db);
    await waitFor('the probe write sees the store take writes again', () => store.health.check().ready, 5000);
    await store.writes.commit((w) => w.sessions.addMessage(message('r', 3)));
    assert.deepEqual(
      (await store.sessions.messages('r')).map((m) => m.seq),
      [3],
      'nothing refused was written',
    );
  } finally {
    await store.close();
  }
});
