import { errorSummary, fallbackLogger, FwError, type Logger } from '@fw/runtime';
import { DEFAULT_REFUSAL_LIMITS, RefusalWindows, type RefusalLimits, type RefusalSummary } from './audit-refusals.js';

/**
 * - `allowed`: authorized; for a write, recorded before it runs (so a write is never done unrecorded)
 * - `refused`: turned away (no or a bad credential, a missing role, the authorizer said no, an internal broadcaster)
 * - `invalid`: a malformed write (400, 413, 415): nothing ran
 * - `failed`: an allowed write that then failed (unknown target, …); follows its `allowed` record
 * - `error`: the authorizer threw; the write was denied
 */
export type AuditOutcome = 'allowed' | 'refused' | 'invalid' | 'failed' | 'error';
export const AUDIT_OUTCOMES: readonly AuditOutcome[] = ['allowed', 'refused', 'invalid', 'failed', 'error'];
/** `system`: fw's own act (an approval that expired), not a caller's. */
export type AuditSource = 'rest' | 'dashboard' | 'mcp' | 'events' | 'system';

/**
 * The retention class of a record. `action`: writes (allowed, failed), credential revocations and
 * configuration changes, one record each. `refusal`: refused, unauthenticated and malformed
 * attempts, aggregated per caller and window. Each class has its own caps in memory, in the file
 * and in the store, so no number of refusals can push an action record out.
 */
export type AuditClass = 'action' | 'refusal';
export const AUDIT_CLASSES: readonly AuditClass[] = ['action', 'refusal'];

/** The cluster's shared logs of each class (`@fw/redis`: one Redis list each, capped on its own). */
export const ACTION_LOG = 'audit';
export const REFUSAL_LOG = 'audit-refusals';

/** The class of a record; records written before classes existed are classified by their outcome. */
export function auditClassOf(e: { class?: AuditClass | undefined; outcome: string }): AuditClass {
  if (e.class === 'action' || e.class === 'refusal') return e.class;
  return e.outcome === 'allowed' || e.outcome === 'failed' ? 'action' : 'refusal';
}

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
  /** Its retention class (absent on records written before classes existed: see {@link auditClassOf}). */
  class?: AuditClass;
  /**
   * Refusal records only: how many attempts this record stands for and what they named. Its
   * `action`, `target`, `outcome`, `reason` and `source` are the first attempt's; `address` is the
   * caller's address group (an IPv6 address by its /64), or `(many addresses)`.
   */
  refusals?: RefusalSummary;
}

export type AuditRecord = Omit<AuditEntry, 'seq' | 'timestamp' | 'address' | 'class' | 'refusals'> & { address?: string | null };

export interface AuditQuery {
  class?: AuditClass;
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
  /**
   * The records kept from earlier runs, oldest first, at most `limit` of each class (see
   * {@link auditClassOf}). Throwing leaves the log empty and unavailable.
   */
  load(limit: number): AuditEntry[] | Promise<AuditEntry[]>;
  /**
   * Keeps one record: an action record as it happens, a refusal record when its window closes.
   * A sink keeps the classes apart (its own caps for each), so refusals never push action
   * records out.
   */
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
  /** Records in memory, both classes (open refusal records included). */
  entries: number;
  /** Of which: action records, refusal records, and refusal records still collecting. */
  classes: { action: number; refusal: number; open: number };
}

/** The caps of the log in memory. */
export interface AuditLimits {
  /** Action records kept (fw.admin.audit.max-entries). */
  maxEntries: number;
  refusals: RefusalLimits;
}

/**
 * The audit log: two bounded rings in memory (newest kept), one per class, in front of an
 * optional durable sink. An action record goes into memory first, so reads always show it, then
 * into the sink; when the sink cannot take it the log becomes unavailable and `record` throws
 * AuditUnavailableError, which refuses the write that wanted it. Every later record tries the
 * sink again, so the log recovers on its own. Refusals are aggregated (RefusalWindows): the open
 * record is shown at once and written to the sink when its window closes.
 */
export class AuditLog {
  private readonly actions: AuditEntry[] = [];
  private readonly refusals: AuditEntry[] = [];
  private readonly windows: RefusalWindows;
  private readonly limits: AuditLimits;
  private readonly sealed = new Set<(entry: AuditEntry) => void>();
  private seq = 0;
  private failure: string | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    limits: AuditLimits | number,
    private readonly sink?: AuditSink,
    private readonly log: Logger = fallbackLogger(),
  ) {
    this.limits = typeof limits === 'number' ? { maxEntries: limits, refusals: DEFAULT_REFUSAL_LIMITS } : limits;
    const { maxEntries, refusals } = this.limits;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('fw.admin.audit.max-entries must be a positive integer');
    if (!Number.isInteger(refusals.maxEntries) || refusals.maxEntries < 1)
      throw new RangeError('fw.admin.audit.refusals.max-entries must be a positive integer');
    this.windows = new RefusalWindows(
      refusals,
      () => ++this.seq,
      (entry) => this.keepSealed(entry),
    );
  }

  /** Loads the sink's earlier records. Never throws: a sink that cannot be read is reported and left unavailable. */
  async open(): Promise<this> {
    if (!this.sink) return this;
    try {
      const loaded = await this.sink.load(Math.max(this.limits.maxEntries, this.limits.refusals.maxEntries));
      // A sink returns each class in its own order; the log shows them by sequence.
      for (const e of [...loaded].sort((a, b) => a.seq - b.seq)) {
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
    const open = this.windows.size;
    return {
      sink: this.sink?.description ?? 'memory',
      available: this.available,
      error: this.failure,
      entries: this.size,
      classes: { action: this.actions.length, refusal: this.refusals.length + open, open },
    };
  }

  /**
   * Records one attempt. An action record goes into memory at once, then into the sink, in
   * order; throws AuditUnavailableError when the sink cannot take it. A refusal joins its
   * caller's open refusal record (returned as it stands) and never throws.
   */
  async record(entry: AuditRecord): Promise<AuditEntry> {
    if (auditClassOf(entry) === 'refusal') return this.windows.add(entry);
    const full: AuditEntry = {
      seq: ++this.seq,
      timestamp: new Date().toISOString(),
      ...entry,
      address: entry.address ?? null,
      class: 'action',
    };
    this.push(full);
    await this.write(full);
    return full;
  }

  /** Records without failing: for refusals and failures, whose answer does not depend on the record being durable. */
  async note(entry: AuditRecord): Promise<AuditEntry | undefined> {
    try {
      return await this.record(entry);
    } catch {
      return undefined;
    }
  }

  /** Tells `listener` about each refusal record when its window closes (the cluster's shared log keeps them). */
  onSealed(listener: (entry: AuditEntry) => void): () => void {
    this.sealed.add(listener);
    return () => this.sealed.delete(listener);
  }

  /** Newest first, filtered; open refusal records included. */
  query(q: AuditQuery = {}): AuditEntry[] {
    const all = [...this.actions, ...this.refusals, ...this.windows.current()].sort((a, b) => b.seq - a.seq);
    return filterAudit(all, q);
  }

  /** The refusal records still collecting (this node's; the cluster's shared log holds only closed ones). */
  openRefusals(): AuditEntry[] {
    return this.windows.current();
  }

  get size(): number {
    return this.actions.length + this.refusals.length + this.windows.size;
  }

  /** Writes the open refusal records and waits for every pending write. */
  async close(): Promise<void> {
    this.windows.sealAll();
    this.closed = true;
    await this.chain;
    await this.sink?.close?.();
  }

  private keepSealed(entry: AuditEntry): void {
    this.push(entry);
    for (const l of this.sealed) {
      try {
        l(entry);
      } catch (err) {
        this.log.warn({ error: errorSummary(err) }, 'an audit listener failed');
      }
    }
    // Best effort, in order with the action records: a refusal's answer was given long ago.
    if (!this.closed) this.write(entry).catch(() => undefined);
  }

  private async write(entry: AuditEntry): Promise<void> {
    const sink = this.sink;
    if (!sink) return;
    const write = this.chain.then(() => sink.append(entry));
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
  }

  private push(e: AuditEntry): void {
    const refusal = auditClassOf(e) === 'refusal';
    const ring = refusal ? this.refusals : this.actions;
    const max = refusal ? this.limits.refusals.maxEntries : this.limits.maxEntries;
    ring.push(e);
    if (ring.length > max) ring.splice(0, ring.length - max);
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
    if (q.class && auditClassOf(e) !== q.class) continue;
    // The "many addresses" record matches every action, principal and outcome it gathered.
    const r = e.refusals;
    if (q.action && e.action !== q.action && !r?.actions?.some((x) => x.value === q.action)) continue;
    if (q.principal && e.principal !== q.principal && !r?.principals?.some((x) => x.value === q.principal)) continue;
    if (q.outcome && e.outcome !== q.outcome && !r?.outcomes?.some((x) => x.value === q.outcome)) continue;
    // A refusal record spans its window: it matches when the window overlaps [from, to].
    const first = Date.parse(r?.firstAt ?? e.timestamp);
    const last = Date.parse(r?.lastAt ?? e.timestamp);
    if (q.from !== undefined && last < q.from) continue;
    if (q.to !== undefined && first > q.to) continue;
    out.push(e);
  }
  return out;
}
