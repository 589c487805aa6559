import { randomUUID } from 'node:crypto';
import { errorSummary, fallbackLogger, type Framework, type Logger } from '@fw/runtime';
import { AUDIT_CLASSES, auditClassOf, type AuditClass, type AuditEntry, type AuditSink } from './audit.js';

type StoreModule = typeof import('@fw/store');
type AuditRecords = import('@fw/store').AuditRecords;
type AuditRow = import('@fw/store').AuditRow;
type NewAuditRow = import('@fw/store').NewAuditRow;

export interface StoreSinkOptions {
  /** Action records kept in the table; older ones are deleted (fw.admin.audit.store-max-entries). */
  maxEntries: number;
  /** Refusal records kept, counted apart (fw.admin.audit.refusals.store-max-entries); default `maxEntries`. */
  maxRefusals?: number;
  /** Where a failed prune is reported; default fw's default logger. */
  log?: Logger;
}

/**
 * The audit log in fw's durable store (@fw/store: PostgreSQL in production, else SQLite), the
 * default when `fw.store.postgres-url` is set. `append` waits for the insert: a record the database
 * did not take throws, and the admin fails closed (writes 503 `audit_unavailable`, reads go on).
 * Each retention class (column `class`) is pruned to the newest records of its own cap by time, so
 * refusals never delete an action record.
 */
export class StoreAuditSink implements AuditSink {
  readonly description: string;
  private readonly classes: Record<AuditClass, { keep: number; every: number; since: number }>;

  constructor(
    private readonly records: () => Promise<AuditRecords>,
    description: string,
    private readonly options: StoreSinkOptions,
  ) {
    const caps: Record<AuditClass, [number, string]> = {
      action: [options.maxEntries, 'fw.admin.audit.store-max-entries'],
      refusal: [options.maxRefusals ?? options.maxEntries, 'fw.admin.audit.refusals.store-max-entries'],
    };
    for (const [keep, key] of Object.values(caps))
      if (!Number.isInteger(keep) || keep < 1) throw new RangeError(`${key} must be a positive integer`);
    this.description = description;
    // Pruning is a delete over an index: done every tenth of the limit (at most every 1000 records), so a class stays within 110 % of it.
    const plan = (keep: number) => ({ keep, every: Math.max(1, Math.min(1000, Math.floor(keep / 10))), since: 0 });
    this.classes = { action: plan(caps.action[0]), refusal: plan(caps.refusal[0]) };
  }

  async load(limit: number): Promise<AuditEntry[]> {
    const records = await this.records();
    const out: AuditEntry[] = [];
    for (const cls of AUDIT_CLASSES) {
      await this.prune(records, cls);
      out.push(...(await records.newest(limit, cls)).map(toEntry));
    }
    return out;
  }

  async append(entry: AuditEntry): Promise<void> {
    const records = await this.records();
    const cls = auditClassOf(entry);
    await records.append(toRow(entry, cls));
    if (++this.classes[cls].since >= this.classes[cls].every) await this.prune(records, cls);
  }

  /** A failed prune does not fail the append (the record is written); the next one tries again. */
  private async prune(records: AuditRecords, cls: AuditClass): Promise<void> {
    this.classes[cls].since = 0;
    try {
      await records.prune(this.classes[cls].keep, cls);
    } catch (err) {
      (this.options.log ?? fallbackLogger()).warn({ sink: this.description, error: errorSummary(err) }, 'cannot prune the audit log');
    }
  }
}

function toRow(e: AuditEntry, cls: AuditClass): NewAuditRow {
  return {
    id: randomUUID(),
    seq: e.seq,
    at: Date.parse(e.timestamp),
    action: e.action,
    principal: e.principal,
    outcome: e.outcome,
    class: cls,
    body: JSON.stringify(e),
  };
}

function toEntry(row: AuditRow): AuditEntry {
  const e = JSON.parse(row.body) as AuditEntry;
  return { ...e, seq: Number(row.seq), address: e.address ?? null };
}

/**
 * The store sink for `fw` when its store is PostgreSQL (`fw.store.postgres-url`), else undefined.
 * @fw/store is an optional peer: absent, there is no PostgreSQL store to use. The store is shared
 * with the agent module (`useStore`); `release` gives this user's hold back on close.
 */
export async function storeAuditSinkFor(
  fw: Framework,
  caps: { maxEntries: number; maxRefusals: number },
): Promise<{ sink: AuditSink; release(): Promise<void> } | undefined> {
  let store: StoreModule;
  try {
    store = await import('@fw/store');
  } catch {
    return undefined;
  }
  fw.config.declare(store.STORE_CONFIG);
  if (!fw.config.get('fw.store.postgres-url')) return undefined;
  const options = store.storeOptions(fw);
  let held: ReturnType<StoreModule['useStore']> | undefined;
  // Opened at the first load, and opened again after a failed open (useStore forgets a store that
  // failed), so a database that is down at start fails the log closed and recovers when it is back.
  const records = async (): Promise<AuditRecords> => {
    const pending = (held ??= store.useStore(fw));
    try {
      return (await pending).audit;
    } catch (err) {
      if (held === pending) held = undefined;
      throw err;
    }
  };
  const sink = new StoreAuditSink(records, `store postgres ${store.redact(options.postgresUrl ?? '')}`, {
    ...caps,
    log: fw.logger.child({ module: 'admin' }),
  });
  return {
    sink,
    release: async () => {
      const h = held;
      held = undefined;
      if (h)
        await h.then(
          () => store.releaseStore(fw),
          () => undefined,
        );
    },
  };
}
