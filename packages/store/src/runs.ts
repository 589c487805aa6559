/**
 * Agent runs: one row per run of an agent on any protocol (A2A task, AG-UI run, chat prompt),
 * written when it starts and when it ends. What is still `running` when a store opens was cut off
 * by a crash: `interruptRunning` settles it.
 */
import type { Kysely, Selectable } from 'kysely';
import type { AgentRunTable, StoreSchema } from './schema.js';

export type RunRow = Selectable<AgentRunTable>;

export class RunRecords {
  constructor(private readonly db: Kysely<StoreSchema>) {}

  async start(row: RunRow): Promise<void> {
    await this.db
      .insertInto('fw_agent_runs')
      .values(row)
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  async finish(id: string, state: string, at: number, error: string | null = null): Promise<void> {
    await this.db
      .updateTable('fw_agent_runs')
      .set({ state, ended_at: at, error })
      .where('id', '=', id)
      .where('state', '=', 'running')
      .execute();
  }

  async get(id: string): Promise<RunRow | undefined> {
    return this.db.selectFrom('fw_agent_runs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Newest first. */
  async list(filter: { agent?: string; protocol?: string; state?: string; owner?: string } = {}, limit = 100): Promise<RunRow[]> {
    let q = this.db.selectFrom('fw_agent_runs').selectAll();
    if (filter.owner) q = q.where('owner', '=', filter.owner);
    if (filter.agent) q = q.where('agent', '=', filter.agent);
    if (filter.protocol) q = q.where('protocol', '=', filter.protocol);
    if (filter.state) q = q.where('state', '=', filter.state);
    return q.orderBy('started_at', 'desc').limit(limit).execute();
  }

  /** Marks every run still `running` as `interrupted`; returns them as they were. */
  async interruptRunning(at: number, error: string): Promise<RunRow[]> {
    const rows = await this.db.selectFrom('fw_agent_runs').selectAll().where('state', '=', 'running').execute();
    if (rows.length > 0) {
      await this.db
        .updateTable('fw_agent_runs')
        .set({ state: 'interrupted', ended_at: at, error })
        .where('state', '=', 'running')
        .execute();
    }
    return rows;
  }

  /** Deletes finished runs that ended before `before`. */
  async prune(before: number): Promise<void> {
    await this.db.deleteFrom('fw_agent_runs').where('ended_at', 'is not', null).where('ended_at', '<', before).execute();
  }
}
