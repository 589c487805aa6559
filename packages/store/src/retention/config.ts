import { defineConfig } from '@fw/runtime';

/**
 * Retention and the storage budget (issue 24): how long and how many finished records each table
 * keeps, and how many bytes the whole store may take. Part of `STORE_CONFIG` (docs/configuration.md,
 * docs/agents.md "Retention", docs/operations.md "Disk budget"). The coordination journal keeps its
 * own keys (`fw.agent.journal.max-age` / `max-events`); the admin audit log its own
 * (`fw.admin.audit.*`); both count toward the budget.
 */
export const RETENTION_CONFIG = defineConfig({
  'fw.store.retention.interval': {
    type: 'duration',
    default: '60s',
    description:
      'How often store retention runs (it also runs at start, and at once when the store passes fw.store.budget-prune-at); 0 = only at start',
  },
  'fw.store.retention.batch': {
    type: 'number',
    default: 500,
    description:
      'Rows retention deletes per transaction at most: small batches, with the event loop free between them, never hold the write lock long (see fw.store.retention.max-transaction)',
  },
  'fw.store.retention.max-transaction': {
    type: 'duration',
    default: '25ms',
    description:
      'How long one retention delete transaction should hold the write lock: a table whose batches take longer halves them (down to one row), and doubles them back to fw.store.retention.batch while they take under a quarter of it',
  },
  'fw.store.retention.runs.max-age': {
    type: 'duration',
    default: '168h',
    description: 'Finished agent runs (fw_agent_runs) older than this are deleted (0 = no age limit); running ones never are',
  },
  'fw.store.retention.runs.max-rows': {
    type: 'number',
    default: 100_000,
    description: 'Agent runs kept: beyond it the oldest finished runs are deleted (0 = no count limit)',
  },
  'fw.store.retention.sessions.max-age': {
    type: 'duration',
    default: '168h',
    description: 'Chat sessions that ended longer ago than this are deleted with their messages (0 = no age limit); open ones never are',
  },
  'fw.store.retention.sessions.max-rows': {
    type: 'number',
    default: 20_000,
    description: 'Chat sessions kept: beyond it the oldest ended sessions are deleted with their messages (0 = no count limit)',
  },
  'fw.store.retention.messages.max-age': {
    type: 'duration',
    default: '168h',
    description: 'Chat messages older than this are deleted, except those of open sessions (0 = no age limit)',
  },
  'fw.store.retention.messages.max-rows': {
    type: 'number',
    default: 200_000,
    description: 'Chat messages kept: beyond it the oldest messages of ended sessions are deleted (0 = no count limit)',
  },
  'fw.store.retention.tasks.max-age': {
    type: 'duration',
    default: '24h',
    description:
      'Finished A2A tasks last updated longer ago than this are deleted (0 = no age limit); live ones never are, expired ones (fw.agent.tasks.terminal-ttl) always are',
  },
  'fw.store.retention.tasks.max-rows': {
    type: 'number',
    default: 10_000,
    description: 'A2A tasks kept in the store: beyond it the oldest finished tasks are deleted (0 = no count limit)',
  },
  'fw.store.retention.tapes.max-age': {
    type: 'duration',
    default: '168h',
    description:
      'Taped agent runs (fw_tape_runs, with their steps) that ended longer ago than this are deleted (0 = no age limit); open ones never are',
  },
  'fw.store.retention.tapes.max-rows': {
    type: 'number',
    default: 10_000,
    description: 'Taped agent runs kept: beyond it the oldest ended runs are deleted with their steps (0 = no count limit)',
  },
  'fw.store.retention.evals.max-age': {
    type: 'duration',
    default: '720h',
    description:
      'Eval runs (fw_eval_runs, with their results) that ended longer ago than this are deleted (0 = no age limit); running ones never are, dataset cases never are',
  },
  'fw.store.retention.evals.max-rows': {
    type: 'number',
    default: 1000,
    description: 'Eval runs kept: beyond it the oldest ended runs are deleted with their results (0 = no count limit)',
  },
  'fw.store.retention.spend.max-age': {
    type: 'duration',
    default: '2160h',
    description:
      "Daily spend rows (fw_spend_daily: tokens and USD per day, agent, principal and model) of days that ended longer ago than this are deleted (0 = no age limit); today's rows never are (per-day budgets count them)",
  },
  'fw.store.retention.spend.max-rows': {
    type: 'number',
    default: 100_000,
    description: "Daily spend rows kept: beyond it the oldest days' rows are deleted (0 = no count limit); today's rows never are",
  },
  'fw.store.budget': {
    type: 'number',
    default: 536_870_912,
    description:
      'Bytes the store may take: the data directory (SQLite file, WAL, audit file) or, on PostgreSQL, the relations of fw tables; 0 = no budget',
  },
  'fw.store.budget-prune-at': {
    type: 'number',
    default: 0.8,
    description:
      'Fraction of fw.store.budget at which retention deletes the oldest finished records of every table, beyond their age and count limits, until the store is below it again',
  },
  'fw.store.budget-refuse-at': {
    type: 'number',
    default: 0.9,
    description:
      'Fraction of fw.store.budget from which new work (A2A sends, AG-UI runs, chat sessions and turns) is refused with 503 storage_budget_exceeded, until the store is back below fw.store.budget-prune-at; the rest is headroom for work in flight',
  },
  'fw.store.budget-check-interval': {
    type: 'duration',
    default: '1s',
    description: 'How often the size of the store is measured for the budget',
  },
  'fw.store.min-free-disk': {
    type: 'number',
    default: 67_108_864,
    description:
      'Embedded store: new work is also refused while the filesystem of fw.data-dir has fewer free bytes than this (0 = not checked)',
  },
  'fw.store.wal-limit': {
    type: 'number',
    default: 16_777_216,
    description: 'Embedded store: bytes the SQLite WAL file is truncated back to after each checkpoint (PRAGMA journal_size_limit)',
  },
});
