/**
 * Spend (issue 26, budgets): the tokens and USD of every model call, aggregated per UTC day ×
 * agent × principal × model, one row each. The governance module adds to the rows in batches (an
 * upsert that sums) and reads them back for GET spend and, at start, for today's per-day budgets,
 * which is how a budget per agent or principal per day survives a restart. Kept in a file of its
 * own, with its migration, so the slice stays self-contained; retention deletes whole past days.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { StoreSchema } from './schema.js';

export interface SpendDailyTable {
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  agent: string;
  /** The principal's id; '' for a run nobody authenticated (anonymous callers, fw's own runs). */
  principal: string;
  /** The model that answered (as the provider named it), or the provider's name when it named none. */
  model: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cost_usd: number;
  /** Last added to (epoch ms). */
  updated_at: number;
}

interface SpendSchema {
  fw_spend_daily: SpendDailyTable;
}

/** What one batch adds to one row (the numbers are summed into what is there). */
export type SpendDelta = SpendDailyTable;

/** A group of rows summed (GET spend, the day's budgets). */
export interface SpendTotals {
  key: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
}

/** Migration 0011: the daily spend table. */
export const spendMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('fw_spend_daily')
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('agent', 'text', (c) => c.notNull())
      .addColumn('principal', 'text', (c) => c.notNull())
      .addColumn('model', 'text', (c) => c.notNull())
      .addColumn('calls', 'bigint', (c) => c.notNull())
      .addColumn('input_tokens', 'bigint', (c) => c.notNull())
      .addColumn('output_tokens', 'bigint', (c) => c.notNull())
      .addColumn('cached_tokens', 'bigint', (c) => c.notNull())
      .addColumn('cost_usd', 'double precision', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('fw_spend_daily_pk', ['day', 'agent', 'principal', 'model'])
      .execute();
  },
};

/** The UTC day (`YYYY-MM-DD`) of an instant. */
export function spendDayOf(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

export type SpendGroup = 'agent' | 'principal' | 'model';

/** Reads and adds to the daily spend rows; built on the store's query builder (`store.db`, or a write batch's `db`). */
export class SpendRecords {
  private readonly db: Kysely<SpendSchema>;

  constructor(db: Kysely<StoreSchema>) {
    // The table comes from this file's migration; the store's own schema type does not list it.
    this.db = db as unknown as Kysely<SpendSchema>;
  }

  /** Sums each delta into its row (created when missing). */
  async add(deltas: readonly SpendDelta[]): Promise<void> {
    for (const d of deltas) {
      await this.db
        .insertInto('fw_spend_daily')
        .values(d)
        .onConflict((oc) =>
          oc.columns(['day', 'agent', 'principal', 'model']).doUpdateSet({
            calls: sql`fw_spend_daily.calls + excluded.calls`,
            input_tokens: sql`fw_spend_daily.input_tokens + excluded.input_tokens`,
            output_tokens: sql`fw_spend_daily.output_tokens + excluded.output_tokens`,
            cached_tokens: sql`fw_spend_daily.cached_tokens + excluded.cached_tokens`,
            cost_usd: sql`fw_spend_daily.cost_usd + excluded.cost_usd`,
            updated_at: sql`excluded.updated_at`,
          }),
        )
        .execute();
    }
  }

  /** The rows of the days from `sinceDay` to `untilDay` (inclusive), summed per `by`, largest cost first. */
  async totals(by: SpendGroup, sinceDay: string, untilDay: string): Promise<SpendTotals[]> {
    const rows = await this.db
      .selectFrom('fw_spend_daily')
      .select((eb) => [
        eb.ref(by).as('key'),
        eb.fn.sum<number>('calls').as('calls'),
        eb.fn.sum<number>('input_tokens').as('input_tokens'),
        eb.fn.sum<number>('output_tokens').as('output_tokens'),
        eb.fn.sum<number>('cached_tokens').as('cached_tokens'),
        eb.fn.sum<number>('cost_usd').as('cost_usd'),
      ])
      .where('day', '>=', sinceDay)
      .where('day', '<=', untilDay)
      .groupBy(by)
      .execute();
    return rows
      .map((r) => ({
        key: String(r.key),
        calls: Number(r.calls),
        inputTokens: Number(r.input_tokens),
        outputTokens: Number(r.output_tokens),
        cachedTokens: Number(r.cached_tokens),
        costUsd: Number(r.cost_usd),
      }))
      .sort(
        (a, b) => b.costUsd - a.costUsd || b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens) || (a.key < b.key ? -1 : 1),
      );
  }
}
