/**
 * Deleting many rows without stopping anything else: the keys of the next `batch` rows are read,
 * then deleted in one short transaction that checks again that each row may go, and the event
 * loop gets a turn before the next batch. On the embedded store every statement runs on the event
 * loop's thread and the one connection is held for the whole transaction, so the size of a batch
 * bounds both the stall and the time writers wait (measured: `PruneCounters.longestTransactionMs`).
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

/**
 * Deletes up to `max` rows (Infinity: all that `select` finds) in batches of `batch`; returns how
 * many rows of the first table `remove` reports went. `stopped()` is asked between batches (the
 * store is closing).
 */
export async function deleteInBatches<K>(
  db: Kysely<StoreSchema>,
  counters: PruneCounters,
  batch: number,
  max: number,
  op: BatchDelete<K>,
  stopped: () => boolean = () => false,
): Promise<number> {
  let deleted = 0;
  while (deleted < max && !stopped()) {
    const n = Math.min(batch, max - deleted);
    const keys = await op.select(n);
    if (keys.length === 0) break;
    const started = performance.now();
    const rows = await db.transaction().execute((tx) => op.remove(tx, keys));
    counters.record(rows, performance.now() - started);
    const first = Object.values(rows)[0] ?? 0;
    deleted += first;
    await yieldToLoop();
    // Fewer than asked for: nothing older is left. None deleted: every row read was taken back
    // (a session resumed, …) between the read and the delete; the next pass tries again.
    if (keys.length < n || first === 0) break;
  }
  return deleted;
}
