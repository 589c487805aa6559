/**
 * Issue 24: bounded storage. Retention of every table the store writes, by age and by count, in
 * batches, never taking live work; the storage budget refusing new work; the embedded file giving
 * deleted space back; pruning at start; the counters behind the metrics. Each test runs on the
 * embedded SQLite file and on PostgreSQL (a database of its own on the shared server).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createClient } from '@libsql/client';
import { Framework, MemoryLogger } from '@fw/runtime';
import { createTestDatabase, waitFor } from '@fw/testing';
import {
  openStore,
  releaseStore,
  StorageBudget,
  StorageBudgetExceededError,
  useStore,
  type BudgetSettings,
  type FwStore,
  type RetentionSettings,
  type RunRow,
  type StoreOptions,
  type StoreRetentionOptions,
  type TaskRow,
} from '../dist/index.js';

const root = mkdtempSync(join(tmpdir(), 'fw-retention-'));
after(() => rmSync(root, { recursive: true, force: true }));

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Backend {
  name: string;
  open(extra?: Partial<StoreOptions>): Promise<{ options: StoreOptions; cleanup(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'embedded SQLite file',
    open: async (extra = {}) => {
      const dir = mkdtempSync(join(root, 'd-'));
      return { options: { file: join(dir, 'fw.db'), ...extra }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'PostgreSQL',
    open: async (extra = {}) => {
      const db = await createTestDatabase('fw_retention');
      return { options: { postgresUrl: db.url, ...extra }, cleanup: () => db.drop() };
    },
  },
];

/** Settings a test changes between passes (read at every pass, as fw's configuration is). */
function knobs(): { retention: RetentionSettings; budget: BudgetSettings; options: StoreRetentionOptions } {
  const none = { maxAgeMs: 0, maxRows: 0 };
  const k = {
    retention: {
      intervalMs: 0,
      batch: 50,
      // Fixed batches unless a test says otherwise (the adaptation has its own test).
      maxTransactionMs: 60_000,
      limits: { runs: { ...none }, sessions: { ...none }, messages: { ...none }, tasks: { ...none } },
    } as RetentionSettings,
    budget: { bytes: 0, pruneAt: 0.8, refuseAt: 0.9, checkIntervalMs: 60_000, minFreeDisk: 0 } as BudgetSettings,
    options: undefined as unknown as StoreRetentionOptions,
  };
  k.options = { settings: () => k.retention, budget: () => k.budget };
  return k;
}

function run(id: string, endedAt: number | null, error: string | null = null): RunRow {
  return {
    id,
    agent: 'a',
    protocol: 'a2a',
    ref: null,
    coordination_id: null,
    state: endedAt === null ? 'running' : 'completed',
    started_at: (endedAt ?? Date.now()) - 1000,
    ended_at: endedAt,
    error,
    owner: null,
  };
}

function task(id: string, updatedAt: number, expiresAt: number | null): TaskRow {
  return {
    id,
    agent: 'a',
    owner: null,
    context_id: 'c',
    state: expiresAt === null ? 'working' : 'completed',
    created_at: updatedAt - 1000,
    updated_at: updatedAt,
    expires_at: expiresAt,
    body: '{}',
  };
}

async function session(
  store: FwStore,
  id: string,
  endedAt: number | null,
  messages: { at: number; content?: string }[] = [],
): Promise<void> {
  const first = messages[0]?.at ?? endedAt ?? Date.now();
  await store.sessions.put({
    id,
    agent: 'a',
    resource_uuid: null,
    owner: null,
    started_at: first,
    last_activity_at: endedAt ?? first,
    ended_at: endedAt,
    end_reason: endedAt === null ? null : 'closed',
    message_count: messages.length,
  });
  for (const [i, m] of messages.entries()) {
    await store.sessions.addMessage({
      session_id: id,
      seq: i + 1,
      role: i % 2 ? 'assistant' : 'user',
      content: m.content ?? `m${i + 1}`,
      at: m.at,
    });
  }
}

async function ids(store: FwStore, table: 'fw_agent_runs' | 'fw_agent_sessions' | 'fw_a2a_tasks'): Promise<string[]> {
  return (await store.db.selectFrom(table).select('id').orderBy('id').execute()).map((r) => r.id);
}

async function messageKeys(store: FwStore): Promise<string[]> {
  const rows = await store.db
    .selectFrom('fw_agent_session_messages')
    .select(['session_id', 'seq'])
    .orderBy('session_id')
    .orderBy('seq')
    .execute();
  return rows.map((r) => `${r.session_id}:${r.seq}`);
}

for (const backend of backends) {
  describe(`retention on ${backend.name}`, () => {
    test('by age: finished records older than each table’s max-age go, live ones and newer ones stay', async () => {
      const k = knobs();
      const { options, cleanup } = await backend.open({ retention: k.options });
      const store = await openStore(options);
      try {
        const now = Date.now();
        const old = now - 3 * DAY;
        const recent = now - HOUR;
        for (const r of [run('r-old', old), run('r-new', recent), run('r-live', null)]) await store.runs.start(r);
        await store.db
          .updateTable('fw_agent_runs')
          .set({ started_at: now - 10 * DAY })
          .where('id', '=', 'r-live')
          .execute();
        await session(store, 's-old', old, [{ at: old }, { at: old }]);
        await session(store, 's-new', recent, [{ at: old }, { at: recent }]);
        await session(store, 's-open', null, [{ at: now - 10 * DAY }, { at: now - 10 * DAY }]);
        for (const t of [
          task('t-old', old, now + DAY),
          task('t-expired', recent, now - 60_000),
          task('t-new', recent, now + HOUR),
          task('t-live', now - 10 * DAY, null),
        ]) {
          await store.tasks.put(t);
        }
        for (const name of ['runs', 'sessions', 'messages', 'tasks'] as const) k.retention.limits[name].maxAgeMs = 2 * DAY;

        const report = await store.retention.run();

        assert.deepEqual(await ids(store, 'fw_agent_runs'), ['r-live', 'r-new']);
        assert.deepEqual(await ids(store, 'fw_agent_sessions'), ['s-new', 's-open']);
        // s-old's messages went with it; s-new's old message by the messages' own age; the open
        // session's ten-day-old messages stay.
        assert.deepEqual(await messageKeys(store), ['s-new:2', 's-open:1', 's-open:2']);
        assert.deepEqual(await ids(store, 'fw_a2a_tasks'), ['t-live', 't-new']);
        assert.deepEqual(report.pruned, { fw_agent_runs: 1, fw_agent_sessions: 1, fw_agent_session_messages: 3, fw_a2a_tasks: 2 });
        assert.equal(store.retention.counters.pruned.get('fw_agent_runs'), 1);

        // The journal (its limits are the agent module's, fw.agent.journal.*): by age, batched, counted.
        await store.journal.append(
          Array.from({ length: 7 }, (_, i) => ({
            id: i + 1,
            at: i < 5 ? old + i : recent + i,
            kind: 'dispatch',
            coordination_id: 'k',
            coordinator: 'lead',
            agent: 'w',
            other: null,
            body: '{}',
          })),
        );
        k.retention.batch = 2;
        assert.equal(await store.journal.prune(now - 2 * DAY, undefined), 5);
        assert.deepEqual(
          (await store.journal.page({ limit: 10, order: 'asc' })).rows.map((r) => r.id),
          [6, 7],
        );
        assert.equal(await store.journal.count({ agent: 'lead' }), 2, 'the parties of the pruned events went with them');
        assert.equal(store.retention.counters.pruned.get('fw_agent_journal'), 5);
        assert.equal(store.retention.counters.pruned.get('fw_agent_journal_parties'), 10);
      } finally {
        await store.close();
        await cleanup();
      }
    });

    test('by count: beyond each table’s max-rows the oldest finished records go; live ones count but stay', async () => {
      const k = knobs();
      const { options, cleanup } = await backend.open({ retention: k.options });
      const store = await openStore(options);
      try {
        const t0 = Date.now() - DAY;
        // runs: the oldest is live; 9 finished after it.
        await store.runs.start({ ...run('r0', null), started_at: t0 - 1000 });
        for (let i = 1; i <= 9; i++) await store.runs.start(run(`r${i}`, t0 + i));
        k.retention.limits.runs.maxRows = 5;
        assert.deepEqual((await store.retention.run()).pruned, { fw_agent_runs: 5 });
        assert.deepEqual(await ids(store, 'fw_agent_runs'), ['r0', 'r6', 'r7', 'r8', 'r9']);
        // A limit below the live rows: every finished one goes, the live ones stay.
        await store.runs.start(run('r-live', null));
        k.retention.limits.runs.maxRows = 1;
        assert.deepEqual((await store.retention.run()).pruned, { fw_agent_runs: 4 });
        assert.deepEqual(await ids(store, 'fw_agent_runs'), ['r-live', 'r0']);
        k.retention.limits.runs.maxRows = 0;

        // sessions: the oldest is open; ended ones go with their messages.
        await session(store, 's0', null, [{ at: t0 }]);
        for (let i = 1; i <= 5; i++) await session(store, `s${i}`, t0 + i, [{ at: t0 + i }]);
        k.retention.limits.sessions.maxRows = 3;
        assert.deepEqual((await store.retention.run()).pruned, { fw_agent_sessions: 3, fw_agent_session_messages: 3 });
        assert.deepEqual(await ids(store, 'fw_agent_sessions'), ['s0', 's4', 's5']);
        assert.deepEqual(await messageKeys(store), ['s0:1', 's4:1', 's5:1']);
        await session(store, 's-open', null, [{ at: t0 + 50 }]);
        k.retention.limits.sessions.maxRows = 1;
        assert.deepEqual((await store.retention.run()).pruned, { fw_agent_sessions: 2, fw_agent_session_messages: 2 });
        assert.deepEqual(await ids(store, 'fw_agent_sessions'), ['s-open', 's0']);
        k.retention.limits.sessions.maxRows = 0;

        // messages: an open session's messages are the oldest; only the ended session's go.
        await session(
          store,
          'open',
          null,
          [1, 2, 3, 4].map((i) => ({ at: t0 + 100 + i })),
        );
        await session(
          store,
          'done',
          t0 + 300,
          [1, 2, 3, 4, 5, 6, 7, 8].map((i) => ({ at: t0 + 200 + i })),
        );
        const before = (await messageKeys(store)).length; // 2 + 4 + 8
        k.retention.limits.messages.maxRows = before - 6;
        assert.deepEqual((await store.retention.run()).pruned, { fw_agent_session_messages: 6 });
        assert.deepEqual(
          await messageKeys(store),
          ['done:7', 'done:8', 'open:1', 'open:2', 'open:3', 'open:4', 's-open:1', 's0:1'],
          'the oldest messages of the ended session went; those of open sessions stay',
        );
        k.retention.limits.messages.maxRows = 1;
        assert.deepEqual((await store.retention.run()).pruned, { fw_agent_session_messages: 2 });
        assert.deepEqual(await messageKeys(store), ['open:1', 'open:2', 'open:3', 'open:4', 's-open:1', 's0:1']);
        k.retention.limits.messages.maxRows = 0;

        // tasks: the oldest is live.
        await store.tasks.put(task('t0', t0, null));
        for (let i = 1; i <= 5; i++) await store.tasks.put(task(`t${i}`, t0 + i, Date.now() + DAY));
        k.retention.limits.tasks.maxRows = 3;
        assert.deepEqual((await store.retention.run()).pruned, { fw_a2a_tasks: 3 });
        assert.deepEqual(await ids(store, 'fw_a2a_tasks'), ['t0', 't4', 't5']);
        await store.tasks.put(task('t-live', t0 + 10, null));
        k.retention.limits.tasks.maxRows = 1;
        assert.deepEqual((await store.retention.run()).pruned, { fw_a2a_tasks: 2 });
        assert.deepEqual(await ids(store, 'fw_a2a_tasks'), ['t-live', 't0']);

        // journal: all but the newest `keep`, in batches of 3.
        await store.journal.append(
          Array.from({ length: 10 }, (_, i) => ({
            id: i + 1,
            at: t0 + i,
            kind: 'dispatch',
            coordination_id: 'k',
            coordinator: 'lead',
            agent: 'w',
            other: null,
            body: '{}',
          })),
        );
        k.retention.batch = 3;
        const transactions = store.retention.counters.transactions;
        assert.equal(await store.journal.prune(undefined, 4), 6);
        assert.deepEqual(
          (await store.journal.page({ limit: 10, order: 'asc' })).rows.map((r) => r.id),
          [7, 8, 9, 10],
        );
        assert.equal(
          store.retention.counters.transactions - transactions,
          3,
          'six events in batches of 1, 2, 3 (a slow start up to the batch of 3)',
        );
      } finally {
        await store.close();
        await cleanup();
      }
    });

    test('batches: a write made while a pass deletes thousands of rows is not held until the pass ends', async () => {
      const k = knobs();
      const { options, cleanup } = await backend.open({ retention: k.options });
      const store = await openStore(options);
      try {
        const old = Date.now() - 3 * DAY;
        const rows = Array.from({ length: 3000 }, (_, i) => run(`r${String(i).padStart(5, '0')}`, old + i));
        for (let i = 0; i < rows.length; i += 500)
          await store.db
            .insertInto('fw_agent_runs')
            .values(rows.slice(i, i + 500))
            .execute();
        k.retention.batch = 20;
        k.retention.limits.runs.maxAgeMs = DAY;
        const transactions = store.retention.counters.transactions;
        let passDone = false;
        const pass = store.retention.run().then((r) => {
          passDone = true;
          return r;
        });
        await store.runs.start(run('fresh', null));
        assert.equal(passDone, false, 'the write went in between two batches, not after the whole pass');
        const report = await pass;
        assert.equal(report.pruned.fw_agent_runs, 3000);
        assert.ok(store.retention.counters.transactions - transactions >= 150, 'one short transaction per batch of 20');
        assert.ok(report.longestTransactionMs > 0);
        assert.deepEqual(await ids(store, 'fw_agent_runs'), ['fresh']);
      } finally {
        await store.close();
        await cleanup();
      }
    });

    test('pruning on start: a store opened with retention prunes before anyone asks', async () => {
      const { options, cleanup } = await backend.open();
      try {
        const first = await openStore(options);
        for (let i = 0; i < 30; i++) await first.runs.start(run(`old${i}`, Date.now() - 10 * DAY));
        await first.runs.start(run('new', Date.now()));
        await first.close();
        const k = knobs();
        k.retention.limits.runs.maxAgeMs = DAY;
        const store = await openStore({ ...options, retention: k.options });
        try {
          await waitFor('the pass at start to prune the old runs', () => store.retention.counters.pruned.get('fw_agent_runs') === 30);
          assert.deepEqual(await ids(store, 'fw_agent_runs'), ['new']);
        } finally {
          await store.close();
        }
      } finally {
        await cleanup();
      }
    });

    test('budget: past refuse-at, admit() refuses new work (503, Retry-After); writes of work in flight still go; pressure pruning frees it, never taking live work', async () => {
      const k = knobs();
      const { options, cleanup } = await backend.open({ retention: k.options });
      const store = await openStore(options);
      try {
        const old = Date.now() - HOUR;
        const text = 'x'.repeat(1500);
        const rows = Array.from({ length: 2000 }, (_, i) =>
          run(
            `f${String(i).padStart(5, '0')}`,
            old + i,
            `${i}${text}`.replace(/x/g, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))),
          ),
        );
        for (let i = 0; i < rows.length; i += 200)
          await store.db
            .insertInto('fw_agent_runs')
            .values(rows.slice(i, i + 200))
            .execute();
        await store.runs.start(run('live', null));
        await session(store, 'open', null, [{ at: old - DAY }]);
        await store.tasks.put(task('working', old - DAY, null));

        const size = await store.retention.measure(true);
        assert.ok(size.usedBytes > 1_000_000, `the store holds what was written: ${JSON.stringify(size)}`);
        store.budget.admit(); // no budget yet
        k.budget.bytes = Math.ceil(size.usedBytes / 0.95);
        await store.retention.measure(true);
        assert.equal(store.budget.state().refusing, 'fw.store.budget');
        const refused = (() => {
          try {
            store.budget.admit();
          } catch (err) {
            return err;
          }
          return undefined;
        })();
        assert.ok(refused instanceof StorageBudgetExceededError);
        assert.equal(refused.status, 503);
        assert.equal(refused.code, 'storage_budget_exceeded');
        assert.match(refused.headers?.['retry-after'] ?? '', /^[1-9][0-9]*$/);
        assert.doesNotMatch(refused.message, /\/|\d{4,}/, 'no path, no sizes for the client');
        assert.equal(store.budget.refusals, 1);

        // Work already admitted goes on writing.
        await store.runs.finish('live', 'completed', Date.now());
        await store.runs.start(run('live2', null));

        const report = await store.retention.run();
        assert.ok(report.pressureRounds >= 1, 'deleted beyond the (absent) age and count limits');
        assert.ok(
          report.size.usedBytes < k.budget.bytes * k.budget.pruneAt,
          `below the pressure mark: ${JSON.stringify(report.size)} of ${k.budget.bytes}`,
        );
        assert.equal(store.budget.state().refusing, undefined);
        store.budget.admit();
        assert.ok((await ids(store, 'fw_agent_runs')).includes('live2'), 'the running run stays');
        assert.deepEqual(await ids(store, 'fw_agent_sessions'), ['open']);
        assert.deepEqual(await messageKeys(store), ['open:1'], 'the open session’s message stays');
        assert.deepEqual(await ids(store, 'fw_a2a_tasks'), ['working']);
        if (store.kind === 'sqlite') assert.ok(report.size.bytes < size.bytes, 'the file gave space back');
      } finally {
        await store.close();
        await cleanup();
      }
    });
  });
}

test('embedded: deleted space goes back to the filesystem (incremental vacuum, WAL truncated)', async () => {
  const dir = mkdtempSync(join(root, 'space-'));
  const file = join(dir, 'fw.db');
  const k = knobs();
  // No write probe during the test (health.ts): its write after the checkpoint would refill the WAL.
  const store = await openStore({
    file,
    retention: k.options,
    health: () => ({ retryBudgetMs: 5000, probeIntervalMs: 3_600_000, probeTimeoutMs: 2000 }),
  });
  const onDisk = (): number => readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
  try {
    const old = Date.now() - 3 * DAY;
    const blob = (i: number): string => `${i}:${Math.random().toString(36).slice(2).repeat(3000)}`; // ~30 KB each
    for (let s = 0; s < 40; s++)
      await session(
        store,
        `s${s}`,
        old,
        Array.from({ length: 10 }, (_, i) => ({ at: old + i, content: blob(s * 10 + i) })),
      );
    await session(store, 'keep', Date.now(), [{ at: Date.now(), content: blob(-1) }]);
    const before = onDisk();
    assert.ok(before > 8_000_000, `about 12 MB written: ${before}`);
    k.retention.limits.sessions.maxAgeMs = DAY;
    const report = await store.retention.run();
    assert.equal(report.pruned.fw_agent_session_messages, 400);
    const afterBytes = onDisk();
    assert.ok(afterBytes < before * 0.1, `the data directory shrank from ${before} to ${afterBytes}`);
    assert.ok(store.retention.counters.reclaimedBytes > before * 0.8);
    assert.equal(statSync(`${file}-wal`).size, 0, 'the WAL was checkpointed and truncated');
    assert.equal(await store.sessions.lastSeq('keep'), 1);
  } finally {
    await store.close();
  }
});

test('embedded: a file made before incremental vacuum is converted once at open; a new file has it from the start', async () => {
  const dir = mkdtempSync(join(root, 'convert-'));
  const legacy = join(dir, 'legacy.db');
  const raw = createClient({ url: `file:${legacy}` });
  await raw.execute('CREATE TABLE app_data (x TEXT)');
  await raw.execute("INSERT INTO app_data VALUES ('kept')");
  assert.equal(Number((await raw.execute('PRAGMA auto_vacuum')).rows[0]?.[0]), 0);
  raw.close();
  for (const file of [legacy, join(dir, 'new.db')]) {
    const store = await openStore({ file });
    await store.close();
    const c = createClient({ url: `file:${file}` });
    assert.equal(Number((await c.execute('PRAGMA auto_vacuum')).rows[0]?.[0]), 2, `${file}: incremental`);
    if (file === legacy) assert.equal((await c.execute('SELECT x FROM app_data')).rows[0]?.[0], 'kept');
    c.close();
  }
});

test('metrics: pruned rows per table, bytes, budget and refusals on fw.metrics.registry', async () => {
  const dir = mkdtempSync(join(root, 'metrics-'));
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': dir,
    'fw.store.retention.runs.max-age': '1h',
    'fw.store.budget': 1_000_000_000,
  });
  const store = await useStore(fw);
  try {
    for (let i = 0; i < 7; i++) await store.runs.start(run(`old${i}`, Date.now() - DAY));
    await store.retention.run();
    const text = await fw.metrics.scrape();
    assert.match(text, /^fw_store_pruned_rows_total\{table="fw_agent_runs"\} 7$/m);
    assert.match(text, /^fw_store_pruned_rows_total\{table="fw_agent_journal"\} 0$/m);
    assert.match(text, /^fw_store_budget_bytes 1000000000$/m);
    const bytes = Number(/^fw_store_bytes (\d+)$/m.exec(text)?.[1]);
    assert.ok(bytes > 0 && bytes === store.budget.state().size?.bytes, `fw_store_bytes ${bytes}`);
    assert.match(text, /^fw_store_budget_refusing 0$/m);
    assert.match(text, /^fw_store_retention_passes_total [1-9]/m);
    assert.match(text, /^fw_store_prune_longest_transaction_seconds [0-9.e-]+$/m);
  } finally {
    await releaseStore(fw);
    await fw.close();
  }
  assert.doesNotMatch(await fw.metrics.scrape(), /fw_store_bytes/, 'removed with the store');
});

test('budget edges: refused at refuse-at, not one byte below; accepted again only below prune-at; the free-disk floor at its edge', () => {
  const settings: BudgetSettings = { bytes: 1000, pruneAt: 0.8, refuseAt: 0.9, checkIntervalMs: 60_000, minFreeDisk: 500 };
  const log = new MemoryLogger();
  const budget = new StorageBudget(() => settings, log);
  const refused = (): string | undefined => {
    try {
      budget.admit();
      return undefined;
    } catch (err) {
      assert.ok(err instanceof StorageBudgetExceededError);
      return (err.details as { limit: string }).limit;
    }
  };
  const at = (usedBytes: number, freeDiskBytes = 10_000): string | undefined => {
    budget.update({ bytes: usedBytes, usedBytes, freeDiskBytes });
    return refused();
  };
  assert.equal(at(899), undefined, 'one byte under refuse-at: admitted');
  assert.equal(at(900), 'fw.store.budget', 'at refuse-at: refused');
  assert.equal(at(850), 'fw.store.budget', 'between prune-at and refuse-at: still refused (low water is prune-at)');
  assert.equal(at(800), 'fw.store.budget', 'at prune-at: still refused');
  assert.equal(at(799), undefined, 'under prune-at: admitted again');
  assert.equal(at(850), undefined, 'rising again: admitted until refuse-at');
  assert.equal(at(100, 500), undefined, 'free disk at the floor: admitted');
  assert.equal(at(100, 499), 'fw.store.min-free-disk', 'one byte under the floor: refused');
  assert.equal(at(100, 500), undefined);
  assert.deepEqual(
    log.entries.map((e) => [e.level, e.message, (e.fields as { limit?: string }).limit]),
    [
      ['warn', 'store: new work is refused (storage budget)', 'fw.store.budget'],
      ['info', 'store: back under its storage budget; new work is accepted again', undefined],
      ['warn', 'store: new work is refused (storage budget)', 'fw.store.min-free-disk'],
      ['info', 'store: back under its storage budget; new work is accepted again', undefined],
    ],
    'one log line per change, with the limit',
  );
  assert.equal(budget.refusals, 4);
  settings.bytes = 0;
  settings.minFreeDisk = 0;
  assert.equal(at(10 ** 12, 0), undefined, '0 turns both checks off');
});

test('count and age limits at their edge: at the limit nothing goes, one over and the oldest goes', async () => {
  const k = knobs();
  const store = await openStore({ retention: k.options });
  try {
    const now = Date.now();
    for (let i = 0; i < 5; i++) await store.runs.start(run(`r${i}`, now - HOUR + i));
    k.retention.limits.runs.maxRows = 5;
    assert.deepEqual((await store.retention.run()).pruned, {}, '5 rows at max-rows 5');
    await store.runs.start(run('r5', now - HOUR + 5));
    assert.deepEqual((await store.retention.run()).pruned, { fw_agent_runs: 1 }, 'one over');
    assert.deepEqual(await ids(store, 'fw_agent_runs'), ['r1', 'r2', 'r3', 'r4', 'r5']);
    k.retention.limits.runs.maxRows = 0;
    // max-age 1 h: a run that ended a minute short of it stays; one that ended a minute past it goes.
    await store.runs.start(run('young', Date.now() - HOUR + 60_000));
    await store.runs.start(run('old', Date.now() - HOUR - 60_000));
    k.retention.limits.runs.maxAgeMs = HOUR;
    await store.retention.run();
    assert.ok((await ids(store, 'fw_agent_runs')).includes('young'));
    assert.ok(!(await ids(store, 'fw_agent_runs')).includes('old'));
  } finally {
    await store.close();
  }
});

test('batches adapt per table: a slow start, halved after a transaction over fw.store.retention.max-transaction, doubled back under a quarter of it', async () => {
  const k = knobs();
  const store = await openStore({ retention: k.options });
  try {
    const old = Date.now() - 3 * DAY;
    const rows = Array.from({ length: 64 }, (_, i) => run(`r${String(i).padStart(3, '0')}`, old + i));
    await store.db.insertInto('fw_agent_runs').values(rows).execute();
    k.retention.batch = 32;
    k.retention.limits.runs.maxAgeMs = DAY;
    assert.equal(store.retention.deleter.sizeOf('fw_agent_runs'), 2, 'a table not seen yet starts at a sixteenth');
    // Every transaction is quick: 2, 4, 8, 16, 32 (62 rows), then the 2 left.
    let transactions = store.retention.counters.transactions;
    assert.equal((await store.retention.run()).pruned.fw_agent_runs, 64);
    assert.equal(store.retention.counters.transactions - transactions, 6);
    assert.equal(store.retention.deleter.sizeOf('fw_agent_runs'), 32);

    await store.db.insertInto('fw_agent_runs').values(rows).execute();
    k.retention.maxTransactionMs = 1e-6; // every transaction is "too long": 32, 16, 8, 4, 2, 1 (63 rows), then 1
    transactions = store.retention.counters.transactions;
    assert.equal((await store.retention.run()).pruned.fw_agent_runs, 64);
    assert.equal(store.retention.counters.transactions - transactions, 7);
    assert.equal(store.retention.deleter.sizeOf('fw_agent_runs'), 1, 'the size learnt is kept for the next pass');
    assert.equal(store.retention.deleter.sizeOf('fw_agent_journal'), 2, 'per table');
  } finally {
    await store.close();
  }
});

test('embedded: each admission reads the present size of the SQLite file and WAL, not only the last measurement', async () => {
  const dir = mkdtempSync(join(root, 'quick-'));
  const k = knobs();
  const store = await openStore({ file: join(dir, 'fw.db'), retention: { ...k.options, dataDir: dir } });
  try {
    const start = (await store.retention.measure()).bytes;
    k.budget.bytes = start * 4;
    store.budget.admit();
    const measuredAt = store.budget.state().measuredAt;
    // Written after the last measurement, which the next one (a minute away) has not seen.
    const old = Date.now() - DAY;
    const text = randomText(4 * start);
    await store.runs.start(run('big', old, text));
    assert.throws(() => store.budget.admit(), StorageBudgetExceededError);
    assert.equal(store.budget.state().measuredAt, measuredAt, 'no full measurement was taken');
  } finally {
    await store.close();
  }
});

function randomText(n: number): string {
  let s = '';
  while (s.length < n) s += Math.random().toString(36).slice(2);
  return s.slice(0, n);
}
