/**
 * What retention did, for metrics (`fw_store_pruned_rows_total{table}`, …), logs and benchmarks.
 * Shared by every deleter of the store (the scheduled passes and the journal's own retention).
 */
export class PruneCounters {
  /** Rows deleted per table since the store opened (every table of the store has an entry). */
  readonly pruned = new Map<string, number>();
  /** The longest delete transaction so far and in the last pass, in ms (the write lock it held). */
  longestTransactionMs = 0;
  lastPassLongestTransactionMs = 0;
  /** Bytes the embedded store gave back to the filesystem (incremental vacuum, WAL truncation). */
  reclaimedBytes = 0;
  /** The longest step of giving space back (one vacuum chunk and its checkpoint), in ms. */
  longestReclaimStepMs = 0;
  /** Delete transactions so far (one per batch). */
  transactions = 0;
  passes = 0;
  /** Passes that failed (each is also logged). */
  failures = 0;

  constructor(tables: readonly string[]) {
    for (const t of tables) this.pruned.set(t, 0);
  }

  /** One delete transaction: `rows` deleted per table, holding the lock `ms`. */
  record(rows: Readonly<Record<string, number>>, ms: number): void {
    for (const [table, n] of Object.entries(rows)) this.pruned.set(table, (this.pruned.get(table) ?? 0) + n);
    this.transactions++;
    this.longestTransactionMs = Math.max(this.longestTransactionMs, ms);
    this.lastPassLongestTransactionMs = Math.max(this.lastPassLongestTransactionMs, ms);
  }

  total(): number {
    let n = 0;
    for (const v of this.pruned.values()) n += v;
    return n;
  }
}
