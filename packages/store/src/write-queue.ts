import { setTimeout as sleep } from 'node:timers/promises';
import { errorSummary, fallbackLogger, type Logger } from '@fw/runtime';
import { StoreUnavailableError } from './faults.js';
import type { StoreHealth } from './health.js';
import type { StoreWriter } from './writer.js';

/** One write of a batch: re-runnable (a batch that met a store fault runs again whole). */
export type StoreWrite<T> = (w: StoreWriter) => Promise<T>;

/** Runs a batch in one transaction: what the store gives the queue. */
export type Transact = (batch: (w: StoreWriter) => Promise<void>) => Promise<void>;

/** One serial line of batches: the writes of one key always go through the same lane. */
interface Lane {
  pending: Queued[];
  draining: boolean;
}

interface Queued {
  write: StoreWrite<unknown>;
  result?: unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/** Writes per transaction at most (a batch larger than this waits for the next one). */
const MAX_BATCH = 500;
/** The first retry waits this long after a store fault, doubling up to BACKOFF_MAX_MS. */
const BACKOFF_FIRST_MS = 50;
const BACKOFF_MAX_MS = 1000;

/**
 * The store's write path: group commit. `commit(write)` resolves once the write is durable (its
 * transaction committed), so fw confirms to a client only what is in the store; the writes asked
 * for while one transaction commits form the next batch, one transaction for all of them (the
 * throughput of fire-and-forget without its losses). Writes run in the order asked for, batch after
 * batch, within their lane: a write given a key (a session, a task, a run) always takes the lane of
 * that key, so the writes of one key stay in order, while on PostgreSQL several lanes commit at
 * once on the pool's connections (one lane on SQLite: its one connection writes one at a time).
 *
 * A store fault (a PostgreSQL restart, a cut connection, a full disk; faults.ts) is retried with
 * backoff within `fw.store.retry-budget`; past it, or while the store is down, a write is refused at
 * once with 503 `store_unavailable` (health.ts). Any other error fails only the write that caused
 * it: the rest of its batch is committed again without it.
 *
 * `defer(write)` is for writes nobody waits for: same path, a failure is counted and logged.
 * `flush()` waits for every write asked for so far (graceful close, reads that must see them).
 */
export class WriteQueue {
  private readonly lanes: Lane[];
  /** Settles (never rejects) when the last write asked for so far has settled. */
  private last: Promise<void> = Promise.resolve();
  /** Writes that failed (each is also logged). */
  failures = 0;
  lastError: unknown;
  /** Transactions committed and the writes they held (a batch's size is their ratio). */
  batches = 0;
  committed = 0;

  constructor(
    private readonly log: Logger = fallbackLogger(),
    private readonly transact?: Transact,
    private readonly health?: StoreHealth,
    lanes = 1,
  ) {
    this.lanes = Array.from({ length: Math.max(1, Math.floor(lanes)) }, () => ({ pending: [], draining: false }));
  }

  /**
   * Resolves with `write`'s result once it is durable; rejects with StoreUnavailableError when the
   * store cannot take it (down, or still faulted past the retry budget), or with the write's own error.
   */
  commit<T>(write: StoreWrite<T>, key?: string): Promise<T> {
    if (this.health?.down) return Promise.reject(new StoreUnavailableError());
    const lane = this.laneOf(key);
    const done = new Promise<T>((resolve, reject) => {
      lane.pending.push({ write: write as StoreWrite<unknown>, resolve: resolve as (v: unknown) => void, reject });
    });
    const settled = done.then(
      () => undefined,
      () => undefined,
    );
    const before = this.last;
    this.last = Promise.all([before, settled]).then(() => undefined);
    if (!lane.draining) {
      lane.draining = true;
      // The writes asked for in the same synchronous run join the first batch; those asked for
      // while a batch commits form the next one (group commit without a timer's latency).
      queueMicrotask(() => void this.drain(lane));
    }
    return done;
  }

  /**
   * Throws StoreUnavailableError while the store is down: where new work starts (a chat prompt),
   * so that it is refused before anything is begun. (A2A and AG-UI refuse at their first write: a
   * JSON-RPC error, a RUN_ERROR, as their clients expect.)
   */
  admit(): void {
    if (this.health?.down) throw new StoreUnavailableError();
  }

  /** Queues `write` after every write asked for before it; nobody waits, a failure is logged. */
  defer(write: StoreWrite<unknown>, key?: string): void {
    this.commit(write, key).catch((err: unknown) => {
      this.failures++;
      this.lastError = err;
      this.log.error({ error: errorSummary(err) }, 'store write failed');
    });
  }

  /** Resolves once every write asked for so far, in every lane, has finished (committed or failed). */
  flush(): Promise<void> {
    return this.last;
  }

  private async drain(lane: Lane): Promise<void> {
    try {
      while (lane.pending.length > 0) await this.run(lane.pending.splice(0, MAX_BATCH));
    } finally {
      lane.draining = false;
    }
  }

  /** The lane of a key (FNV-1a); writes without a key take the first lane. */
  private laneOf(key: string | undefined): Lane {
    if (key === undefined || this.lanes.length === 1) return this.lanes[0]!;
    let h = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    return this.lanes[(h >>> 0) % this.lanes.length]!;
  }

  /** Commits one batch, retrying store faults within the budget; settles every write of it. */
  private async run(batch: Queued[]): Promise<void> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      if (this.health?.down) return this.refuse(batch, new StoreUnavailableError());
      try {
        // Only the probe clears a fault (health.ts): a write can still land in a full disk's WAL.
        await this.execute(batch);
        this.batches++;
        this.committed += batch.length;
        for (const q of batch) q.resolve(q.result);
        return;
      } catch (err) {
        if (this.health?.failed(err) ?? false) {
          // Budget spent (by this batch or by the fault's age): refused; else wait and run it again.
          if (this.health?.down || Date.now() - started >= this.retryBudgetMs())
            return this.refuse(batch, new StoreUnavailableError(), err);
          await sleep(Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** attempt));
          continue;
        }
        if (batch.length === 1) return this.refuse(batch, err, err);
        // One write's own error rolled the batch back: each one again alone, so only it fails.
        for (const q of batch) await this.run([q]);
        return;
      }
    }
  }

  private execute(batch: Queued[]): Promise<void> {
    const body = async (w: StoreWriter) => {
      for (const q of batch) q.result = await q.write(w);
    };
    if (!this.transact) throw new Error('this write queue has no store to commit to');
    return this.transact(body);
  }

  private refuse(batch: Queued[], err: unknown, cause?: unknown): void {
    if (cause !== undefined) this.log.warn({ writes: batch.length, error: errorSummary(cause) }, 'store writes refused');
    for (const q of batch) q.reject(err);
  }

  private retryBudgetMs(): number {
    return this.health ? this.health.retryBudget() : 0;
  }
}
