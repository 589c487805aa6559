import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';

export type AuditOutcome = 'allowed' | 'refused' | 'failed';
export type AuditSource = 'rest' | 'dashboard' | 'mcp';

/** One write attempt, whatever came of it. */
export interface AuditEntry {
  seq: number;
  timestamp: string;
  action: string;
  target: string;
  principal: string | null;
  /** true only when the action ran and succeeded. */
  success: boolean;
  outcome: AuditOutcome;
  reason: string | null;
  source: AuditSource;
}

export interface AuditQuery {
  action?: string;
  principal?: string;
  outcome?: string;
  from?: number;
  to?: number;
  limit?: number;
}

/**
 * The audit log: a bounded ring in memory (newest kept), optionally mirrored to a JSON Lines file
 * that is reloaded at start so the log survives a restart. Appends are synchronous so an entry is
 * on disk before the response that reports the action; a torn last line (a crash mid-write) is
 * skipped on reload instead of failing the start.
 */
export class AuditLog {
  private readonly entries: AuditEntry[] = [];
  private seq = 0;
  /** Lines of the file that could not be parsed at load (torn writes). */
  readonly skippedLines: number;

  constructor(private readonly maxEntries: number, private readonly file?: string) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('fw.admin.audit.max-entries must be a positive integer');
    this.skippedLines = file ? this.load(file) : 0;
  }

  record(entry: Omit<AuditEntry, 'seq' | 'timestamp'>): AuditEntry {
    const full: AuditEntry = { seq: ++this.seq, timestamp: new Date().toISOString(), ...entry };
    this.push(full);
    if (this.file) {
      try {
        appendFileSync(this.file, JSON.stringify(full) + '\n');
      } catch (err) {
        console.error(`[fw] admin: cannot append to audit file ${this.file}:`, err);
      }
    }
    return full;
  }

  /** Newest first, filtered. */
  query(q: AuditQuery = {}): AuditEntry[] {
    return filterAudit([...this.entries].reverse(), q);
  }

  get size(): number {
    return this.entries.length;
  }

  private push(e: AuditEntry): void {
    this.entries.push(e);
    if (this.entries.length > this.maxEntries) this.entries.splice(0, this.entries.length - this.maxEntries);
  }

  private load(file: string): number {
    mkdirSync(dirname(file), { recursive: true });
    if (!existsSync(file)) return 0;
    const text = readFileSync(file, 'utf8');
    let skipped = 0;
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const e = JSON.parse(line) as AuditEntry;
        if (typeof e.seq !== 'number' || typeof e.action !== 'string') throw new Error('not an audit entry');
        this.push(e);
        this.seq = Math.max(this.seq, e.seq);
      } catch {
        skipped++;
      }
    }
    // A torn last line has no newline: start the next append on a fresh line.
    if (text.length > 0 && !text.endsWith('\n')) appendFileSync(file, '\n');
    if (skipped) console.warn(`[fw] admin: skipped ${skipped} unreadable line(s) in audit file ${file}`);
    return skipped;
  }
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
