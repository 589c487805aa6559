/**
 * @fw/store: fw's durable state on embedded SQLite (libSQL) or PostgreSQL, one schema and one set
 * of migrations (Kysely). See docs/agents.md ("Durable state") and docs/architecture.md.
 */
import './seams.js'; // the store in the kernel's typed service map
export {
  openStore,
  useStore,
  releaseStore,
  storeOptions,
  dataDir,
  redact,
  type FwStore,
  type StoreKind,
  type StoreOptions,
} from './store.js';
export type { StoreRetentionOptions } from './retention/open.js';
export { STORE_CONFIG } from './config.js';
export { MIGRATIONS, migrate } from './migrations.js';
export { LibsqlDialect } from './libsql-dialect.js';
export { WriteQueue, type StoreWrite, type Transact } from './write-queue.js';
export { StoreHealth, type StoreHealthSettings, type StoreFault } from './health.js';
export { StoreUnavailableError, faultOf, faultAdvice, type FaultKind } from './faults.js';
export { writerOn, type StoreWriter } from './writer.js';
export { TaskRecords, type TaskRow, type TaskFilter } from './tasks.js';
export { SessionRecords, type SessionRow, type SessionMessageRow } from './sessions.js';
export { RunRecords, type RunRow } from './runs.js';
export { JournalRecords, type JournalRow, type JournalFilter, type JournalPageRequest, type JournalRowPage } from './journal.js';
export { EvalRecords, type EvalCaseRow, type EvalRunRow, type EvalResultRow, type NewEvalRun } from './evals.js';
export { TapeRecords, type TapeRunRow, type TapeStepRow, type NewTapeRun, type TapeRunFilter, type TapeRunEnd } from './tape.js';
export { AuditRecords, type AuditRow, type NewAuditRow } from './audit.js';
export { GovernanceRecords, type GovernanceStateTable } from './governance.js';
export { SpendRecords, spendDayOf, type SpendDailyTable, type SpendDelta, type SpendGroup, type SpendTotals } from './spend.js';
export { ApprovalRecords, type ApprovalStatus, type ApprovalTable } from './approvals.js';
export { StorageBudget, StorageBudgetExceededError, type BudgetLimit, type BudgetState } from './retention/budget.js';
export { Retention, type PassReport } from './retention/retention.js';
export { PruneCounters } from './retention/counters.js';
export { BatchDeleter, type BatchDelete, type BatchLimits } from './retention/batches.js';
export { RETENTION_CONFIG } from './retention/config.js';
export type { StoreSize } from './retention/measure.js';
export type { BudgetSettings, RetentionSettings, TableLimits, RetainedTable } from './retention/settings.js';
export { PRUNED_TABLES, type PrunedTable } from './retention/tables.js';
export type * from './schema.js';
