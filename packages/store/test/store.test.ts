import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Framework } from '@fw/runtime';
import { openStore, storeOptions, MIGRATIONS, type FwStore, type StoreOptions } from '../dist/index.js';
import { createTestDatabase } from '@fw/testing';
import { sql } from 'kysely';

const dir = mkdtempSync(join(tmpdir(), 'fw-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const backends: { name: string; options: () => Promise<{ options: StoreOptions; cleanup(): Promise<void> }> }[] = [
  {
    name: 'embedded SQLite file',
    options: async () => ({ options: { file: join(dir, `t-${Math.random().toString(36).slice(2)}.db`) }, cleanup: async () => {} }),
  },
  {
    name: 'PostgreSQL',
    options: async () => {
      const db = await createTestDatabase();
      return { options: { postgresUrl: db.url }, cleanup: () => db.drop() };
    },
  },
];

for (const backend of backends) {
  describe(`store on ${backend.name}`, () => {
    test('migrations apply once: a second open finds the schema up to date and the data in place', async () => {
      const { options, cleanup } = await backend.options();
      try {
        const a = await openStore(options);
        assert.deepEqual(a.migrated, Object.keys(MIGRATIONS));
        await a.tasks.put({
          id: 't1',
          agent: 'echo',
          context_id: 'c1',
          state: 'working',
          created_at: 1,
          updated_at: 2,
          expires_at: null,
          body: '{"id":"t1"}',
          owner: 'principal:alice',
        });
        await a.close();
        // Two opens at once: the migration lock makes one wait, neither fails.
        const [b, c] = await Promise.all([openStore(options), openStore(options)]);
        assert.deepEqual(b.migrated, []);
        assert.deepEqual(c.migrated, []);
        assert.equal((await b.tasks.get('t1'))?.state, 'working');
        assert.equal((await b.tasks.get('t1'))?.updated_at, 2, 'bigint columns read back as numbers');
        await Promise.all([b.close(), c.close()]);
      } finally {
        await cleanup();
      }
    });

    test('journal pages: newest first, cursor, filters by agent, coordination, kind and time', async () => {
      const { options, cleanup } = await backend.options();
      const store: FwStore = await openStore(options);
      try {
        const rows = Array.from({ length: 1200 }, (_, i) => ({
          id: i + 1,
          at: 1000 + i,
          kind: i % 3 === 0 ? 'failure' : 'dispatch',
          coordination_id: `k${i % 10}`,
          coordinator: 'lead',
          agent: i % 2 === 0 ? 'even' : 'odd',
          other: i === 7 ? 'judge' : null,
          body: '{}',
        }));
        await store.journal.append(rows);
        assert.equal(await store.journal.count(), 1200);
        assert.equal(await store.journal.maxId(), 1200);
        const p1 = await store.journal.page({ agent: 'even', limit: 50 });
        assert.equal(p1.rows.length, 50);
        assert.equal(p1.rows[0]!.id, 1199);
        assert.ok(p1.rows.every((r) => r.agent === 'even'));
        const p2 = await store.journal.page({ agent: 'even', limit: 50, before: p1.next });
        assert.equal(p2.rows[0]!.id, p1.rows[49]!.id - 2);
        const judge = await store.journal.page({ agent: 'judge', limit: 10 });
        assert.deepEqual(
          judge.rows.map((r) => r.id),
          [8],
        );
        const filtered = await store.journal.page({ coordinationId: 'k3', kinds: ['failure'], from: 1100, to: 1199, limit: 100 });
        assert.ok(filtered.rows.length > 0);
        assert.ok(filtered.rows.every((r) => r.coordination_id === 'k3' && r.kind === 'failure' && r.at >= 1100 && r.at <= 1199));
        assert.equal(filtered.next, undefined);
        // Agent, kind and time together (the time range becomes an id range), and its count.
        const mixed = await store.journal.page({ agent: 'even', kinds: ['failure'], from: 1100, to: 1150, limit: 100 });
        const expected = rows
          .filter((r) => r.agent === 'even' && r.kind === 'failure' && r.at >= 1100 && r.at <= 1150)
          .map((r) => r.id)
          .reverse();
        assert.deepEqual(
          mixed.rows.map((r) => r.id),
          expected,
        );
        assert.equal(await store.journal.count({ agent: 'even', kinds: ['failure'], from: 1100, to: 1150 }), expected.length);
        assert.deepEqual((await store.journal.page({ agent: 'even', from: 5000, limit: 5 })).rows, []);
        // Retention by age, then by count.
        assert.equal(await store.journal.prune(1100, undefined), 100);
        assert.equal(await store.journal.prune(undefined, 500), 600);
        assert.equal(await store.journal.count(), 500);
        assert.equal((await store.journal.page({ limit: 1, order: 'asc' })).rows[0]!.id, 701);
      } finally {
        await store.close();
        await cleanup();
      }
    });

    test('admin audit records: the newest come back oldest first, across a reopen; prune keeps the newest by count', async () => {
      const { options, cleanup } = await backend.options();
      try {
        const a = await openStore(options);
        for (let i = 1; i <= 6; i++) {
          await a.audit.append({
            id: `r${i}`,
            seq: i,
            at: 1000 + i,
            action: 'broadcast',
            principal: i % 2 ? 'alice' : null,
            outcome: 'allowed',
            body: JSON.stringify({ seq: i }),
          });
        }
        await assert.rejects(
          a.audit.append({ id: 'r1', seq: 7, at: 2000, action: 'x', principal: null, outcome: 'allowed', body: '{}' }),
          'a write the database refuses throws',
        );
        await a.close();
        const b = await openStore(options);
        try {
          assert.deepEqual(
            (await b.audit.newest(3)).map((r) => [r.seq, r.at]),
            [
              [4, 1004],
              [5, 1005],
              [6, 1006],
            ],
            'numbers, oldest first',
          );
          assert.equal((await b.audit.newest(3))[0]?.principal, null);
          assert.equal(await b.audit.prune(4), 2);
          assert.equal(await b.audit.count(), 4);
          assert.deepEqual(
            (await b.audit.newest(10)).map((r) => r.id),
            ['r3', 'r4', 'r5', 'r6'],
          );
          assert.equal(await b.audit.prune(4), 0, 'at the limit: nothing goes');
          // Records written in one millisecond (a burst of writes) are cut by seq, not all kept.
          for (let i = 7; i <= 9; i++) {
            await b.audit.append({ id: `r${i}`, seq: i, at: 3000, action: 'broadcast', principal: null, outcome: 'allowed', body: '{}' });
          }
          assert.equal(await b.audit.prune(2), 5);
          assert.deepEqual(
            (await b.audit.newest(10)).map((r) => r.id),
            ['r8', 'r9'],
          );
        } finally {
          await b.close();
        }
      } finally {
        await cleanup();
      }
    });

    test('runs still running at open are interrupted; sessions still open are ended', async () => {
      const { options, cleanup } = await backend.options();
      const store = await openStore(options);
      try {
        await store.runs.start({
          id: 'r1',
          agent: 'a',
          protocol: 'a2a',
          ref: 't1',
          coordination_id: null,
          state: 'running',
          started_at: 1,
          ended_at: null,
          error: null,
          owner: 'principal:alice',
        });
        await store.runs.start({
          id: 'r2',
          agent: 'a',
          protocol: 'agui',
          ref: 'x',
          coordination_id: 'k',
          state: 'running',
          started_at: 2,
          ended_at: null,
          error: null,
          owner: null,
        });
        await store.runs.finish('r2', 'completed', 3);
        const cut = await store.runs.interruptRunning(10, 'interrupted');
        assert.deepEqual(
          cut.map((r) => r.id),
          ['r1'],
        );
        assert.equal((await store.runs.get('r1'))?.state, 'interrupted');
        assert.equal((await store.runs.get('r2'))?.state, 'completed');
        await store.sessions.put({
          id: 's1',
          agent: 'a',
          resource_uuid: null,
          owner: null,
          started_at: 1,
          last_activity_at: 1,
          ended_at: null,
          end_reason: null,
          message_count: 0,
        });
        await store.sessions.addMessage({ session_id: 's1', seq: 1, role: 'user', content: 'hi', at: 1 });
        await store.sessions.addMessage({ session_id: 's1', seq: 2, role: 'assistant', content: 'hello', at: 2 });
        assert.deepEqual(await store.sessions.endOpen(5, 'interrupted'), ['s1']);
        assert.equal((await store.sessions.get('s1'))?.end_reason, 'interrupted');
        assert.deepEqual(
          (await store.sessions.messages('s1')).map((m) => m.content),
          ['hi', 'hello'],
        );
      } finally {
        await store.close();
        await cleanup();
      }
    });
  });
}

test('in memory: nothing outlives the store', async () => {
  const a = await openStore({});
  assert.equal(a.kind, 'memory');
  await a.tasks.put({
    id: 't',
    agent: 'x',
    context_id: 'c',
    state: 'working',
    created_at: 1,
    updated_at: 1,
    expires_at: null,
    body: '{}',
    owner: null,
  });
  await a.close();
  const b = await openStore({});
  assert.equal(await b.tasks.get('t'), undefined);
  await b.close();
});

test('a PostgreSQL URL that cannot be reached fails the open with store_unavailable', async () => {
  await assert.rejects(
    openStore({ postgresUrl: 'postgres://postgres@127.0.0.1:1/nope' }),
    (err: Error & { code?: string }) => err.code === 'store_unavailable',
  );
});

test('migration 0002 brings a journal written under 0001 along: its events are found by agent', async () => {
  const { Kysely, Migrator } = await import('kysely');
  const { createClient } = await import('@libsql/client');
  const { LibsqlDialect } = await import('../dist/index.js');
  const file = join(dir, 'upgrade.db');
  const db = new Kysely<unknown>({ dialect: new LibsqlDialect(createClient({ url: `file:${file}` })) });
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...MIGRATIONS }) },
    migrationTableName: 'fw_migrations',
    migrationLockTableName: 'fw_migrations_lock',
  });
  assert.equal((await migrator.migrateTo('0001-initial')).error, undefined);
  const { sql } = await import('kysely');
  await sql`INSERT INTO fw_agent_journal (id, at, kind, coordination_id, coordinator, agent, other, body) VALUES (1, 10, 'dispatch', 'k', 'lead', 'a', NULL, '{}'), (2, 11, 'handoff', 'k', 'lead', 'b', 'a', '{}')`.execute(
    db,
  );
  await db.destroy();
  const store = await openStore({ file });
  try {
    assert.deepEqual(store.migrated, Object.keys(MIGRATIONS).slice(1));
    assert.deepEqual(
      (await store.journal.page({ agent: 'a', limit: 10 })).rows.map((r) => r.id),
      [2, 1],
    );
    assert.deepEqual(
      (await store.journal.page({ agent: 'lead', limit: 10, from: 11 })).rows.map((r) => r.id),
      [2],
    );
    assert.equal(await store.journal.count({ agent: 'b' }), 1);
  } finally {
    await store.close();
  }
});

for (const backend of backends) {
  test(`migration 0004 on ${backend.name}: tasks and runs get an owner column (null: nobody's), session owners take the principal: form`, async () => {
    const { Kysely, Migrator, PostgresDialect, sql } = await import('kysely');
    const { options, cleanup } = await backend.options();
    let db: InstanceType<typeof Kysely<unknown>>;
    if (options.postgresUrl) {
      const pg = (await import('pg')).default;
      db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: options.postgresUrl, max: 1 }) }) });
    } else {
      const { createClient } = await import('@libsql/client');
      const { LibsqlDialect } = await import('../dist/index.js');
      db = new Kysely<unknown>({ dialect: new LibsqlDialect(createClient({ url: `file:${options.file}` })) });
    }
    try {
      const migrator = new Migrator({
        db,
        provider: { getMigrations: async () => ({ ...MIGRATIONS }) },
        migrationTableName: 'fw_migrations',
        migrationLockTableName: 'fw_migrations_lock',
      });
      assert.equal((await migrator.migrateTo('0003-admin-audit')).error, undefined);
      await sql`INSERT INTO fw_a2a_tasks (id, agent, context_id, state, created_at, updated_at, expires_at, body) VALUES ('t-old', 'a', 'c', 'completed', 1, 1, NULL, '{}')`.execute(
        db,
      );
      await sql`INSERT INTO fw_agent_runs (id, agent, protocol, ref, coordination_id, state, started_at, ended_at, error) VALUES ('r-old', 'a', 'agui', 'x', NULL, 'completed', 1, 2, NULL)`.execute(
        db,
      );
      await sql`INSERT INTO fw_agent_sessions (id, agent, resource_uuid, owner, started_at, last_activity_at, ended_at, end_reason, message_count)
        VALUES ('s-alice', 'a', NULL, 'alice', 1, 1, 2, 'closed', 0), ('s-anon', 'a', NULL, NULL, 1, 1, 2, 'closed', 0)`.execute(db);
    } finally {
      await db.destroy();
    }
    const store = await openStore(options);
    try {
      assert.deepEqual(store.migrated, Object.keys(MIGRATIONS).slice(3), 'every migration after 0003, 0004 first');
      assert.equal((await store.tasks.get('t-old'))?.owner, null, 'a task from before owners belongs to nobody');
      assert.equal((await store.runs.get('r-old'))?.owner, null);
      assert.equal((await store.sessions.get('s-alice'))?.owner, 'principal:alice');
      assert.equal((await store.sessions.get('s-anon'))?.owner, null);
      await store.tasks.put({
        id: 't-bob',
        agent: 'a',
        context_id: 'c',
        state: 'working',
        created_at: 2,
        updated_at: 2,
        expires_at: null,
        body: '{}',
        owner: 'principal:bob',
      });
      await store.runs.start({
        id: 'r-bob',
        agent: 'a',
        protocol: 'a2a',
        ref: 't-bob',
        coordination_id: null,
        state: 'running',
        started_at: 3,
        ended_at: null,
        error: null,
        owner: 'principal:bob',
      });
      assert.deepEqual(
        (await store.tasks.list({ owner: 'principal:bob' })).map((t) => t.id),
        ['t-bob'],
      );
      assert.deepEqual(
        (await store.runs.list({ owner: 'principal:bob' })).map((r) => r.id),
        ['r-bob'],
      );
      assert.deepEqual(
        (await store.tasks.list({ owner: 'principal:alice' })).map((t) => t.id),
        [],
      );
    } finally {
      await store.close();
      await cleanup();
    }
  });
}

test('fw.store.sqlite-synchronous: full by default (each commit fsynced), normal on request, anything else a configuration error', async () => {
  const synchronous = async (settings: Record<string, unknown>): Promise<number> => {
    const fw = new Framework({ configFile: false, env: {}, 'fw.data-dir': mkdtempSync(join(dir, 'sync-')), ...settings });
    const store = await openStore(storeOptions(fw));
    try {
      const { rows } = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(store.db);
      return Number(rows[0]!.synchronous);
    } finally {
      await store.close();
      await fw.close();
    }
  };
  assert.equal(await synchronous({}), 2, 'FULL');
  assert.equal(await synchronous({ 'fw.store.sqlite-synchronous': 'normal' }), 1, 'NORMAL');
  await assert.rejects(
    synchronous({ 'fw.store.sqlite-synchronous': 'off' }),
    /fw\.store\.sqlite-synchronous must be 'full' or 'normal' \(got 'off'\)/,
  );
});
