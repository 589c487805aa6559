/**
 * Human approvals (issue 26, item 5): a tool call, or a dangerous admin action, that waits for an
 * operator's decision. Kept in the store so that a restart keeps an approval pending (and its
 * expiry still denies it); decided ones are pruned after their retention by the admin plane's
 * sweep (`fw.governance.approval-retention`). A decision is one conditional update
 * (`status = 'pending'`), so two operators, or two nodes sharing a database, cannot both decide.
 */
import type { Kysely, Migration } from 'kysely';
import type { StoreSchema } from './schema.js';

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired';

export interface ApprovalTable {
  id: string;
  /** The run that waits (a tool call), or null for an admin action (`fw.admin.mcp-approval`). */
  run_id: string | null;
  /** The agent whose tool waits; `fw-admin` for an admin action. */
  agent: string;
  tool: string;
  /** The arguments as JSON. */
  arguments: string;
  principal: string | null;
  /** chat, a2a, agui, mcp, dispatch, or admin-mcp. */
  surface: string | null;
  status: ApprovalStatus;
  /** Why it needs approval (the tool's or the policy's reason) until decided, then the decision's reason. */
  reason: string | null;
  requested_at: number;
  expires_at: number;
  decided_at: number | null;
  decided_by: string | null;
}

interface ApprovalSchema {
  fw_approvals: ApprovalTable;
}

/** Migration 0012: the approvals table. */
export const approvalsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('fw_approvals')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('run_id', 'text')
      .addColumn('agent', 'text', (c) => c.notNull())
      .addColumn('tool', 'text', (c) => c.notNull())
      .addColumn('arguments', 'text', (c) => c.notNull())
      .addColumn('principal', 'text')
      .addColumn('surface', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('requested_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('decided_at', 'bigint')
      .addColumn('decided_by', 'text')
      .execute();
    await db.schema.createIndex('fw_approvals_status').on('fw_approvals').columns(['status', 'expires_at']).execute();
    await db.schema.createIndex('fw_approvals_requested').on('fw_approvals').column('requested_at').execute();
  },
};

/** Reads and writes approvals; built on the store's query builder (`store.db`). */
export class ApprovalRecords {
  private readonly db: Kysely<ApprovalSchema>;

  constructor(db: Kysely<StoreSchema>) {
    // The table comes from this file's migration; the store's own schema type does not list it.
    this.db = db as unknown as Kysely<ApprovalSchema>;
  }

  async insert(row: ApprovalTable): Promise<void> {
    await this.db.insertInto('fw_approvals').values(row).execute();
  }

  async get(id: string): Promise<ApprovalTable | undefined> {
    const row = await this.db.selectFrom('fw_approvals').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? normalize(row) : undefined;
  }

  /** Newest first, optionally of one status. */
  async list(status: ApprovalStatus | undefined, limit: number): Promise<ApprovalTable[]> {
    let q = this.db.selectFrom('fw_approvals').selectAll();
    if (status) q = q.where('status', '=', status);
    const rows = await q.orderBy('requested_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(normalize);
  }

  /**
   * Decides a pending approval; answers the row as it is now, and whether this call decided it
   * (false: it was decided before, by someone else or by its expiry).
   */
  async decide(
    id: string,
    decision: { status: Exclude<ApprovalStatus, 'pending'>; reason: string | null; decidedAt: number; decidedBy: string | null },
  ): Promise<{ row: ApprovalTable | undefined; decided: boolean }> {
    const result = await this.db
      .updateTable('fw_approvals')
      .set({ status: decision.status, reason: decision.reason, decided_at: decision.decidedAt, decided_by: decision.decidedBy })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return { row: await this.get(id), decided: Number(result.numUpdatedRows) > 0 };
  }

  /** Pending approvals whose time ran out by `now` (at most `limit`). */
  async due(now: number, limit: number): Promise<ApprovalTable[]> {
    const rows = await this.db
      .selectFrom('fw_approvals')
      .selectAll()
      .where('status', '=', 'pending')
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map(normalize);
  }

  /** Deletes decided approvals decided before `before`; answers how many. */
  async prune(before: number): Promise<number> {
    const result = await this.db
      .deleteFrom('fw_approvals')
      .where('status', '!=', 'pending')
      .where('decided_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** PostgreSQL answers bigint columns as strings. */
function normalize(row: ApprovalTable): ApprovalTable {
  return {
    ...row,
    requested_at: Number(row.requested_at),
    expires_at: Number(row.expires_at),
    decided_at: row.decided_at === null ? null : Number(row.decided_at),
  };
}
