/** A2A tasks: one row per task, the whole Task as JSON beside the columns that queries filter on. */
import type { Kysely, Selectable } from 'kysely';
import type { A2aTaskTable, StoreSchema } from './schema.js';

export type TaskRow = Selectable<A2aTaskTable>;

export interface TaskFilter {
  agent?: string;
  contextId?: string;
  state?: string;
  /** Only tasks updated at or after this time (epoch ms). */
  updatedAfter?: number;
  /** Only tasks of this owner (`principal:<id>`, `anonymous:<key>`). */
  owner?: string;
}

export class TaskRecords {
  constructor(private readonly db: Kysely<StoreSchema>) {}

  /** Inserts or replaces a task. */
  async put(row: TaskRow): Promise<void> {
    await this.db
      .insertInto('fw_a2a_tasks')
      .values(row)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          agent: row.agent,
          context_id: row.context_id,
          state: row.state,
          updated_at: row.updated_at,
          expires_at: row.expires_at,
          body: row.body,
          owner: row.owner,
        }),
      )
      .execute();
  }

  async get(id: string): Promise<TaskRow | undefined> {
    return this.db.selectFrom('fw_a2a_tasks').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async delete(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.db.deleteFrom('fw_a2a_tasks').where('id', 'in', ids).execute();
  }

  /** Newest first (by last update). */
  async list(filter: TaskFilter = {}, limit = 100): Promise<TaskRow[]> {
    let q = this.db.selectFrom('fw_a2a_tasks').selectAll();
    if (filter.agent) q = q.where('agent', '=', filter.agent);
    if (filter.contextId) q = q.where('context_id', '=', filter.contextId);
    if (filter.state) q = q.where('state', '=', filter.state);
    if (filter.updatedAfter !== undefined) q = q.where('updated_at', '>=', filter.updatedAfter);
    if (filter.owner) q = q.where('owner', '=', filter.owner);
    return q.orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /** Tasks of one context, oldest first (the conversation a new message continues). */
  async inContext(agent: string, contextId: string, limit: number): Promise<TaskRow[]> {
    const rows = await this.db
      .selectFrom('fw_a2a_tasks')
      .selectAll()
      .where('context_id', '=', contextId)
      .where('agent', '=', agent)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
    return rows.reverse();
  }

  /** Deletes finished tasks whose readable time is over; returns how many. */
  async deleteExpired(now: number): Promise<number> {
    const r = await this.db
      .deleteFrom('fw_a2a_tasks')
      .where('expires_at', 'is not', null)
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
