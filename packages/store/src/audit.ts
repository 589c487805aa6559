/**
 * Admin audit records (the admin plane's record of every attempt on it). The store keeps the row;
 * @fw/admin adapts it to its `AuditSink` (the store does not depend on the admin). `append` waits
 * for the insert, so a record that is not durable throws and the admin fails closed.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { AdminAuditTable, StoreSchema } from './schema.js';

export type AuditRow = Selectable<AdminAuditTable>;
/** A row to append: `class` may be left out (`action`). */
export type NewAuditRow = Insertable<AdminAuditTable>;

export class AuditRecords {
  constructor(private readonly db: Kysely<StoreSchema>) {}

  async append(row: NewAuditRow): Promise<void> {
    await this.db.insertInto('fw_admin_audit').values(row).execute();
  }

  /** The newest `limit` records (of one retention class, or of all), oldest first (the order a log is replayed in). */
  async newest(limit: number, cls?: string): Promise<AuditRow[]> {
    let q = this.db.selectFrom('fw_admin_audit').selectAll();
    if (cls !== undefined) q = q.where('class', '=', cls);
    const rows = await q.orderBy('at', 'desc').orderBy('seq', 'desc').limit(limit).execute();
    return rows.reverse();
  }

  async count(cls?: string): Promise<number> {
    let q = this.db.selectFrom('fw_admin_audit').select((eb) => eb.fn.countAll<number>().as('n'));
    if (cls !== undefined) q = q.where('class', '=', cls);
    const r = await q.executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /**
   * Keeps the newest `keep` records (by time) of one retention class (or of the whole table) and
   * deletes the older ones of it; returns how many went. The other class is never touched, so
   * one class's volume cannot delete the other's records.
   */
  async prune(keep: number, cls?: string): Promise<number> {
    let find = this.db.selectFrom('fw_admin_audit').select(['at', 'seq']);
    if (cls !== undefined) find = find.where('class', '=', cls);
    const cut = await find
      .orderBy('at', 'desc')
      .orderBy('seq', 'desc')
      .offset(keep - 1)
      .limit(1)
      .executeTakeFirst();
    if (!cut) return 0;
    // Older than the cut in the same (at, seq) order the cut was found in: records written in the
    // same millisecond as the cut are ordered by seq, so the table keeps `keep` rows, not more.
    let del = this.db
      .deleteFrom('fw_admin_audit')
      .where((eb) => eb.or([eb('at', '<', cut.at), eb.and([eb('at', '=', cut.at), eb('seq', '<', cut.seq)])]));
    if (cls !== undefined) del = del.where('class', '=', cls);
    const r = await del.executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
