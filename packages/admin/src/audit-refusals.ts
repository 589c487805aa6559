import { addressGroup } from '@fw/runtime';
import type { AuditEntry, AuditRecord } from './audit.js';

/**
 * How refusals are aggregated (the `fw.admin.audit.refusals.*` settings). Every bound is here, so
 * a flood from any number of addresses costs at most `maxOpen + 1` open records of bounded size.
 */
export interface RefusalLimits {
  /** Sealed refusal records kept in memory (fw.admin.audit.refusals.max-entries). */
  maxEntries: number;
  /** How long one record collects refusals, from its first (fw.admin.audit.refusals.window). */
  windowMs: number;
  /** Records collecting at once; past it refusals go into the one "many addresses" record (fw.admin.audit.refusals.max-open). */
  maxOpen: number;
  /** Distinct values of each kind a record names; more are only counted (fw.admin.audit.refusals.max-distinct). */
  maxDistinct: number;
  /** Longest target or reason kept (fw.admin.audit.refusals.max-value-length). */
  maxValueLength: number;
}

export const DEFAULT_REFUSAL_LIMITS: Readonly<RefusalLimits> = Object.freeze({
  maxEntries: 10_000,
  windowMs: 60_000,
  maxOpen: 1000,
  maxDistinct: 10,
  maxValueLength: 256,
});

/** One value seen in a window and how often. */
export interface Tally {
  value: string;
  count: number;
}

/** The kinds of values a refusal record tallies. */
export type TallyKind = 'targets' | 'reasons' | 'sources' | 'addresses' | 'principals' | 'actions' | 'outcomes';

/**
 * What one refusal record summarizes: how many refusals, when, and the values seen. A record of
 * one caller has `targets`, `reasons` and `sources`; the "many addresses" record also
 * `addresses`, `principals`, `actions` and `outcomes`. `other` counts refusals whose value was not
 * named because `max-distinct` values of that kind were already named.
 */
export interface RefusalSummary {
  count: number;
  firstAt: string;
  lastAt: string;
  /** Still collecting: its window has not closed, so it is in memory only (written when it closes). */
  open: boolean;
  targets: Tally[];
  reasons: Tally[];
  sources: Tally[];
  addresses?: Tally[];
  principals?: Tally[];
  actions?: Tally[];
  outcomes?: Tally[];
  other?: Partial<Record<TallyKind, number>>;
}

/** The address of the record that collects refusals past `max-open`. */
export const MANY_ADDRESSES = '(many addresses)';

interface Window {
  entry: AuditEntry & { refusals: RefusalSummary };
  first: number;
}

/**
 * The refusal windows: every refused, unauthenticated or malformed attempt joins the open record
 * of its caller (address group, principal), action and outcome, so a flood of 60,000 refusals
 * from one address is one record with a count, not 60,000 records that push the genuine ones out
 * of the log. A window closes `windowMs` after its first refusal and is handed to `onSeal` (the
 * log keeps it and writes it to its sink). At most `maxOpen` windows collect at once; refusals
 * that find no room go into one overflow record ("many addresses"), so memory stays bounded
 * whatever the number of addresses a flood comes from.
 */
export class RefusalWindows {
  private readonly open = new Map<string, Window>();
  private overflow: Window | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limits: RefusalLimits,
    private readonly nextSeq: () => number,
    private readonly onSeal: (entry: AuditEntry) => void,
    private readonly now: () => number = Date.now,
  ) {
    for (const key of ['windowMs', 'maxOpen', 'maxDistinct', 'maxValueLength'] as const) {
      const v = limits[key];
      if (!Number.isInteger(v) || v < 1) throw new RangeError(`${SETTING[key]} must be a positive integer`);
    }
  }

  /** Adds one refusal; returns its record as it stands now. */
  add(record: AuditRecord): AuditEntry {
    const t = this.now();
    const address = addressGroup(record.address ?? undefined);
    const key = `${address}\n${record.principal ?? ''}\n${record.action}\n${record.outcome}`;
    let w = this.open.get(key);
    if (w && t - w.first >= this.limits.windowMs) {
      this.seal(key, w);
      w = undefined;
    }
    if (!w) {
      if (this.open.size >= this.limits.maxOpen) this.sealDue(t);
      if (this.open.size < this.limits.maxOpen) {
        w = this.start(record, address, t, false);
        this.open.set(key, w);
      }
    }
    if (!w) {
      if (this.overflow && t - this.overflow.first >= this.limits.windowMs) this.sealOverflow();
      w = this.overflow ??= this.start(record, MANY_ADDRESSES, t, true);
      const s = w.entry.refusals;
      this.tally(s, 'addresses', address);
      this.tally(s, 'principals', record.principal ?? '(anonymous)');
      this.tally(s, 'actions', record.action);
      this.tally(s, 'outcomes', record.outcome);
    }
    const s = w.entry.refusals;
    s.count++;
    s.lastAt = new Date(t).toISOString();
    this.tally(s, 'targets', record.target);
    this.tally(s, 'reasons', record.reason ?? '');
    this.tally(s, 'sources', record.source);
    this.arm();
    return snapshot(w.entry);
  }

  /** The records still collecting, as they stand now. */
  current(): AuditEntry[] {
    const out = [...this.open.values()].map((w) => snapshot(w.entry));
    if (this.overflow) out.push(snapshot(this.overflow.entry));
    return out;
  }

  get size(): number {
    return this.open.size + (this.overflow ? 1 : 0);
  }

  /** Closes every window now (the log is closing). */
  sealAll(): void {
    for (const [key, w] of [...this.open]) this.seal(key, w);
    this.sealOverflow();
    this.disarm();
  }

  private start(record: AuditRecord, address: string, t: number, many: boolean): Window {
    const at = new Date(t).toISOString();
    const refusals: RefusalSummary = {
      count: 0,
      firstAt: at,
      lastAt: at,
      open: true,
      targets: [],
      reasons: [],
      sources: [],
      ...(many ? { addresses: [], principals: [], actions: [], outcomes: [] } : {}),
    };
    const entry = {
      seq: this.nextSeq(),
      timestamp: at,
      action: record.action,
      target: this.cut(record.target),
      principal: many ? null : record.principal,
      address,
      success: false,
      outcome: record.outcome,
      reason: record.reason === null ? null : this.cut(record.reason),
      source: record.source,
      class: 'refusal' as const,
      refusals,
    };
    return { entry, first: t };
  }

  private tally(s: RefusalSummary, kind: TallyKind, raw: string): void {
    const list = (s[kind] ??= []);
    const value = this.cut(raw);
    const found = list.find((x) => x.value === value);
    if (found) found.count++;
    else if (list.length < this.limits.maxDistinct) list.push({ value, count: 1 });
    else {
      s.other ??= {};
      s.other[kind] = (s.other[kind] ?? 0) + 1;
    }
  }

  /** Attacker-chosen text (a path, a header value in a reason) is kept to a bounded length. */
  private cut(text: string): string {
    return text.length <= this.limits.maxValueLength ? text : `${text.slice(0, this.limits.maxValueLength)}…`;
  }

  private sealDue(t: number): void {
    // Map order is opening order: the first ones are the oldest.
    for (const [key, w] of this.open) {
      if (t - w.first < this.limits.windowMs) break;
      this.seal(key, w);
    }
    if (this.overflow && t - this.overflow.first >= this.limits.windowMs) this.sealOverflow();
  }

  private seal(key: string, w: Window): void {
    this.open.delete(key);
    w.entry.refusals.open = false;
    this.onSeal(w.entry);
  }

  private sealOverflow(): void {
    const w = this.overflow;
    if (!w) return;
    this.overflow = undefined;
    w.entry.refusals.open = false;
    this.onSeal(w.entry);
  }

  /** One timer, for the oldest open window; none while nothing is open. */
  private arm(): void {
    if (this.timer) return;
    const oldest = Math.min(this.open.values().next().value?.first ?? Infinity, this.overflow?.first ?? Infinity);
    if (oldest === Infinity) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.sealDue(this.now());
        this.arm();
      },
      Math.max(0, oldest + this.limits.windowMs - this.now()),
    );
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

const SETTING: Record<'windowMs' | 'maxOpen' | 'maxDistinct' | 'maxValueLength', string> = {
  windowMs: 'fw.admin.audit.refusals.window',
  maxOpen: 'fw.admin.audit.refusals.max-open',
  maxDistinct: 'fw.admin.audit.refusals.max-distinct',
  maxValueLength: 'fw.admin.audit.refusals.max-value-length',
};

/** A copy that later refusals do not change (the record keeps collecting while it is open). */
function snapshot(e: AuditEntry): AuditEntry {
  const s = e.refusals!;
  const copy = (l: Tally[] | undefined): Tally[] | undefined => l?.map((x) => ({ ...x }));
  return {
    ...e,
    refusals: {
      ...s,
      targets: copy(s.targets)!,
      reasons: copy(s.reasons)!,
      sources: copy(s.sources)!,
      ...(s.addresses ? { addresses: copy(s.addresses)! } : {}),
      ...(s.principals ? { principals: copy(s.principals)! } : {}),
      ...(s.actions ? { actions: copy(s.actions)! } : {}),
      ...(s.outcomes ? { outcomes: copy(s.outcomes)! } : {}),
      ...(s.other ? { other: { ...s.other } } : {}),
    },
  };
}
