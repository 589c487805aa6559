/**
 * The store's figures on fw's Prometheus registry (docs/operations.md, "Disk budget"): read at
 * scrape time from what retention and the budget keep anyway.
 */
import type { Framework } from '@fw/runtime';
import type { StorageBudget } from './budget.js';
import type { PruneCounters } from './counters.js';

export function storeMetrics(fw: Framework, budget: StorageBudget, counters: PruneCounters): () => void {
  const m = fw.metrics;
  if (!m.enabled) return () => {};
  const removers = [
    m.labelledCounter('fw_store_pruned_rows_total', 'Rows deleted by store retention, per table', ['table'], () =>
      [...counters.pruned].map(([table, n]): [{ table: string }, number] => [{ table }, n]),
    ),
    m.gauge('fw_store_bytes', 'Bytes the store takes: the data directory (embedded) or the relations of fw tables (PostgreSQL)', () =>
      Number(budget.state().size?.bytes ?? 0),
    ),
    m.gauge(
      'fw_store_used_bytes',
      'Bytes of the store the budget counts (embedded: without SQLite free pages; PostgreSQL: relations scaled by how full their tables are)',
      () => Number(budget.state().size?.usedBytes ?? 0),
    ),
    m.gauge('fw_store_budget_bytes', 'The storage budget (fw.store.budget; 0 = none)', () => budget.bytes()),
    m.gauge('fw_store_budget_refusing', '1 while new work is refused by the storage budget or the free-disk floor', () =>
      budget.state().refusing ? 1 : 0,
    ),
    m.counter('fw_store_budget_refusals_total', 'New work refused with storage_budget_exceeded', () => budget.refusals),
    m.gauge(
      'fw_store_prune_longest_transaction_seconds',
      'The longest delete transaction of the last retention pass (the write lock it held)',
      () => counters.lastPassLongestTransactionMs / 1000,
    ),
    m.counter(
      'fw_store_reclaimed_bytes_total',
      'Bytes the embedded store gave back to the filesystem after deletes',
      () => counters.reclaimedBytes,
    ),
    m.counter('fw_store_retention_passes_total', 'Store retention passes', () => counters.passes),
    m.counter('fw_store_retention_failures_total', 'Store retention passes that failed (each is logged)', () => counters.failures),
  ];
  return () => {
    for (const remove of removers) remove();
  };
}
