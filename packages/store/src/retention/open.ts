/**
 * Retention and the budget of one store, as `openStore` starts them: the budget measured once
 * before the store is handed out (so the first admission already knows the size), and the passes
 * scheduled when the store was opened with retention options (a framework's store always is).
 */
import type { Client } from '@libsql/client';
import type { Kysely } from 'kysely';
import { errorSummary, type Logger } from '@fw/runtime';
import type { StoreSchema } from '../schema.js';
import { StorageBudget } from './budget.js';
import { PruneCounters } from './counters.js';
import { fileStoreMeasure, memoryStoreMeasure, postgresMeasure } from './measure.js';
import { Retention } from './retention.js';
import { defaultSettings, type BudgetSettings, type RetentionSettings } from './settings.js';
import { PRUNED_TABLES } from './tables.js';

/** `PRAGMA journal_size_limit` when nothing else is asked for (`fw.store.wal-limit`'s default). */
export const DEFAULT_WAL_LIMIT = 16_777_216;

export interface StoreRetentionOptions {
  settings: () => RetentionSettings;
  budget: () => BudgetSettings;
  /** The data directory the embedded store's budget counts (every file in it). */
  dataDir?: string;
  /** `PRAGMA journal_size_limit` of the embedded store (bytes). */
  walLimit?: number;
}

export interface OpenRetention {
  db: Kysely<StoreSchema>;
  kind: 'sqlite' | 'memory' | 'postgres';
  /** The embedded store's connection. */
  client: Client | undefined;
  /** The embedded file is in incremental auto-vacuum mode. */
  reclaims: boolean;
  file: string | undefined;
  /** Absent: the declared defaults, nothing scheduled. */
  options: StoreRetentionOptions | undefined;
  log: Logger;
}

export async function openRetention(o: OpenRetention): Promise<{ retention: Retention; budget: StorageBudget }> {
  const defaults = defaultSettings();
  const settings = o.options?.settings ?? (() => defaults.retention);
  const budget = new StorageBudget(o.options?.budget ?? (() => defaults.budget), o.log);
  const measure =
    o.kind === 'postgres'
      ? postgresMeasure(o.db)
      : o.file
        ? fileStoreMeasure(o.db, o.file, o.options?.dataDir, o.reclaims)
        : memoryStoreMeasure(o.db);
  const retention = new Retention({
    db: o.db,
    kind: o.kind,
    ...(o.client ? { client: o.client, reclaims: o.reclaims } : {}),
    measure,
    settings,
    budget,
    counters: new PruneCounters(PRUNED_TABLES),
    log: o.log,
  });
  try {
    await retention.measure();
  } catch (err) {
    o.log.warn({ error: errorSummary(err) }, 'store size could not be measured');
  }
  if (o.options) retention.start();
  return { retention, budget };
}
