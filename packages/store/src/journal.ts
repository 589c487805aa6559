/**
 * The coordination journal's table: append-only rows with a monotonic id, read newest first in
 * pages whose cursor is the last id seen (`before`). Every filter is served by an index that
 * ends in `id` (see migrations.ts), so a page costs the same at 1 M rows as at 100.
 * Retention deletes by age and by count (`prune`).
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { AgentJournalTable, StoreSchema } from './schema.js';

export type JournalRow = Selectable<AgentJournalTable>;

export interface JournalFilter {
  coordinationId?: string;
  /** Matches the agent, the coordinator or the third party (handoff origin, evaluator). */
  agent?: string;
  /** Event kinds (`dispatch`, `completion`, `failure`, …): the status of a step. */
  kinds?: readonly string[];
  /** Time range, epoch ms, inclusive. */
  from?: number;
  to?: number;
}

export interface JournalPageRequest extends JournalFilter {
  limit: number;
  /** Cursor: only rows with an id below this one (newest-first pages) or above it (`order: 'asc'`). */
  after?: number;
  before?: number;
  /** Rows skipped before the page (the admin API's offset paging; cursors are cheaper). */
  offset?: number;
  order?: 'asc' | 'desc';
}

export interface JournalRowPage {
  rows: JournalRow[];
  /** The cursor of the next page (the last row's id), absent on the last page. */
  next: number | undefined;
}

/** Rows per INSERT statement (SQLite bounds the number of bound parameters per statement). */
const INSERT_CHUNK = 500;

export class JournalRecords {
  constructor(private readonly db: Kysely<StoreSchema>) {}

  /** One transaction per call: a batch is in the journal whole or not at all, with one commit. */
  async append(rows: readonly JournalRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.transaction().execute(async (tx) => {
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        await tx.insertInto('fw_agent_journal').values(rows.slice(i, i + INSERT_CHUNK)).execute();
      }
    });
  }

  async maxId(): Promise<number> {
    const r = await this.db.selectFrom('fw_agent_journal').select((eb) => eb.fn.max('id').as('max')).executeTakeFirst();
    return Number(r?.max ?? 0);
  }

  /** Rows matching a filter. */
  async count(filter: JournalFilter = {}): Promise<number> {
    const r = await this.filtered(filter).select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  async page(q: JournalPageRequest): Promise<JournalRowPage> {
    const order = q.order ?? 'desc';
    let query = this.filtered(q).selectAll();
    if (q.before !== undefined) query = query.where('id', '<', q.before);
    if (q.after !== undefined) query = query.where('id', '>', q.after);
    const limit = Math.max(1, Math.floor(q.limit));
    let ordered = query.orderBy('id', order).limit(limit + 1);
    if (q.offset) ordered = ordered.offset(q.offset);
    const rows = await ordered.execute();
    const more = rows.length > limit;
    if (more) rows.length = limit;
    return { rows, next: more ? rows[rows.length - 1]!.id : undefined };
  }

  private filtered(q: JournalFilter) {
    let query = this.db.selectFrom('fw_agent_journal');
    if (q.coordinationId) query = query.where('coordination_id', '=', q.coordinationId);
    if (q.agent) {
      const a = q.agent;
      query = query.where((eb) => eb.or([eb('agent', '=', a), eb('coordinator', '=', a), eb('other', '=', a)]));
    }
    if (q.kinds && q.kinds.length > 0) query = query.where('kind', 'in', [...q.kinds]);
    if (q.from !== undefined) query = query.where('at', '>=', q.from);
    if (q.to !== undefined) query = query.where('at', '<=', q.to);
    return query;
  }

  /** Retention: deletes rows older than `olderThan` (epoch ms) and all but the newest `keep`. */
  async prune(olderThan: number | undefined, keep: number | undefined): Promise<number> {
    let deleted = 0;
    if (olderThan !== undefined) {
      const r = await this.db.deleteFrom('fw_agent_journal').where('at', '<', olderThan).executeTakeFirst();
      deleted += Number(r.numDeletedRows);
    }
    if (keep !== undefined && keep >= 0) {
      const max = await this.maxId();
      const r = await this.db.deleteFrom('fw_agent_journal').where('id', '<=', sql<number>`${max - keep}`).executeTakeFirst();
      deleted += Number(r.numDeletedRows);
    }
    return deleted;
  }
}
