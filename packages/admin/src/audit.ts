import { errorSummary, fallbackLogger, FwError, type Logger } from '@fw/runtime';

/**
 * - `allowed`: authorized; for a write, recorded before it runs (so a write is never done unrecorded)
 * - `refused`: turned away (no or a bad credential, a missing role, the authorizer said no, an internal broadcaster)
 * - `invalid`: a malformed write (400, 413, 415): nothing ran
 * - `failed`: an allowed write that then failed (unknown target, …); follows its `allowed` record
 * - `error`: the authorizer threw; the write was denied
 */
export type AuditOutcome = 'allowed' | 'refused' | 'invalid' | 'failed' | 'error';
export const AUDIT_OUTCOMES: readonly AuditOutcome[] = ['allowed', 'refused', 'invalid', 'failed', 'error'];
export type AuditSource = 'rest' | 'dashboard' | 'mcp' | 'events';

/** One attempt on the admin plane, whatever came of it. */
export interface AuditEntry {
  seq: number;
  timestamp: string;
  /** A write action (`broadcast`, `destroy`, …) or `read` for a refused read. */
  action: string;
  /** The real target: a broadcaster id, a resource uuid, a task id, or the path of a refused read. */
  target: string;
  /** The principal's id; null for an anonymous (loopback, no authentication configured) or unauthenticated caller. */
  principal: string | null;
  /** The client's address. */
  address: string | null;
  /** true only when the outcome is `allowed`. */
  success: boolean;
  outcome: AuditOutcome;
  reason: string | null;
  source: AuditSource;
}

export type AuditRecord = Omit<AuditEntry, 'seq' | 'timestamp' | 'address'> & { address?: string | null };

export interface AuditQuery {
  action?: string;
  principal?: string;
  outcome?: string;
  from?: number;
  to?: number;
  limit?: number;
}

/**
 * Where audit records are kept durably. The file sink is the default; a store-backed sink (the
 * durable store of @fw/store) plugs in through `admin({ auditSink })` or the service
 * `'admin.audit-sink'`. `append` must throw when the record is not durably written: the log then
 * fails closed (writes answer 503, reads go on).
 */
export interface AuditSink {
  /** A short description for logs and the audit status (`file /var/lib/fw/audit.jsonl`). */
  readonly description: string;
  /** The records kept from earlier runs, oldest first (at most `limit`). Throwing leaves the log empty and unavailable. */
  load(limit: number): AuditEntry[] | Promise<AuditEntry[]>;
  append(entry: AuditEntry): void | Promise<void>;
  close?(): void | Promise<void>;
}

/** The audit record could not be written: the write is refused (fail closed). */
export class AuditUnavailableError extends FwError {
  constructor(detail: string) {
    super('audit_unavailable', `the audit log cannot be written (${detail}); admin writes are refused until it can`, 503);
  }
}

export interface AuditStatus {
  sink: string;
  available: boolean;
  error: string | null;
  entries: number;
}

/**
 * The audit log: a bounded ring in memory (newest kept) in front of an optional durable sink.
 * Every record goes into memory first, so reads always show it; when the sink cannot take it the
 * log becomes unavailable and `record` throws AuditUnavailableError, which refuses the write that
 * wanted it. Every later record tries the sink again, so the log recovers on its own.
 */
export class AuditLog {
  private readonly entries: AuditEntry[] = [];
  private seq = 0;
  private failure: string | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly maxEntries: number,
    private readonly sink?: AuditSink,
    private readonly log: Logger = fallbackLogger(),
  ) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('fw.admin.audit.max-entries must be a positive integer');
  }

  /** Loads the sink's earlier records. Never throws: a sink that cannot be read is reported and left unavailable. */
  async open(): Promise<this> {
    if (!this.sink) return this;
    try {
      for (const e of await this.sink.load(this.maxEntries)) {
        this.push(e);
        this.seq = Math.max(this.seq, e.seq);
      }
    } catch (err) {
      this.failure = message(err);
      this.log.error(
        { sink: this.sink.description, error: errorSummary(err) },
        'cannot read the audit log; admin writes are refused until it can be written',
      );
    }
    return this;
  }

  get available(): boolean {
    return this.failure === null;
  }

  status(): AuditStatus {
    return { sink: this.sink?.description ?? 'memory', available: this.available, error: this.failure, entries: this.entries.length };
  }

  /**
   * Records one attempt (in memory at once, then in the sink, in order). Throws
   * AuditUnavailableError when the sink cannot take it.
   */
  async record(entry: AuditRecord): Promise<AuditEntry> {
    const full: AuditEntry = { seq: ++this.seq, timestamp: new Date().toISOString(), ...entry, address: entry.address ?? null };
    this.push(full);
    const sink = this.sink;
    if (!sink) return full;
    const write = this.chain.then(() => sink.append(full));
    this.chain = write.catch(() => undefined);
    try {
      await write;
      if (this.failure !== null) this.log.warn({ sink: sink.description }, 'the audit log can be written again');
      this.failure = null;
    } catch (err) {
      if (this.failure === null)
        this.log.error(
          { sink: sink.description, error: errorSummary(err) },
          'cannot write the audit log; admin writes are refused until it can',
        );
      this.failure = message(err);
      throw new AuditUnavailableError(this.failure);
    }
    return full;
  }

  /** Records without failing: for refusals, whose answer does not depend on the record being durable. */
  async note(entry: AuditRecord): Promise<AuditEntry | undefined> {
    try {
      return await this.record(entry);
    } catch {
      return undefined;
    }
  }

  /** Newest first, filtered. */
  query(q: AuditQuery = {}): AuditEntry[] {
    return filterAudit([...this.entries].reverse(), q);
  }

  get size(): number {
    return this.entries.length;
  }

  async close(): Promise<void> {
    await this.chain;
    await this.sink?.close?.();
  }

  private push(e: AuditEntry): void {
    this.entries.push(e);
    if (this.entries.length > this.maxEntries) this.entries.splice(0, this.entries.length - this.maxEntries);
  }
}

function message(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code ? `${e.code}: ${e.message}` : String((err as Error)?.message ?? err);
}

/** The entries (newest first) that match the query; also used on the cluster's shared audit log. */
export function filterAudit<E extends AuditEntry>(newestFirst: readonly E[], q: AuditQuery = {}): E[] {
  const out: E[] = [];
  const limit = q.limit ?? Infinity;
  for (const e of newestFirst) {
    if (out.length >= limit) break;
    if (q.action && e.action !== q.action) continue;
    if (q.principal && e.principal !== q.principal) continue;
    if (q.outcome && e.outcome !== q.outcome) continue;
    const t = Date.parse(e.timestamp);
    if (q.from !== undefined && t < q.from) continue;
    if (q.to !== undefined && t > q.to) continue;
    out.push(e);
  }
  return out;
}
