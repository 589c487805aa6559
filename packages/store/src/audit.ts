/**
 * Admin audit records (the admin plane's record of every attempt on it). The store keeps the row;
 * @fw/admin adapts it to its `AuditSink` (the store does not depend on the admin). `append` waits
 * for the insert, so a record that is not durable throws and the admin fails closed.
 */
import type { Kysely, Selectable } from 'kysely';
import type { AdminAuditTable, StoreSchema } from './schema.js';

export type AuditRow = Selectable<AdminAuditTable>;

export class AuditRecords {
  constructor(private readonly db: Kysely<StoreSchema>) {}

  async append(row: AuditRow): Promise<void> {
    await this.db.insertInto('fw_admin_audit').values(row).execute();
  }

  /** The newest `limit` records, oldest first (the order a log is replayed in). */
  async newest(limit: number): Promise<AuditRow[]> {
    const rows = await this.db.selectFrom('fw_admin_audit').selectAll().orderBy('at', 'desc').orderBy('seq', 'desc').limit(limit).execute();
    return rows.reverse();
  }

  async count(): Promise<number> {
    const r = await this.db
      .selectFrom('fw_admin_audit')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /**
   * Keeps the newest `keep` records (by time) and deletes the older ones; returns how many went.
   * Records sharing the cut-off millisecond all stay.
   */
  async prune(keep: number): Promise<number> {
    const cut = await this.db
      .selectFrom('fw_admin_audit')
      .select(['at', 'seq'])
      .orderBy('at', 'desc')
      .orderBy('seq', 'desc')
      .offset(keep - 1)
      .limit(1)
      .executeTakeFirst();
    if (!cut) return 0;
    // Older than the cut in the same (at, seq) order the cut was found in: records written in the
    // same millisecond as the cut are ordered by seq, so the table keeps `keep` rows, not more.
    const r = await this.db
      .deleteFrom('fw_admin_audit')
      .where((eb) => eb.or([eb('at', '<', cut.at), eb.and([eb('at', '=', cut.at), eb('seq', '<', cut.seq)])]))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
