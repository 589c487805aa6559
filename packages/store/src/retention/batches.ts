/**
 * Deleting many rows without stopping anything else: the keys of the next batch of rows are read,
 * then deleted in one short transaction that checks again that each row may go, and the event
 * loop gets a turn before the next batch. On the embedded store every statement runs on the event
 * loop's thread and the one connection is held for the whole transaction, so the size of a batch
 * bounds both the stall and the time writers wait (measured: `PruneCounters.longestTransactionMs`).
 *
 * Rows differ a thousandfold in size (a run record, a 32 KB chat message, a task with its whole
 * history) and what a DELETE costs grows with the pages it frees, so a fixed number of rows is no
 * bound on time (measured in bench/soak: 500 rows of 32 KB messages held the lock 300 ms on a
 * loaded machine). Each table's batch therefore adapts: it halves (down to one row) after a
 * transaction longer than `fw.store.retention.max-transaction`, and doubles back towards
 * `fw.store.retention.batch` after one under a quarter of it. A table starts at a sixteenth of the
 * batch, so its first transaction is short whatever its rows; the size learnt is kept per table.
 */
import type { Kysely, Transaction } from 'kysely';
import type { StoreSchema } from '../schema.js';
import type { PruneCounters } from './counters.js';

export interface BatchDelete<K> {
  /** Keys of at most `n` deletable rows, oldest first. */
  select(n: number): Promise<K[]>;
  /** Deletes those of `keys` that may still go; returns the rows deleted per table. */
  remove(tx: Transaction<StoreSchema>, keys: K[]): Promise<Record<string, number>>;
}

/** Lets timers, I/O and requests run between two batches. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export interface BatchLimits {
  /** The largest batch, in rows (`fw.store.retention.batch`). */
  batch: number;
  /** The longest a delete transaction should hold the lock, in ms (`fw.store.retention.max-transaction`). */
  maxTransactionMs: number;
}

export class BatchDeleter {
  /** The batch size learnt per table. */
  private readonly sizes = new Map<string, number>();

  constructor(
    private readonly db: Kysely<StoreSchema>,
    readonly counters: PruneCounters,
    private readonly limits: () => BatchLimits,
    private readonly stopped: () => boolean = () => false,
  ) {}

  /**
   * Deletes up to `max` rows of `table` (Infinity: all that `op.select` finds) in batches; returns
   * how many rows of the first table `op.remove` reports went. Stops between two batches when the
   * store is closing.
   */
  async run<K>(table: string, max: number, op: BatchDelete<K>): Promise<number> {
    let deleted = 0;
    while (deleted < max && !this.stopped()) {
      const { batch, maxTransactionMs } = this.limits();
      // A table not seen yet starts at a sixteenth (slow start): its rows may be large.
      const size = Math.min(batch, this.sizes.get(table) ?? Math.ceil(batch / 16));
      const n = Math.min(size, max - deleted);
      const keys = await op.select(n);
      if (keys.length === 0) break;
      const started = performance.now();
      const rows = await this.db.transaction().execute((tx) => op.remove(tx, keys));
      const ms = performance.now() - started;
      this.counters.record(rows, ms);
      if (ms > maxTransactionMs) this.sizes.set(table, Math.max(1, Math.floor(size / 2)));
      else if (ms < maxTransactionMs / 4) this.sizes.set(table, Math.min(batch, size * 2));
      const first = Object.values(rows)[0] ?? 0;
      deleted += first;
      await yieldToLoop();
      // Fewer than asked for: nothing older is left. None deleted: every row read was taken back
      // (a session resumed, …) between the read and the delete; the next pass tries again.
      if (keys.length < n || first === 0) break;
    }
    return deleted;
  }

  /** The batch size this table is at now (tests, benchmarks). */
  sizeOf(table: string): number {
    const { batch } = this.limits();
    return Math.min(batch, this.sizes.get(table) ?? Math.ceil(batch / 16));
  }
}
