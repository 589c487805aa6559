/**
 * The store's versioned migrations: one list for both dialects, applied in order at start by
 * Kysely's Migrator (which records them in `fw_migrations` and takes a lock, so a second process
 * starting at the same moment waits instead of applying twice). Never edit a released migration:
 * add the next one. Tables for MCP tasks come as a later migration.
 */
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { governanceMigration } from './governance.js';
import { spendMigration } from './spend.js';
import { approvalsMigration } from './approvals.js';

const initial: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('fw_a2a_tasks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('agent', 'text', (c) => c.notNull())
      .addColumn('context_id', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint')
      .addColumn('body', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('fw_a2a_tasks_agent_updated').on('fw_a2a_tasks').columns(['agent', 'updated_at']).execute();
    await db.schema.createIndex('fw_a2a_tasks_context').on('fw_a2a_tasks').columns(['context_id', 'created_at']).execute();
    await db.schema.createIndex('fw_a2a_tasks_state').on('fw_a2a_tasks').column('state').execute();

    await db.schema
      .createTable('fw_agent_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('agent', 'text', (c) => c.notNull())
      .addColumn('resource_uuid', 'text')
      .addColumn('owner', 'text')
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('last_activity_at', 'bigint', (c) => c.notNull())
      .addColumn('ended_at', 'bigint')
      .addColumn('end_reason', 'text')
      .addColumn('message_count', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('fw_agent_sessions_agent').on('fw_agent_sessions').columns(['agent', 'last_activity_at']).execute();
    await db.schema.createIndex('fw_agent_sessions_open').on('fw_agent_sessions').column('ended_at').execute();

    await db.schema
      .createTable('fw_agent_session_messages')
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('fw_agent_session_messages_pk', ['session_id', 'seq'])
      .execute();

    await db.schema
      .createTable('fw_agent_journal')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('coordination_id', 'text', (c) => c.notNull())
      .addColumn('coordinator', 'text', (c) => c.notNull())
      .addColumn('agent', 'text', (c) => c.notNull())
      .addColumn('other', 'text')
      .addColumn('body', 'text', (c) => c.notNull())
      .execute();
    // Every filter of a journal page walks one of these backwards by id (newest first).
    await db.schema.createIndex('fw_agent_journal_at').on('fw_agent_journal').column('at').execute();
    await db.schema.createIndex('fw_agent_journal_coordination').on('fw_agent_journal').columns(['coordination_id', 'id']).execute();
    await db.schema.createIndex('fw_agent_journal_agent').on('fw_agent_journal').columns(['agent', 'id']).execute();
    await db.schema.createIndex('fw_agent_journal_coordinator').on('fw_agent_journal').columns(['coordinator', 'id']).execute();
    await db.schema.createIndex('fw_agent_journal_other').on('fw_agent_journal').columns(['other', 'id']).execute();
    await db.schema.createIndex('fw_agent_journal_kind').on('fw_agent_journal').columns(['kind', 'id']).execute();

    await db.schema
      .createTable('fw_agent_runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('agent', 'text', (c) => c.notNull())
      .addColumn('protocol', 'text', (c) => c.notNull())
      .addColumn('ref', 'text')
      .addColumn('coordination_id', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('ended_at', 'bigint')
      .addColumn('error', 'text')
      .execute();
    await db.schema.createIndex('fw_agent_runs_state').on('fw_agent_runs').column('state').execute();
    await db.schema.createIndex('fw_agent_runs_agent').on('fw_agent_runs').columns(['agent', 'started_at']).execute();
  },
};

/**
 * The journal at scale (measured in bench/journal): an agent filter over three columns made
 * SQLite sort the union of three index scans (200 ms a page at 1 M events). Each event's parties
 * get a row of their own, walked by `(party, id)`; time ranges become id ranges through
 * `(at, id)` (the journal's timestamps never go backwards). The per-column indexes go.
 */
const journalParties: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('fw_agent_journal_parties')
      .addColumn('party', 'text', (c) => c.notNull())
      .addColumn('id', 'bigint', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('fw_agent_journal_parties_pk', ['party', 'id'])
      .execute();
    await db.schema.createIndex('fw_agent_journal_parties_kind').on('fw_agent_journal_parties').columns(['party', 'kind', 'id']).execute();
    await db.schema.createIndex('fw_agent_journal_parties_id').on('fw_agent_journal_parties').column('id').execute();
    await sql`INSERT INTO fw_agent_journal_parties (party, id, kind)
      SELECT agent, id, kind FROM fw_agent_journal
      UNION SELECT coordinator, id, kind FROM fw_agent_journal
      UNION SELECT other, id, kind FROM fw_agent_journal WHERE other IS NOT NULL`.execute(db);
    for (const index of ['fw_agent_journal_agent', 'fw_agent_journal_coordinator', 'fw_agent_journal_other', 'fw_agent_journal_at']) {
      await db.schema.dropIndex(index).execute();
    }
    await db.schema.createIndex('fw_agent_journal_at_id').on('fw_agent_journal').columns(['at', 'id']).execute();
  },
};

/** The admin audit log (issue 16): a production deployment keeps it in its PostgreSQL. */
const adminAudit: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('fw_admin_audit')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('seq', 'bigint', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('principal', 'text')
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .execute();
    // Loading the newest records and pruning the oldest both walk it by time.
    await db.schema.createIndex('fw_admin_audit_at').on('fw_admin_audit').columns(['at', 'seq']).execute();
  },
};

/**
 * Owners of agent work (issue 24): every A2A task and agent run records who created it, so that
 * every list, read and cancel can be filtered by it (`principal:<id>`, or `anonymous:<key>`).
 * Rows written before have none and belong to nobody (only operators see them). Sessions had an
 * owner column already, holding the bare principal id: it gets the same `principal:` form. An
 * anonymous session's owner was null and stays null, so an old anonymous session id no longer
 * resumes anything (the client gets a new session), which is the safe reading of "no owner".
 */
const owners: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('fw_a2a_tasks').addColumn('owner', 'text').execute();
    await db.schema.alterTable('fw_agent_runs').addColumn('owner', 'text').execute();
    await db.schema.createIndex('fw_a2a_tasks_owner').on('fw_a2a_tasks').columns(['owner', 'updated_at']).execute();
    await db.schema.createIndex('fw_agent_runs_owner').on('fw_agent_runs').columns(['owner', 'started_at']).execute();
    await sql`UPDATE fw_agent_sessions SET owner = 'principal:' || owner
      WHERE owner IS NOT NULL AND owner NOT LIKE 'principal:%' AND owner NOT LIKE 'anonymous:%'`.execute(db);
  },
};

/**
 * Retention (issue 24) deletes the oldest finished rows of each table in batches: each batch is
 * one walk down an index on the time it orders by, never a scan and sort of the table. Sessions
 * already have theirs (`fw_agent_sessions_open`, on `ended_at`); the journal walks its ids.
 */
const retention: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.createIndex('fw_agent_runs_ended').on('fw_agent_runs').column('ended_at').execute();
    await db.schema.createIndex('fw_agent_session_messages_at').on('fw_agent_session_messages').column('at').execute();
    await db.schema.createIndex('fw_a2a_tasks_expires').on('fw_a2a_tasks').column('expires_at').execute();
    await db.schema.createIndex('fw_a2a_tasks_updated').on('fw_a2a_tasks').column('updated_at').execute();
  },
};

/**
 * Audit retention classes (issue 24): refusals are aggregated records kept apart from the write,
 * credential and configuration records, each class pruned to its own cap, so a flood of refusals
 * never deletes a write record. Earlier rows are classified by their outcome.
 */
const auditClasses: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('fw_admin_audit')
      .addColumn('class', 'text', (c) => c.notNull().defaultTo('action'))
      .execute();
    await sql`UPDATE fw_admin_audit SET class = 'refusal' WHERE outcome NOT IN ('allowed', 'failed')`.execute(db);
    // Loading and pruning now walk one class by time.
    await db.schema.createIndex('fw_admin_audit_class_at').on('fw_admin_audit').columns(['class', 'at', 'seq']).execute();
  },
};

/**
 * The run tape (issue 27): one row per recorded agent run (its status moves from `open` to one
 * terminal state) and its typed steps, numbered per run. Self-contained: nothing else refers to
 * these tables, so the migration can be renumbered freely before a release.
 */
const tape: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('fw_tape_runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('agent', 'text', (c) => c.notNull())
      .addColumn('protocol', 'text')
      .addColumn('ref', 'text')
      .addColumn('owner', 'text')
      .addColumn('principal', 'text')
      .addColumn('parent_run_id', 'text')
      .addColumn('coordination_id', 'text')
      .addColumn('session_id', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('ended_at', 'bigint')
      .addColumn('duration_ms', 'integer')
      .addColumn('input_tokens', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('output_tokens', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('steps', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('error', 'text')
      .execute();
    await db.schema.createIndex('fw_tape_runs_started').on('fw_tape_runs').column('started_at').execute();
    await db.schema.createIndex('fw_tape_runs_ended').on('fw_tape_runs').column('ended_at').execute();
    await db.schema.createIndex('fw_tape_runs_parent').on('fw_tape_runs').column('parent_run_id').execute();
    await db.schema
      .createTable('fw_tape_steps')
      .addColumn('run_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('duration_ms', 'integer')
      .addColumn('body', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('fw_tape_steps_pk', ['run_id', 'seq'])
      .execute();
  },
};

/**
 * The store's write probe (health.ts): one row per store, written every `fw.store.probe-interval`,
 * so readiness knows the store takes writes (a full disk, a read-only replica, a server gone).
 */
const probe: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('fw_store_probe')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();
  },
};

/**
 * Evals (issue 27): dataset cases (an input and the output expected, often promoted from a taped
 * run), eval runs of a dataset against an agent with a scorer, and each case's result. A run's
 * pass rate over time is its dataset's baseline. Self-contained like the tape's: nothing else
 * refers to these tables (a case keeps the id of the run it came from, not a foreign key, since
 * retention may delete that run).
 */
const evals: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('fw_eval_cases')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('dataset', 'text', (c) => c.notNull())
      .addColumn('input', 'text', (c) => c.notNull())
      .addColumn('expected', 'text', (c) => c.notNull())
      .addColumn('source_run_id', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('fw_eval_cases_dataset').on('fw_eval_cases').columns(['dataset', 'created_at']).execute();
    await db.schema
      .createTable('fw_eval_runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('dataset', 'text', (c) => c.notNull())
      .addColumn('agent', 'text', (c) => c.notNull())
      .addColumn('scorer', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('ended_at', 'bigint')
      .addColumn('cases', 'integer', (c) => c.notNull())
      .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('passed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('error', 'text')
      .execute();
    await db.schema.createIndex('fw_eval_runs_started').on('fw_eval_runs').column('started_at').execute();
    await db.schema
      .createTable('fw_eval_results')
      .addColumn('eval_run_id', 'text', (c) => c.notNull())
      .addColumn('case_id', 'text', (c) => c.notNull())
      .addColumn('run_id', 'text')
      .addColumn('output', 'text')
      .addColumn('passed', 'integer', (c) => c.notNull())
      .addColumn('detail', 'text')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('fw_eval_results_pk', ['eval_run_id', 'case_id'])
      .execute();
  },
};

/** Every migration, by name; names sort in the order they apply. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-initial': initial,
  '0002-journal-parties': journalParties,
  '0003-admin-audit': adminAudit,
  '0004-owners': owners,
  '0005-retention': retention,
  '0006-audit-classes': auditClasses,
  '0007-tape': tape,
  '0008-governance': governanceMigration,
  '0009-store-probe': probe,
  '0010-evals': evals,
  '0011-spend': spendMigration,
  '0012-approvals': approvalsMigration,
};

class StaticProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return { ...MIGRATIONS };
  }
}

/** Applies the migrations not applied yet; returns the names applied now (empty when up to date). */
export async function migrate(db: Kysely<unknown>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: new StaticProvider(),
    migrationTableName: 'fw_migrations',
    migrationLockTableName: 'fw_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
