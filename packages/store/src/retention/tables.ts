/**
 * What may be deleted from each table, oldest first, and how: the one place that knows what
 * "live" means per table, so no deleter can take live work.
 *
 * - runs: only finished ones (`ended_at` set; a `running` row is live);
 * - sessions: only ended ones (`ended_at` set), with their messages in the same transaction;
 * - messages: only those whose session is not open (ended, or gone);
 * - tasks: only finished ones (`expires_at` set; a live task has none);
 * - journal: every event (the record of what happened, nothing in it is live), with its parties;
 * - tapes: only ended runs (`ended_at` set; an open run is still recording), with their steps;
 * - evals: only ended eval runs (`ended_at` set; a running one is live), with their results
 *   (dataset cases are curated, not logged: retention leaves them);
 * - spend: whole past days (today's rows are live: the per-day budgets count them).
 *
 * Each `remove` checks the condition again in the DELETE itself, so a row that became live
 * between the read of its key and the delete (a session resumed) stays.
 */
import type { Kysely } from 'kysely';
import type { StoreSchema } from '../schema.js';
import { spendDayOf, type SpendDailyTable } from '../spend.js';
import type { BatchDelete } from './batches.js';

export type PrunedTable =
  | 'fw_agent_runs'
  | 'fw_agent_sessions'
  | 'fw_agent_session_messages'
  | 'fw_a2a_tasks'
  | 'fw_agent_journal'
  | 'fw_agent_journal_parties'
  | 'fw_tape_runs'
  | 'fw_tape_steps'
  | 'fw_eval_runs'
  | 'fw_eval_results'
  | 'fw_spend_daily';

/** Every table retention deletes from (the metrics show each, at 0 until something goes). */
export const PRUNED_TABLES: readonly PrunedTable[] = [
  'fw_agent_runs',
  'fw_agent_sessions',
  'fw_agent_session_messages',
  'fw_a2a_tasks',
  'fw_agent_journal',
  'fw_agent_journal_parties',
  'fw_tape_runs',
  'fw_tape_steps',
  'fw_eval_runs',
  'fw_eval_results',
  'fw_spend_daily',
];

/** One table as retention sees it. */
export interface Prunable {
  readonly table: PrunedTable;
  /** Rows in the table, live ones included (a count limit counts them; they are never deleted). */
  count(): Promise<number>;
  /** Deletable rows older than `before` (epoch ms; undefined: any age), oldest first. */
  older(before?: number): BatchDelete<unknown>;
}

async function countOf(db: Kysely<StoreSchema>, table: PrunedTable): Promise<number> {
  const r = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

export function runsPrunable(db: Kysely<StoreSchema>): Prunable {
  const table = 'fw_agent_runs';
  return {
    table,
    count: () => countOf(db, table),
    older: (before) => ({
      async select(n) {
        let q = db.selectFrom(table).select('id').where('ended_at', 'is not', null);
        if (before !== undefined) q = q.where('ended_at', '<', before);
        return (await q.orderBy('ended_at').limit(n).execute()).map((r) => r.id);
      },
      async remove(tx, ids) {
        const r = await tx
          .deleteFrom(table)
          .where('id', 'in', ids as string[])
          .where('ended_at', 'is not', null)
          .executeTakeFirst();
        return { [table]: Number(r.numDeletedRows) };
      },
    }),
  };
}

/**
 * Rows of `table` that ended (`ended_at` set), oldest first, each deleted with its children in the
 * same transaction: only rows still ended go (one resumed meanwhile stays), and only their children.
 */
function endedWithChildren(
  db: Kysely<StoreSchema>,
  table: 'fw_agent_sessions' | 'fw_tape_runs' | 'fw_eval_runs',
  children: PrunedTable,
  removeChildren: (tx: Kysely<StoreSchema>, parents: string[]) => Promise<{ numDeletedRows: bigint }>,
): Prunable {
  return {
    table,
    count: () => countOf(db, table),
    older: (before) => ({
      async select(n) {
        let q = db.selectFrom(table).select('id').where('ended_at', 'is not', null);
        if (before !== undefined) q = q.where('ended_at', '<', before);
        return (await q.orderBy('ended_at').limit(n).execute()).map((r) => r.id);
      },
      async remove(tx, ids) {
        const gone = (
          await tx
            .deleteFrom(table)
            .where('id', 'in', ids as string[])
            .where('ended_at', 'is not', null)
            .returning('id')
            .execute()
        ).map((r) => r.id);
        const removed = gone.length > 0 ? Number((await removeChildren(tx, gone)).numDeletedRows) : 0;
        return { [table]: gone.length, [children]: removed };
      },
    }),
  };
}

/** Ended chat sessions, each with its messages. */
export function sessionsPrunable(db: Kysely<StoreSchema>): Prunable {
  return endedWithChildren(db, 'fw_agent_sessions', 'fw_agent_session_messages', (tx, ids) =>
    tx.deleteFrom('fw_agent_session_messages').where('session_id', 'in', ids).executeTakeFirst(),
  );
}

export function messagesPrunable(db: Kysely<StoreSchema>): Prunable {
  const table = 'fw_agent_session_messages';
  return {
    table,
    count: () => countOf(db, table),
    older: (before) => ({
      async select(n) {
        let q = db
          .selectFrom(`${table} as m`)
          .select(['m.session_id', 'm.seq'])
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('fw_agent_sessions as s').select('s.id').whereRef('s.id', '=', 'm.session_id').where('s.ended_at', 'is', null),
              ),
            ),
          );
        if (before !== undefined) q = q.where('m.at', '<', before);
        return q.orderBy('m.at').orderBy('m.seq').limit(n).execute();
      },
      async remove(tx, keys) {
        // Oldest first, so what was read of one session is a prefix of it by seq (a session's
        // messages are numbered in time order): one range per session, on the primary key.
        const upTo = new Map<string, number>();
        for (const k of keys as { session_id: string; seq: number }[]) upTo.set(k.session_id, Math.max(upTo.get(k.session_id) ?? 0, k.seq));
        const r = await tx
          .deleteFrom(table)
          .where((eb) => eb.or([...upTo].map(([id, seq]) => eb.and([eb('session_id', '=', id), eb('seq', '<=', seq)]))))
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('fw_agent_sessions as s')
                  .select('s.id')
                  .whereRef('s.id', '=', `${table}.session_id`)
                  .where('s.ended_at', 'is', null),
              ),
            ),
          )
          .executeTakeFirst();
        return { [table]: Number(r.numDeletedRows) };
      },
    }),
  };
}

/** Finished tasks; `expired(now)` deletes those whose readable time is over, whatever the limits. */
export function tasksPrunable(db: Kysely<StoreSchema>): Prunable & { expired(now: number): BatchDelete<unknown> } {
  const table = 'fw_a2a_tasks';
  const remove: BatchDelete<unknown>['remove'] = async (tx, ids) => {
    const r = await tx
      .deleteFrom(table)
      .where('id', 'in', ids as string[])
      .where('expires_at', 'is not', null)
      .executeTakeFirst();
    return { [table]: Number(r.numDeletedRows) };
  };
  return {
    table,
    count: () => countOf(db, table),
    older: (before) => ({
      async select(n) {
        let q = db.selectFrom(table).select('id').where('expires_at', 'is not', null);
        if (before !== undefined) q = q.where('updated_at', '<', before);
        return (await q.orderBy('updated_at').limit(n).execute()).map((r) => r.id);
      },
      remove,
    }),
    expired: (now) => ({
      async select(n) {
        const rows = await db
          .selectFrom(table)
          .select('id')
          .where('expires_at', 'is not', null)
          .where('expires_at', '<=', now)
          .orderBy('expires_at')
          .limit(n)
          .execute();
        return rows.map((r) => r.id);
      },
      remove,
    }),
  };
}

/** Journal events by id (ids grow with time), each with its party rows. */
export function journalPrunable(db: Kysely<StoreSchema>): Prunable & { upTo(id: number): BatchDelete<unknown> } {
  const table = 'fw_agent_journal';
  const range = (last: number | undefined): BatchDelete<unknown> => ({
    async select(n) {
      let q = db.selectFrom(table).select('id');
      if (last !== undefined) q = q.where('id', '<=', last);
      return (await q.orderBy('id').limit(n).execute()).map((r) => Number(r.id));
    },
    async remove(tx, ids) {
      const list = ids as number[];
      const lo = list[0]!;
      const hi = list[list.length - 1]!;
      // A contiguous id range on both primary keys' order (`id` is indexed on the parties too).
      const p = await tx.deleteFrom('fw_agent_journal_parties').where('id', '>=', lo).where('id', '<=', hi).executeTakeFirst();
      const j = await tx.deleteFrom(table).where('id', '>=', lo).where('id', '<=', hi).executeTakeFirst();
      return { [table]: Number(j.numDeletedRows), fw_agent_journal_parties: Number(p.numDeletedRows) };
    },
  });
  return {
    table,
    count: () => countOf(db, table),
    older: (before) => {
      if (before === undefined) return range(undefined);
      // Timestamps never go backwards in the journal: "older than" is an id bound.
      return {
        async select(n) {
          const rows = await db.selectFrom(table).select('id').where('at', '<', before).orderBy('at').orderBy('id').limit(n).execute();
          return rows.map((r) => Number(r.id));
        },
        remove: range(undefined).remove,
      };
    },
    upTo: (id) => range(id),
  };
}

/** Taped runs that ended, each with its steps. */
export function tapesPrunable(db: Kysely<StoreSchema>): Prunable {
  return endedWithChildren(db, 'fw_tape_runs', 'fw_tape_steps', (tx, ids) =>
    tx.deleteFrom('fw_tape_steps').where('run_id', 'in', ids).executeTakeFirst(),
  );
}

/** Eval runs that ended, each with its results. */
export function evalsPrunable(db: Kysely<StoreSchema>): Prunable {
  return endedWithChildren(db, 'fw_eval_runs', 'fw_eval_results', (tx, ids) =>
    tx.deleteFrom('fw_eval_results').where('eval_run_id', 'in', ids).executeTakeFirst(),
  );
}

/**
 * Daily spend rows of past days, oldest day first; today's (UTC) never go, so a per-day budget
 * keeps what it counted. A day's rows go together when they fit in the batch.
 */
export function spendPrunable(store: Kysely<StoreSchema>): Prunable {
  // The table comes from the spend migration; the store's own schema type does not list it.
  const db = store as unknown as Kysely<{ fw_spend_daily: SpendDailyTable }>;
  const table = 'fw_spend_daily';
  type Key = { day: string; agent: string; principal: string; model: string };
  return {
    table,
    count: async () => {
      const r = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst();
      return Number(r?.n ?? 0);
    },
    older: (before) => ({
      async select(n) {
        const today = spendDayOf(Date.now());
        // A day is older than `before` once it has ended before it.
        const bound = before === undefined ? today : minDay(today, spendDayOf(before));
        return db
          .selectFrom(table)
          .select(['day', 'agent', 'principal', 'model'])
          .where('day', '<', bound)
          .orderBy('day')
          .orderBy('agent')
          .orderBy('principal')
          .orderBy('model')
          .limit(n)
          .execute();
      },
      async remove(tx, keys) {
        const today = spendDayOf(Date.now());
        const t = tx as unknown as Kysely<{ fw_spend_daily: SpendDailyTable }>;
        const r = await t
          .deleteFrom(table)
          .where((eb) =>
            eb.or(
              (keys as Key[]).map((k) =>
                eb.and([eb('day', '=', k.day), eb('agent', '=', k.agent), eb('principal', '=', k.principal), eb('model', '=', k.model)]),
              ),
            ),
          )
          .where('day', '<', today)
          .executeTakeFirst();
        return { [table]: Number(r.numDeletedRows) };
      },
    }),
  };
}

function minDay(a: string, b: string): string {
  return a < b ? a : b;
}
