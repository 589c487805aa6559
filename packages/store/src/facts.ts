/**
 * Agent memory (migration 0013): the facts an agent keeps across sessions, one row each, per
 * agent. Read newest first; bounded per agent by the caller (`count` before `add`); retention by
 * age deletes the oldest (`prune`).
 */
import type { Kysely, Selectable } from 'kysely';
import type { AgentFactTable, StoreSchema } from './schema.js';

export type FactRow = Selectable<AgentFactTable>;

export class FactRecords {
  constructor(private readonly db: Kysely<StoreSchema>) {}

  /** An agent's facts, newest first. */
  async list(agent: string, limit = 1000): Promise<FactRow[]> {
    return this.db
      .selectFrom('fw_agent_facts')
      .selectAll()
      .where('agent', '=', agent)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  async count(agent: string): Promise<number> {
    const r = await this.db
      .selectFrom('fw_agent_facts')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('agent', '=', agent)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  async add(row: FactRow): Promise<void> {
    await this.db.insertInto('fw_agent_facts').values(row).execute();
  }

  /** Removes one fact of an agent; false when it had none with that id. */
  async remove(agent: string, id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('fw_agent_facts').where('agent', '=', agent).where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Retention by age: deletes facts created before `olderThan` (epoch ms); returns how many. */
  async prune(olderThan: number): Promise<number> {
    const r = await this.db.deleteFrom('fw_agent_facts').where('created_at', '<', olderThan).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
