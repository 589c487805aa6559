/**
 * Store retention: the passes that keep every table within its age and count limits and the
 * whole store within its budget, at start, every `fw.store.retention.interval`, and at once when
 * a measurement finds the store past `fw.store.budget-prune-at`.
 *
 * A pass:
 * 1. deletes, per table, finished records older than its max-age and the oldest finished ones
 *    beyond its max-rows (expired A2A tasks always), in batches (batches.ts; never live work:
 *    tables.ts);
 * 2. gives the space back (SQLite: incremental vacuum and a WAL checkpoint; PostgreSQL: VACUUM of
 *    the tables that lost rows, so new rows reuse the space instead of growing the relation);
 * 3. measures the store; while it is past the pressure mark, deletes the oldest quarter of the
 *    finished records of every table (the journal's events too) and measures again, up to 8
 *    rounds, or until nothing finished is left;
 * 4. hands the measurement to the budget, which decides whether new work is refused.
 *
 * Between passes the budget is measured every `fw.store.budget-check-interval`.
 */
import type { Client } from '@libsql/client';
import { sql, type Kysely } from 'kysely';
import { errorSummary, type Logger } from '@fw/runtime';
import type { StoreSchema } from '../schema.js';
import { BatchDeleter } from './batches.js';
import type { StorageBudget } from './budget.js';
import type { PruneCounters } from './counters.js';
import type { Measure, StoreSize } from './measure.js';
import type { RetainedTable, RetentionSettings } from './settings.js';
import { reclaimSqliteSpace } from './sqlite-space.js';
import {
  journalPrunable,
  messagesPrunable,
  runsPrunable,
  sessionsPrunable,
  tasksPrunable,
  tapesPrunable,
  evalsPrunable,
  spendPrunable,
  type Prunable,
  type PrunedTable,
} from './tables.js';

/** Rounds of "the oldest quarter of every table" a pass may take under pressure (0.75^8 ≈ 10 % left). */
const PRESSURE_ROUNDS = 8;
const PRESSURE_SHARE = 0.25;

export interface PassReport {
  /** Rows deleted in this pass, per table. */
  pruned: Partial<Record<PrunedTable, number>>;
  /** Rounds deleted beyond the limits because the store was past the pressure mark. */
  pressureRounds: number;
  /** The measurement the pass ended with. */
  size: StoreSize;
  ms: number;
  longestTransactionMs: number;
}

export interface RetentionDeps {
  db: Kysely<StoreSchema>;
  kind: 'sqlite' | 'memory' | 'postgres';
  /** The embedded store's connection (for the vacuum, which Kysely cannot run to the end). */
  client?: Client;
  /** The embedded file is in incremental auto-vacuum mode (it can give space back). */
  reclaims?: boolean;
  measure: Measure;
  settings: () => RetentionSettings;
  budget: StorageBudget;
  counters: PruneCounters;
  log: Logger;
}

export class Retention {
  private readonly tables: Record<RetainedTable, Prunable>;
  private readonly tasks: ReturnType<typeof tasksPrunable>;
  private readonly journal: Prunable;
  private pass: Promise<PassReport> | undefined;
  private next: Promise<PassReport> | undefined;
  private measuring: Promise<StoreSize> | undefined;
  private interval: NodeJS.Timeout | undefined;
  private sampler: NodeJS.Timeout | undefined;
  private nextPassAt = 0;
  /** A pass under pressure found nothing to delete: wait for the scheduled one before trying again. */
  private pressureExhausted = false;
  private closed = false;
  /** Passes are scheduled (`start()`): only then does pressure start one by itself. */
  private started = false;
  /** The last pass's report (undefined before the first ends). */
  last: PassReport | undefined;
  /** Every delete of the store goes through it (the journal's retention too): batches that adapt per table. */
  readonly deleter: BatchDeleter;

  constructor(private readonly deps: RetentionDeps) {
    const { db } = deps;
    this.deleter = new BatchDeleter(
      db,
      deps.counters,
      () => deps.settings(),
      () => this.closed,
    );
    this.tasks = tasksPrunable(db);
    this.tables = {
      runs: runsPrunable(db),
      sessions: sessionsPrunable(db),
      messages: messagesPrunable(db),
      tasks: this.tasks,
      tapes: tapesPrunable(db),
      evals: evalsPrunable(db),
      spend: spendPrunable(db),
    };
    this.journal = journalPrunable(db);
    deps.budget.refresh = () => void this.sample();
    deps.budget.quick = deps.measure.quick;
    deps.budget.retryAfterSeconds = () => {
      const check = this.deps.budget.checkIntervalMs() / 1000;
      return this.pressureExhausted ? Math.max(check, (this.nextPassAt - Date.now()) / 1000) : check;
    };
  }

  /**
   * Schedules the passes: the first now (not awaited: the store serves meanwhile, and the budget
   * already knows the size), then every interval, and the budget's measurements in between.
   */
  start(): void {
    this.started = true;
    const s = this.deps.settings();
    const check = this.deps.budget.checkIntervalMs();
    this.sampler = setInterval(() => void this.sample(), check);
    this.sampler.unref();
    if (s.intervalMs > 0) {
      this.interval = setInterval(() => {
        this.pressureExhausted = false;
        void this.run();
      }, s.intervalMs);
      this.interval.unref();
      this.nextPassAt = Date.now() + s.intervalMs;
    }
    void this.run();
  }

  /** Rows deleted per table, the longest transaction, … (shared with the journal's retention). */
  get counters(): PruneCounters {
    return this.deps.counters;
  }

  /**
   * A pass that starts after this call: now, or right after the one in progress (callers asking
   * meanwhile share that next pass). Never rejects: a failed pass is logged and counted.
   */
  run(): Promise<PassReport> {
    if (this.closed) return Promise.resolve(this.empty());
    if (this.pass) {
      this.next ??= this.pass.then(() => {
        this.next = undefined;
        return this.run();
      });
      return this.next;
    }
    const pass = this.runPass()
      .catch((err: unknown): PassReport => {
        this.deps.counters.failures++;
        this.deps.log.error({ error: errorSummary(err) }, 'store retention failed');
        return this.empty();
      })
      .finally(() => {
        if (this.pass === pass) this.pass = undefined;
      });
    this.pass = pass;
    return pass;
  }

  /** The report of a pass that did nothing (failed, or asked for after close). */
  private empty(): PassReport {
    return {
      pruned: {},
      pressureRounds: 0,
      size: this.deps.budget.state().size ?? { bytes: 0, usedBytes: 0 },
      ms: 0,
      longestTransactionMs: 0,
    };
  }

  /** Measures the store and tells the budget (one measurement at a time). */
  measure(exact = false): Promise<StoreSize> {
    if (this.measuring && !exact) return this.measuring;
    const m = this.deps.measure(exact).then((size) => {
      this.deps.budget.update(size);
      return size;
    });
    if (!exact) {
      this.measuring = m.finally(() => {
        this.measuring = undefined;
      });
      return this.measuring;
    }
    return m;
  }

  /** Stops the schedule and waits for the pass in progress (it stops between two batches). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.interval);
    clearInterval(this.sampler);
    await Promise.allSettled([this.pass, this.next, this.measuring]);
  }

  /** A measurement between passes; past the pressure mark it starts a pass at once. */
  private async sample(): Promise<void> {
    if (this.closed) return;
    try {
      const size = await this.measure();
      if (this.started && !this.closed && !this.pass && !this.pressureExhausted && this.deps.budget.underPressure(size)) void this.run();
    } catch (err) {
      this.deps.log.warn({ error: errorSummary(err) }, 'store size could not be measured');
    }
  }

  private async runPass(): Promise<PassReport> {
    const started = performance.now();
    const { counters, budget } = this.deps;
    const s = this.deps.settings();
    const now = Date.now();
    const before = new Map(counters.pruned);
    counters.lastPassLongestTransactionMs = 0;
    const del = (table: Prunable, max: number, op: ReturnType<Prunable['older']>): Promise<number> =>
      this.deleter.run(table.table, max, op);

    await del(this.tasks, Infinity, this.tasks.expired(now));
    for (const name of ['runs', 'sessions', 'messages', 'tasks', 'tapes', 'evals', 'spend'] as const) {
      // Settings built before the tape, evals and spend existed have no limits for them: none apply.
      const { maxAgeMs, maxRows } = s.limits[name] ?? { maxAgeMs: 0, maxRows: 0 };
      const table = this.tables[name];
      if (maxAgeMs > 0) await del(table, Infinity, table.older(now - maxAgeMs));
      if (maxRows > 0) {
        const n = await table.count();
        if (n > maxRows) await del(table, n - maxRows, table.older());
      }
    }
    await this.reclaim(before);
    if (this.closed) return this.report(started, before, 0, budget.state().size ?? { bytes: 0, usedBytes: 0 });
    let size = await this.measure(this.deps.kind === 'postgres');

    let rounds = 0;
    if (budget.underPressure(size)) {
      while (rounds < PRESSURE_ROUNDS && !this.closed && budget.underPressure(size)) {
        rounds++;
        const roundBefore = new Map(counters.pruned);
        let deleted = 0;
        for (const table of [
          this.tables.messages,
          this.tables.sessions,
          this.tables.runs,
          this.tables.tasks,
          this.tables.tapes,
          this.tables.evals,
          this.tables.spend,
          this.journal,
        ]) {
          const n = await table.count();
          if (n > 0) deleted += await del(table, Math.ceil(n * PRESSURE_SHARE), table.older());
        }
        if (deleted === 0 || this.closed) break;
        await this.reclaim(roundBefore);
        if (this.closed) break;
        size = await this.measure(this.deps.kind === 'postgres');
      }
      this.pressureExhausted = budget.underPressure(size);
      this.deps.log.warn(
        {
          rounds,
          bytes: size.bytes,
          usedBytes: size.usedBytes,
          mark: Math.round(budget.pressureMark()),
          stillOver: this.pressureExhausted,
        },
        'store past fw.store.budget-prune-at: oldest finished records deleted beyond the retention limits',
      );
    } else {
      this.pressureExhausted = false;
    }
    if (s.intervalMs > 0) this.nextPassAt = Date.now() + s.intervalMs;
    return this.report(started, before, rounds, size);
  }

  private report(started: number, before: ReadonlyMap<string, number>, rounds: number, size: StoreSize): PassReport {
    const { counters } = this.deps;
    const pruned: Partial<Record<PrunedTable, number>> = {};
    for (const [table, n] of counters.pruned) {
      const d = n - (before.get(table) ?? 0);
      if (d > 0) pruned[table as PrunedTable] = d;
    }
    counters.passes++;
    const report: PassReport = {
      pruned,
      pressureRounds: rounds,
      size,
      ms: performance.now() - started,
      longestTransactionMs: counters.lastPassLongestTransactionMs,
    };
    this.last = report;
    if (Object.keys(pruned).length > 0) {
      this.deps.log.info(
        {
          pruned,
          pressureRounds: rounds,
          bytes: size.bytes,
          ms: Math.round(report.ms),
          longestTransactionMs: Math.round(report.longestTransactionMs * 10) / 10,
        },
        'store retention pass',
      );
    }
    return report;
  }

  /** Gives back the space of what went since `before` (nothing to do when nothing went). */
  private async reclaim(before: ReadonlyMap<string, number>): Promise<void> {
    const { counters, kind, db, client } = this.deps;
    const lost = [...counters.pruned].filter(([t, n]) => n > (before.get(t) ?? 0)).map(([t]) => t);
    if (lost.length === 0 || this.closed) return;
    if (kind === 'sqlite' && client && this.deps.reclaims) {
      const size = await this.deps.measure(false);
      await reclaimSqliteSpace(
        db as Kysely<unknown>,
        client,
        () => this.closed,
        (ms) => (counters.longestReclaimStepMs = Math.max(counters.longestReclaimStepMs, ms)),
      );
      const after = await this.deps.measure(false);
      counters.reclaimedBytes += Math.max(0, size.bytes - after.bytes);
    } else if (kind === 'postgres') {
      // Plain VACUUM: marks the space reusable now (autovacuum would, later), takes no lock that
      // blocks reads or writes, and cannot run inside a transaction (one pooled connection, autocommit).
      await sql`VACUUM ${sql.join(lost.map((t) => sql.table(t)))}`.execute(db);
    }
  }
}
