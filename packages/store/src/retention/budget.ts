/**
 * The storage budget: new work is refused BEFORE the store reaches its budget, so that what is
 * already running has room to finish (its last writes, the run's end, the task's result).
 *
 * `admit()` is what the agent layer calls where new work starts (an A2A send, an AG-UI run, a chat
 * session and each chat turn). It is synchronous and cheap: it reads the last measurement (taken
 * every `fw.store.budget-check-interval`, and at once when an admission finds it older; on the
 * embedded store the SQLite file and WAL are also read at each admission, three stat calls) and throws
 * {@link StorageBudgetExceededError} from the time the store reaches `fw.store.budget-refuse-at`
 * of `fw.store.budget` until it is back below `fw.store.budget-prune-at`, and while the data
 * directory's disk is below `fw.store.min-free-disk`. The headroom between refuse-at and the
 * budget must hold what is written between two measurements plus the work in flight.
 *
 * 503 with Retry-After, not 507: the condition is the server's and it passes by itself (retention
 * deletes old records and runs at once under pressure), which is what 503 + Retry-After tells
 * every HTTP client, SDK retry policy and load balancer; 507 (WebDAV, RFC 4918) means "this
 * request's representation cannot be stored" and generic clients neither retry it nor read a
 * Retry-After on it. The same as the tenancy toolkit's `capacity_exhausted`.
 */
import { FwError, type Logger } from '@fw/runtime';
import type { BudgetSettings } from './settings.js';
import type { StoreSize } from './measure.js';

export type BudgetLimit = 'fw.store.budget' | 'fw.store.min-free-disk';

/** New work refused: the store is near its budget, or the disk near full. 503 with Retry-After. */
export class StorageBudgetExceededError extends FwError {
  constructor(
    readonly limit: BudgetLimit,
    retryAfterSeconds: number,
  ) {
    // What a client may know: which limit and when to try again. Sizes, paths and free space
    // are for the operator (logs, metrics), not for whoever is filling the store.
    super(
      'storage_budget_exceeded',
      limit === 'fw.store.budget'
        ? 'the server is at its storage budget (fw.store.budget): new work is refused until retention frees space; try again later'
        : 'the server is nearly out of disk space (fw.store.min-free-disk): new work is refused; try again later',
      503,
      { limit },
      { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    );
  }
}

export interface BudgetState {
  /** The last measurement (undefined before the first). */
  size: StoreSize | undefined;
  measuredAt: number;
  /** The limit new work is refused by, if any. */
  refusing: BudgetLimit | undefined;
}

export class StorageBudget {
  private size: StoreSize | undefined;
  private measuredAt = 0;
  private refusingBy: BudgetLimit | undefined;
  /** Admissions refused since the store opened. */
  refusals = 0;
  /** Set by retention: measures again (deduplicated) and runs a pass under pressure. */
  refresh: () => void = () => {};
  /** Set by retention where the store has one: the present size, read synchronously at each admission. */
  quick: (() => StoreSize | undefined) | undefined;
  /** Seconds a refused client is told to wait (until the next retention pass). */
  retryAfterSeconds: () => number = () => 60;

  constructor(
    private readonly settings: () => BudgetSettings,
    private readonly log: Logger,
  ) {}

  /** Throws {@link StorageBudgetExceededError} when new work must wait. */
  admit(): void {
    const present = this.quick?.();
    if (present) this.decide(present);
    if (Date.now() - this.measuredAt > this.settings().checkIntervalMs) this.refresh();
    if (this.refusingBy) {
      this.refusals++;
      throw new StorageBudgetExceededError(this.refusingBy, this.retryAfterSeconds());
    }
  }

  /** True when `size` is past the point where retention must delete beyond its limits. */
  underPressure(size: StoreSize): boolean {
    const { bytes, pruneAt } = this.settings();
    return bytes > 0 && size.usedBytes >= bytes * pruneAt;
  }

  /** The bytes to get below (pressure pruning stops there). */
  pressureMark(): number {
    const { bytes, pruneAt } = this.settings();
    return bytes * pruneAt;
  }

  /** Takes a new (full) measurement: decides whether new work is refused, and logs each change. */
  update(size: StoreSize, at = Date.now()): void {
    this.measuredAt = at;
    this.decide(size);
  }

  private decide(size: StoreSize): void {
    this.size = size;
    const { bytes, refuseAt, pruneAt, minFreeDisk } = this.settings();
    // High and low water: refused from refuse-at, accepted again only below prune-at (where
    // pressure pruning stops), so a store hovering at the mark does not let work in and out
    // between two measurements while it is filled faster than it is measured.
    const low = this.refusingBy === 'fw.store.budget' ? pruneAt : refuseAt;
    const next: BudgetLimit | undefined =
      bytes > 0 && size.usedBytes >= bytes * low
        ? 'fw.store.budget'
        : minFreeDisk > 0 && size.freeDiskBytes !== undefined && size.freeDiskBytes < minFreeDisk
          ? 'fw.store.min-free-disk'
          : undefined;
    if (next === this.refusingBy) return;
    const facts = { bytes: size.bytes, usedBytes: size.usedBytes, budget: bytes, refuseAt, freeDiskBytes: size.freeDiskBytes, minFreeDisk };
    if (next) this.log.warn({ ...facts, limit: next }, 'store: new work is refused (storage budget)');
    else this.log.info(facts, 'store: back under its storage budget; new work is accepted again');
    this.refusingBy = next;
  }

  state(): BudgetState {
    return { size: this.size, measuredAt: this.measuredAt, refusing: this.refusingBy };
  }

  /** Between two measurements, in ms. */
  checkIntervalMs(): number {
    return this.settings().checkIntervalMs;
  }

  /** The configured budget in bytes (0: none). */
  bytes(): number {
    return this.settings().bytes;
  }
}
