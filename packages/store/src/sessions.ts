/** Agent chat sessions and their messages. */
import type { Kysely, Selectable } from 'kysely';
import type { AgentSessionMessageTable, AgentSessionTable, StoreSchema } from './schema.js';

export type SessionRow = Selectable<AgentSessionTable>;
export type SessionMessageRow = Selectable<AgentSessionMessageTable>;

export class SessionRecords {
  constructor(private readonly db: Kysely<StoreSchema>) {}

  async put(row: SessionRow): Promise<void> {
    await this.db
      .insertInto('fw_agent_sessions')
      .values(row)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          last_activity_at: row.last_activity_at,
          ended_at: row.ended_at,
          end_reason: row.end_reason,
          message_count: row.message_count,
          resource_uuid: row.resource_uuid,
        }),
      )
      .execute();
  }

  async get(id: string): Promise<SessionRow | undefined> {
    return this.db.selectFrom('fw_agent_sessions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Newest activity first; `open` true: only sessions not ended, false: only ended ones. */
  async list(filter: { agent?: string; open?: boolean } = {}, limit = 100): Promise<SessionRow[]> {
    let q = this.db.selectFrom('fw_agent_sessions').selectAll();
    if (filter.agent) q = q.where('agent', '=', filter.agent);
    if (filter.open === true) q = q.where('ended_at', 'is', null);
    if (filter.open === false) q = q.where('ended_at', 'is not', null);
    return q.orderBy('last_activity_at', 'desc').limit(limit).execute();
  }

  async addMessage(row: SessionMessageRow): Promise<void> {
    await this.db
      .insertInto('fw_agent_session_messages')
      .values(row)
      .onConflict((oc) => oc.columns(['session_id', 'seq']).doNothing())
      .execute();
  }

  /** The last `limit` messages of a session, oldest first. */
  async messages(sessionId: string, limit = 1000): Promise<SessionMessageRow[]> {
    const rows = await this.db
      .selectFrom('fw_agent_session_messages')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
    return rows.reverse();
  }

  /** Deletes a session's stored messages (its conversation) and zeroes its count; returns how many went. */
  async clearMessages(sessionId: string): Promise<number> {
    const r = await this.db.deleteFrom('fw_agent_session_messages').where('session_id', '=', sessionId).executeTakeFirst();
    await this.db.updateTable('fw_agent_sessions').set({ message_count: 0 }).where('id', '=', sessionId).execute();
    return Number(r.numDeletedRows);
  }

  /** The highest message sequence number of a session (0 when it has none). */
  async lastSeq(sessionId: string): Promise<number> {
    const r = await this.db
      .selectFrom('fw_agent_session_messages')
      .select((eb) => eb.fn.max('seq').as('max'))
      .where('session_id', '=', sessionId)
      .executeTakeFirst();
    return Number(r?.max ?? 0);
  }

  /** Ends every session still open (the server stopped under them); returns their ids. */
  async endOpen(at: number, reason: string): Promise<string[]> {
    const open = await this.db.selectFrom('fw_agent_sessions').select('id').where('ended_at', 'is', null).execute();
    if (open.length > 0) {
      await this.db.updateTable('fw_agent_sessions').set({ ended_at: at, end_reason: reason }).where('ended_at', 'is', null).execute();
    }
    return open.map((r) => r.id);
  }
}
