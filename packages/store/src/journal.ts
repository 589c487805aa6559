/**
 * The coordination journal's tables: append-only rows with a monotonic id and a timestamp that
 * never goes backwards, plus one row per party of each event (`fw_agent_journal_parties`). Read
 * newest first in pages whose cursor is the last id seen (`before`). Every page is one walk down
 * an index that ends in `id`: `(party, id)` or `(party, kind, id)` for an agent, `(coordination_id,
 * id)`, `(kind, id)`, or the primary key; a time range is first turned into an id range through
 * `(at, id)`. So a page costs the same at 1 M events as at 100 (bench/journal).
 * Retention deletes by age and by count (`prune`).
 */
import type { Kysely, Selectable } from 'kysely';
import { BatchDeleter } from './retention/batches.js';
import { PruneCounters } from './retention/counters.js';
import { journalPrunable, PRUNED_TABLES } from './retention/tables.js';
import type { AgentJournalTable, StoreSchema } from './schema.js';

export type JournalRow = Selectable<AgentJournalTable>;
/** A row to append: the causality columns may be left out (null). */
export type JournalRowInput = Omit<JournalRow, 'event_id' | 'parent_event_id'> & {
  event_id?: string | null;
  parent_event_id?: string | null;
};

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
  constructor(
    private readonly db: Kysely<StoreSchema>,
    /** The store's deleter: retention's batches, limits and counters. */
    private readonly deleter: BatchDeleter = new BatchDeleter(db, new PruneCounters(PRUNED_TABLES), () => ({
      batch: 500,
      maxTransactionMs: 25,
    })),
  ) {}

  /** One transaction per call (or the caller's): a batch is in the journal whole or not at all. */
  async append(input: readonly JournalRowInput[]): Promise<void> {
    if (input.length === 0) return;
    // Every row with every column: one multi-row INSERT takes no DEFAULT on SQLite.
    const rows: JournalRow[] = input.map((r) => ({ ...r, event_id: r.event_id ?? null, parent_event_id: r.parent_event_id ?? null }));
    const parties: { party: string; id: number; kind: string }[] = [];
    for (const r of rows) {
      for (const party of new Set([r.agent, r.coordinator, ...(r.other ? [r.other] : [])])) parties.push({ party, id: r.id, kind: r.kind });
    }
    // Ids are given by the process, so a batch retried after a commit whose answer was lost (a
    // connection cut at COMMIT) inserts nothing twice and does not fail on its own first attempt.
    const insert = async (tx: Kysely<StoreSchema>) => {
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        await tx
          .insertInto('fw_agent_journal')
          .values(rows.slice(i, i + INSERT_CHUNK))
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
      }
      for (let i = 0; i < parties.length; i += INSERT_CHUNK * 2) {
        await tx
          .insertInto('fw_agent_journal_parties')
          .values(parties.slice(i, i + INSERT_CHUNK * 2))
          .onConflict((oc) => oc.columns(['party', 'id']).doNothing())
          .execute();
      }
    };
    // Inside a group commit's batch (store.writes.commit) the batch is the transaction.
    if (this.db.isTransaction) await insert(this.db);
    else await this.db.transaction().execute(insert);
  }

  async maxId(): Promise<number> {
    const r = await this.db
      .selectFrom('fw_agent_journal')
      .select((eb) => eb.fn.max('id').as('max'))
      .executeTakeFirst();
    return Number(r?.max ?? 0);
  }

  /** The latest timestamp in the journal (0 when empty): new events never get an earlier one. */
  async maxAt(): Promise<number> {
    const r = await this.db
      .selectFrom('fw_agent_journal')
      .select('at')
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return Number(r?.at ?? 0);
  }

  /** Rows matching a filter. */
  async count(filter: JournalFilter = {}): Promise<number> {
    const r =
      filter.agent && !filter.coordinationId
        ? await this.parties(filter)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirst()
        : filter.agent
          ? await this.byParty(filter)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirst()
          : await this.byJournal(filter)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** One statement, one round trip: the bounds and the page are subqueries of it. */
  async page(q: JournalPageRequest): Promise<JournalRowPage> {
    const order = q.order ?? 'desc';
    const limit = Math.max(1, Math.floor(q.limit));
    const offset = q.offset ? Math.max(0, Math.floor(q.offset)) : 0;
    let rows: JournalRow[];
    if (q.agent && !q.coordinationId) {
      // The page's ids from the parties index alone (no planner can choose to walk the whole
      // journal), then those rows by primary key.
      let ids = this.parties(q)
        .select('id')
        .orderBy('id', order)
        .limit(limit + 1);
      if (offset) ids = ids.offset(offset);
      rows = await this.db.selectFrom('fw_agent_journal').selectAll().where('id', 'in', ids).orderBy('id', order).execute();
    } else if (q.agent) {
      let query = this.byParty(q)
        .selectAll('j')
        .orderBy('p.id', order)
        .limit(limit + 1);
      if (offset) query = query.offset(offset);
      rows = await query.execute();
    } else {
      let query = this.byJournal(q)
        .selectAll()
        .orderBy('id', order)
        .limit(limit + 1);
      if (offset) query = query.offset(offset);
      rows = await query.execute();
    }
    const more = rows.length > limit;
    if (more) rows.length = limit;
    return { rows, next: more ? rows[rows.length - 1]!.id : undefined };
  }

  /** The first id at or after `from` (timestamps grow with ids: a time bound is an id bound). */
  private firstIdFrom(from: number) {
    return this.db.selectFrom('fw_agent_journal').select('id').where('at', '>=', from).orderBy('at', 'asc').orderBy('id', 'asc').limit(1);
  }

  private lastIdTo(to: number) {
    return this.db.selectFrom('fw_agent_journal').select('id').where('at', '<=', to).orderBy('at', 'desc').orderBy('id', 'desc').limit(1);
  }

  /**
   * The parties rows of an agent filter. The id bounds are exactly the time range (a bound with no
   * row is NULL, which matches nothing), so no timestamp is checked row by row.
   */
  private parties(q: JournalPageRequest | JournalFilter) {
    let query = this.db.selectFrom('fw_agent_journal_parties').where('party', '=', q.agent!);
    if (q.kinds && q.kinds.length > 0) query = query.where('kind', 'in', [...q.kinds]);
    if (q.from !== undefined) query = query.where('id', '>=', this.firstIdFrom(q.from));
    if (q.to !== undefined) query = query.where('id', '<=', this.lastIdTo(q.to));
    const c = q as JournalPageRequest;
    if (c.before !== undefined) query = query.where('id', '<', c.before);
    if (c.after !== undefined) query = query.where('id', '>', c.after);
    return query;
  }

  private byParty(q: JournalPageRequest | JournalFilter) {
    let query = this.db
      .selectFrom('fw_agent_journal_parties as p')
      .innerJoin('fw_agent_journal as j', 'j.id', 'p.id')
      .where('p.party', '=', q.agent!);
    if (q.kinds && q.kinds.length > 0) query = query.where('p.kind', 'in', [...q.kinds]);
    if (q.coordinationId) query = query.where('j.coordination_id', '=', q.coordinationId);
    if (q.from !== undefined) query = query.where('j.at', '>=', q.from);
    if (q.to !== undefined) query = query.where('j.at', '<=', q.to);
    const c = q as JournalPageRequest;
    if (c.before !== undefined) query = query.where('p.id', '<', c.before);
    if (c.after !== undefined) query = query.where('p.id', '>', c.after);
    return query;
  }

  private byJournal(q: JournalPageRequest | JournalFilter) {
    let query = this.db.selectFrom('fw_agent_journal');
    if (q.coordinationId) query = query.where('coordination_id', '=', q.coordinationId);
    if (q.kinds && q.kinds.length > 0) query = query.where('kind', 'in', [...q.kinds]);
    if (q.from !== undefined) query = query.where('id', '>=', this.firstIdFrom(q.from));
    if (q.to !== undefined) query = query.where('id', '<=', this.lastIdTo(q.to));
    const c = q as JournalPageRequest;
    if (c.before !== undefined) query = query.where('id', '<', c.before);
    if (c.after !== undefined) query = query.where('id', '>', c.after);
    return query;
  }

  /**
   * Retention: deletes events older than `olderThan` (epoch ms) and all but the newest `keep`, in
   * the store's retention batches (each a short transaction, the event loop free between them),
   * counted in `fw_store_pruned_rows_total`. Returns how many events went.
   */
  async prune(olderThan: number | undefined, keep: number | undefined): Promise<number> {
    const journal = journalPrunable(this.db);
    let n = 0;
    if (olderThan !== undefined) n += await this.deleter.run(journal.table, Infinity, journal.older(olderThan));
    if (keep !== undefined && keep >= 0) {
      const upTo = (await this.maxId()) - keep;
      if (upTo > 0) n += await this.deleter.run(journal.table, Infinity, journal.upTo(upTo));
    }
    return n;
  }
}
