/**
 * Governance state (issue 26): small documents the admin plane's governance keeps across restarts,
 * one row per key (the kill switch is `kill-switch`). A restarted node reads its state here before
 * it admits a run, so a node that was armed starts armed. Kept in a file of its own, with its
 * migration, so the governance slice stays self-contained.
 */
import type { Kysely, Migration } from 'kysely';
import type { StoreSchema } from './schema.js';

export interface GovernanceStateTable {
  key: string;
  /** The state as JSON. */
  body: string;
  /** When it was written (epoch ms); a newer write replaces it. */
  updated_at: number;
}

interface GovernanceSchema {
  fw_governance_state: GovernanceStateTable;
}

/** Migration 0008: the governance state table. */
export const governanceMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('fw_governance_state')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};

/** Reads and writes governance documents; built on the store's query builder (`store.db`). */
export class GovernanceRecords {
  private readonly db: Kysely<GovernanceSchema>;

  constructor(db: Kysely<StoreSchema>) {
    // The table comes from this file's migration; the store's own schema type does not list it.
    this.db = db as unknown as Kysely<GovernanceSchema>;
  }

  /** The document under `key`, or undefined. */
  async get<T>(key: string): Promise<{ value: T; updatedAt: number } | undefined> {
    const row = await this.db.selectFrom('fw_governance_state').selectAll().where('key', '=', key).executeTakeFirst();
    return row ? { value: JSON.parse(row.body) as T, updatedAt: Number(row.updated_at) } : undefined;
  }

  /** Writes the document under `key` unless a newer one (by `at`) is there; resolves once the database has it. */
  async put(key: string, value: unknown, at: number): Promise<void> {
    const body = JSON.stringify(value);
    await this.db
      .insertInto('fw_governance_state')
      .values({ key, body, updated_at: at })
      // Never over a newer document: nodes sharing a database may write the same change late.
      .onConflict((oc) => oc.column('key').doUpdateSet({ body, updated_at: at }).where('fw_governance_state.updated_at', '<', at))
      .execute();
  }
}
