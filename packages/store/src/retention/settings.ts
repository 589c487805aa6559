/**
 * The numbers retention and the budget work with, read from `fw.config` on every pass (a changed
 * setting applies at the next pass) or, for a store opened on its own, the declared defaults.
 */
import { parseDuration, type Framework } from '@fw/runtime';
import { RETENTION_CONFIG } from './config.js';

/** One table's limits; 0 means "no limit" for either. */
export interface TableLimits {
  maxAgeMs: number;
  maxRows: number;
}

/** The tables retention prunes by its own limits (the journal has the agent module's). */
export type RetainedTable = 'runs' | 'sessions' | 'messages' | 'tasks' | 'tapes' | 'evals' | 'spend';

export interface RetentionSettings {
  /** Between scheduled passes; 0: only the pass at start. */
  intervalMs: number;
  /** Rows per delete transaction, at most. */
  batch: number;
  /** The longest a delete transaction should take: batches halve beyond it. */
  maxTransactionMs: number;
  /** Per table; `tapes`, `evals` and `spend` may be absent (settings written before them): no limit then. */
  limits: Record<Exclude<RetainedTable, 'tapes' | 'evals' | 'spend'>, TableLimits> & {
    tapes?: TableLimits;
    evals?: TableLimits;
    spend?: TableLimits;
  };
}

export interface BudgetSettings {
  /** 0: no budget (nothing refused, no pruning under pressure). */
  bytes: number;
  /** Fractions of `bytes`, `pruneAt` ≤ `refuseAt`. */
  pruneAt: number;
  refuseAt: number;
  checkIntervalMs: number;
  /** Embedded store: free bytes the data directory's filesystem must keep (0: not checked). */
  minFreeDisk: number;
}

type Read = (key: keyof typeof RETENTION_CONFIG) => number;

function build(read: Read): { retention: RetentionSettings; budget: BudgetSettings } {
  const limits = (t: RetainedTable): TableLimits => ({
    maxAgeMs: read(`fw.store.retention.${t}.max-age`),
    maxRows: Math.max(0, Math.floor(read(`fw.store.retention.${t}.max-rows`))),
  });
  const refuseAt = fraction(read('fw.store.budget-refuse-at'), 0.9);
  return {
    retention: {
      intervalMs: read('fw.store.retention.interval'),
      batch: Math.max(1, Math.floor(read('fw.store.retention.batch'))),
      maxTransactionMs: Math.max(1, read('fw.store.retention.max-transaction')),
      limits: {
        runs: limits('runs'),
        sessions: limits('sessions'),
        messages: limits('messages'),
        tasks: limits('tasks'),
        tapes: limits('tapes'),
        evals: limits('evals'),
        spend: limits('spend'),
      },
    },
    budget: {
      bytes: Math.max(0, read('fw.store.budget')),
      // Pruning under pressure starts no later than refusing does.
      pruneAt: Math.min(fraction(read('fw.store.budget-prune-at'), 0.8), refuseAt),
      refuseAt,
      checkIntervalMs: Math.max(10, read('fw.store.budget-check-interval')),
      minFreeDisk: Math.max(0, read('fw.store.min-free-disk')),
    },
  };
}

/** A fraction in (0, 1]; anything else falls back to the default. */
function fraction(v: number, fallback: number): number {
  return Number.isFinite(v) && v > 0 && v <= 1 ? v : fallback;
}

/** The settings `fw`'s configuration gives (the keys must be declared: `storeOptions` does it). */
export function configuredSettings(fw: Framework): { retention: () => RetentionSettings; budget: () => BudgetSettings } {
  const read: Read = (key) => fw.config.get(key);
  return { retention: () => build(read).retention, budget: () => build(read).budget };
}

/** The declared defaults, for a store opened without a framework. */
export function defaultSettings(): { retention: RetentionSettings; budget: BudgetSettings } {
  return build((key) => {
    const def = RETENTION_CONFIG[key];
    return def.type === 'duration' ? (parseDuration(def.default) ?? 0) : Number(def.default);
  });
}
