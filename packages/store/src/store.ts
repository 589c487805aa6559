/**
 * The store seam: one interface for everything fw must not forget on restart (A2A tasks, agent
 * sessions and their messages, agent runs, the coordination journal, the admin audit log; MCP
 * tasks are a later migration on the same seam). Two backends behind it, one schema and one set of
 * migrations (Kysely):
 *
 * - embedded (default): a SQLite file through libSQL in `fw.data-dir` (`fw.store.file`);
 *   `fw.data-dir` = '' keeps it in memory (the test runner's setting);
 * - PostgreSQL through `pg` when `fw.store.postgres-url` is set.
 *
 * A store belongs to one fw process at a time: at start it settles what that process left in
 * flight (see the agent module's recovery).
 */
import { mkdirSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { createClient } from '@libsql/client';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { ConfigError, errorSummary, fallbackLogger, FwError, type Framework, type Logger } from '@fw/runtime';
import { STORE_CONFIG } from './config.js';
import { AuditRecords } from './audit.js';
import { JournalRecords } from './journal.js';
import { LibsqlDialect } from './libsql-dialect.js';
import { migrate } from './migrations.js';
import { RunRecords } from './runs.js';
import type { StoreSchema } from './schema.js';
import { SessionRecords } from './sessions.js';
import { TapeRecords } from './tape.js';
import { EvalRecords } from './evals.js';
import { SpendRecords } from './spend.js';
import { TaskRecords } from './tasks.js';
import { WriteQueue } from './write-queue.js';
import { StoreHealth, type StoreHealthSettings } from './health.js';
import { writerOn } from './writer.js';
import type { StorageBudget } from './retention/budget.js';
import { storeMetrics } from './retention/metrics.js';
import { DEFAULT_WAL_LIMIT, openRetention, type StoreRetentionOptions } from './retention/open.js';
import type { Retention } from './retention/retention.js';
import { configuredSettings } from './retention/settings.js';
import { prepareSqliteSpace } from './retention/sqlite-space.js';

export type StoreKind = 'sqlite' | 'memory' | 'postgres';

export interface StoreOptions {
  /** PostgreSQL connection string; when set, the store is PostgreSQL. */
  postgresUrl?: string;
  postgresPool?: number;
  /** Path of the embedded SQLite file; absent (and no postgresUrl): in memory. */
  file?: string;
  /** `full` (default): each commit fsynced before it is confirmed; `normal`: durable across a killed process only. */
  sqliteSynchronous?: 'full' | 'normal';
  /** Where failed writes and lost connections are logged (default: fw's default logger). */
  logger?: Logger;
  /**
   * Retention and the storage budget, read at every pass: when given, passes run at open and on
   * their interval and the budget is measured on its own; without, the declared defaults apply
   * to `store.retention.run()` and the budget is measured only when asked (`store.retention.measure()`).
   */
  retention?: StoreRetentionOptions;
  /** Retry budget and write probe, read at each use (default: 5 s, a probe every 1 s with a 2 s deadline). */
  health?: () => StoreHealthSettings;
}

const DEFAULT_HEALTH: StoreHealthSettings = { retryBudgetMs: 5000, probeIntervalMs: 1000, probeTimeoutMs: 2000 };

export interface FwStore {
  readonly kind: StoreKind;
  /** The file path, `:memory:`, or the PostgreSQL URL without its password. */
  readonly location: string;
  /** Migrations applied when this store opened (empty when the schema was up to date). */
  readonly migrated: readonly string[];
  readonly tasks: TaskRecords;
  readonly sessions: SessionRecords;
  readonly runs: RunRecords;
  readonly journal: JournalRecords;
  /** The run tape: every agent run's typed steps (the agent module's recorder writes it). */
  readonly tape: TapeRecords;
  /** Evals: dataset cases, eval runs and their results (the agent module's eval runner writes them). */
  readonly evals: EvalRecords;
  /** Spend: tokens and USD per day, agent, principal and model (the admin plane's governance writes it). */
  readonly spend: SpendRecords;
  /** The admin audit log (adapted to an AuditSink by @fw/admin). */
  readonly audit: AuditRecords;
  /**
   * The write path (group commit): `commit(w => …)` resolves once the write is durable (confirm to
   * a client only then), `defer` for writes nobody waits for, `flush()` before reads that must see
   * them and before close.
   */
  readonly writes: WriteQueue;
  /** Faulted / down state and the write probe behind readiness 'store'. */
  readonly health: StoreHealth;
  /** The query builder itself, for repositories that later migrations add. */
  readonly db: Kysely<StoreSchema>;
  /** The storage budget: `admit()` where new work starts (throws 503 storage_budget_exceeded). */
  readonly budget: StorageBudget;
  /** Retention passes (scheduled when opened with `retention`), their counters and last report. */
  readonly retention: Retention;
  close(): Promise<void>;
}

export async function openStore(options: StoreOptions = {}): Promise<FwStore> {
  const log = options.logger ?? fallbackLogger().child({ module: 'store' });
  let db: Kysely<StoreSchema>;
  let kind: StoreKind;
  let location: string;
  let client: ReturnType<typeof createClient> | undefined;
  let reclaims = false;
  if (options.postgresUrl) {
    kind = 'postgres';
    location = redact(options.postgresUrl);
    const pool = new pg.Pool({
      connectionString: options.postgresUrl,
      max: options.postgresPool ?? 10,
      // A server that does not answer (a failover in progress, a partition) fails a connect within
      // this, a store fault retried by the write path, instead of leaving the write waiting forever.
      connectionTimeoutMillis: 5000,
      // int8 columns (epoch ms, journal ids) fit a double: read them as numbers, as SQLite does.
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === 20 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    pool.on('error', (err) => log.error({ store: redact(options.postgresUrl ?? ''), error: errorSummary(err) }, 'store connection error'));
    // The pool listens for errors on idle clients only. A connection that drops while a client is
    // checked out (between Kysely's acquire and its query, in a transaction) emits 'error' on the
    // client with no listener: an uncaught exception that ended the process. The query in flight
    // gets the error anyway; here it is only logged.
    pool.on('connect', (client) =>
      client.on('error', (err) =>
        log.error({ store: redact(options.postgresUrl ?? ''), error: errorSummary(err) }, 'store connection lost while in use'),
      ),
    );
    db = new Kysely<StoreSchema>({ dialect: new PostgresDialect({ pool }) });
  } else {
    kind = options.file ? 'sqlite' : 'memory';
    location = options.file ?? ':memory:';
    client = createClient({ url: options.file ? `file:${options.file}` : ':memory:', intMode: 'number' });
    if (options.file) {
      // Deleted space goes back to the filesystem (retention/sqlite-space.ts); first, since a new
      // file's auto-vacuum mode is fixed once WAL mode writes its header.
      reclaims = await prepareSqliteSpace(client, options.retention?.walLimit ?? DEFAULT_WAL_LIMIT, log);
      // WAL: readers do not block the writer. FULL (the default): every commit is fsynced before fw confirms
      // it (NORMAL leaves the last transactions in the page cache: a disk that fails or turns
      // read-only, or a power loss, took acknowledged chat turns with it; test/chaos/
      // disk-read-only). Group commit shares each fsync between the writes of a batch.
      await client.execute('PRAGMA journal_mode = WAL');
      await client.execute(`PRAGMA synchronous = ${options.sqliteSynchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
      await client.execute('PRAGMA busy_timeout = 5000');
    }
    db = new Kysely<StoreSchema>({ dialect: new LibsqlDialect(client) });
  }
  let migrated: string[];
  try {
    await sql`select 1`.execute(db);
    migrated = await migrate(db as Kysely<unknown>);
  } catch (err) {
    await db.destroy().catch(() => undefined);
    throw new FwError('store_unavailable', `the store at ${location} could not be opened: ${(err as Error).message}`, 503);
  }
  const health = new StoreHealth(
    options.health ?? (() => DEFAULT_HEALTH),
    async () => {
      // A full filesystem can still take writes into SQLite's WAL for a while: the probe says so
      // before the writes start failing (the budget's fw.store.min-free-disk refuses far earlier).
      if (options.file) await checkFreeSpace(options.file);
      await db
        .insertInto('fw_store_probe')
        .values({ id: 'probe', at: Date.now() })
        .onConflict((oc) => oc.column('id').doUpdateSet({ at: Date.now() }))
        .execute();
    },
    { kind, location },
    log,
  );
  // PostgreSQL: lanes of batches commit at once on the pool's connections (some left for reads and
  // the probe); the embedded store has one connection, so one lane.
  const lanes = kind === 'postgres' ? Math.max(1, Math.floor((options.postgresPool ?? 10) / 2)) : 1;
  const writes = new WriteQueue(log, (batch) => db.transaction().execute((tx) => batch(writerOn(tx))), health, lanes);
  health.start();
  const { retention, budget } = await openRetention({ db, kind, client, reclaims, file: options.file, options: options.retention, log });
  let closed: Promise<void> | undefined;
  return {
    kind,
    location,
    migrated,
    tasks: new TaskRecords(db),
    sessions: new SessionRecords(db),
    runs: new RunRecords(db),
    journal: new JournalRecords(db, retention.deleter),
    audit: new AuditRecords(db),
    tape: new TapeRecords(db),
    evals: new EvalRecords(db),
    spend: new SpendRecords(db),
    writes,
    health,
    db,
    budget,
    retention,
    close: () =>
      (closed ??= retention.close().then(() => {
        health.stop();
        return writes.flush().then(() => db.destroy());
      })),
  };
}

/** Below this many free bytes the embedded store's filesystem counts as full. */
const MIN_FREE_BYTES = 1 << 20;

async function checkFreeSpace(file: string): Promise<void> {
  const fs = await statfs(dirname(file));
  if (fs.bavail * fs.bsize < MIN_FREE_BYTES) {
    throw Object.assign(new Error(`less than 1 MiB free on the filesystem of ${file}`), { code: 'ENOSPC' });
  }
}

/** The store options `fw`'s configuration asks for. */
export function storeOptions(fw: Framework): StoreOptions {
  fw.config.declare(STORE_CONFIG);
  const logger = fw.logger.child({ module: 'store' });
  const configured = configuredSettings(fw);
  const retention: StoreRetentionOptions = {
    settings: configured.retention,
    budget: configured.budget,
    walLimit: fw.config.get('fw.store.wal-limit'),
  };
  const postgresUrl = fw.config.get('fw.store.postgres-url');
  const health = (): StoreHealthSettings => ({
    retryBudgetMs: fw.config.get('fw.store.retry-budget'),
    probeIntervalMs: fw.config.get('fw.store.probe-interval'),
    probeTimeoutMs: fw.config.get('fw.store.probe-timeout'),
  });
  if (postgresUrl) return { postgresUrl, postgresPool: fw.config.get('fw.store.postgres-pool'), logger, retention, health };
  const dir = dataDir(fw);
  if (!dir) return { logger, retention, health };
  const sqliteSynchronous = fw.config.get('fw.store.sqlite-synchronous');
  if (sqliteSynchronous !== 'full' && sqliteSynchronous !== 'normal') {
    throw new ConfigError(`fw.store.sqlite-synchronous must be 'full' or 'normal' (got '${sqliteSynchronous}')`);
  }
  const abs = resolve(dir);
  mkdirSync(abs, { recursive: true, mode: 0o700 });
  const file = resolve(abs, fw.config.get('fw.store.file'));
  return { file, sqliteSynchronous, logger, retention: { ...retention, dataDir: abs }, health };
}

/** `fw.data-dir`: where the embedded SQLite file lives; empty keeps the store in memory. */
export function dataDir(fw: Framework): string {
  return fw.config.get('fw.data-dir');
}

interface Shared {
  store: Promise<FwStore>;
  users: number;
  /** Removes the store's metrics and readiness contributor from fw (at the last release). */
  unregister?: () => void;
}
const shared = new WeakMap<Framework, Shared>();

/**
 * The store of `fw`, opened (and migrated) by its first user and published as the service
 * `'store'`; each user calls `releaseStore` when it closes, and the last one closes the store.
 */
export function useStore(fw: Framework): Promise<FwStore> {
  let s = shared.get(fw);
  if (!s) {
    const store = openStore(storeOptions(fw));
    const entry: Shared = { store, users: 0 };
    shared.set(fw, (s = entry));
    store.then(
      (st) => {
        fw.services.provide('store', st);
        const unregisterMetrics = storeMetrics(fw, st.budget, st.retention.counters);
        // Not ready while the store is faulted (the probe write or a write met a fault) or refuses
        // new work for its storage budget; ready again once a write succeeds.
        const unregisterReadiness = fw.readiness.register('store', () => st.health.check(st.budget));
        entry.unregister = () => {
          unregisterMetrics();
          unregisterReadiness();
        };
      },
      () => shared.delete(fw),
    );
  }
  s.users++;
  return s.store;
}

export async function releaseStore(fw: Framework): Promise<void> {
  const s = shared.get(fw);
  if (!s || --s.users > 0) return;
  shared.delete(fw);
  s.unregister?.();
  await (await s.store).close();
}

/** A connection string with its password masked, for logs and status (never print a password). */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres';
  }
}
