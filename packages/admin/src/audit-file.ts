import { fallbackLogger, type Logger } from '@fw/runtime';
import { auditClassOf, type AuditEntry, type AuditSink } from './audit.js';
import { RotatingJsonlFile, type RotationOptions } from './jsonl-file.js';

export interface FileSinkOptions extends RotationOptions {
  /** Rotation of the refusal file (fw.admin.audit.refusals.max-file-bytes / max-files); default the same as the action file. */
  refusals?: RotationOptions;
  /** Where skipped (torn) lines are reported; default fw's default logger. */
  log?: Logger;
}

/** `audit.jsonl` → `audit.refusals.jsonl`; a name without `.jsonl` gets `.refusals` appended. */
export function refusalFileOf(path: string): string {
  return path.endsWith('.jsonl') ? `${path.slice(0, -'.jsonl'.length)}.refusals.jsonl` : `${path}.refusals`;
}

/**
 * The audit log as JSON Lines, one record per line, written synchronously (the record is with the
 * OS before the write it describes runs). Each class has its own file, rotated by size on its own
 * caps: action records in `path`, refusal records in `audit.refusals.jsonl` beside it, so a flood
 * of refusals rotates only their own file and never an action record out. A torn last line (a
 * crash mid-write) is skipped on load instead of failing the start.
 */
export class FileAuditSink implements AuditSink {
  readonly description: string;
  private readonly actions: RotatingJsonlFile;
  private readonly refusals: RotatingJsonlFile;
  /** Lines of the files that could not be parsed at load (torn writes). */
  skippedLines = 0;

  constructor(
    readonly path: string,
    private readonly options: FileSinkOptions,
  ) {
    check(options, 'fw.admin.audit');
    const refusals = options.refusals ?? options;
    check(refusals, 'fw.admin.audit.refusals');
    this.actions = new RotatingJsonlFile(path, options);
    this.refusals = new RotatingJsonlFile(refusalFileOf(path), refusals);
    this.description = `file ${path}`;
  }

  load(limit: number): AuditEntry[] {
    const out: AuditEntry[] = [];
    this.skippedLines = 0;
    for (const [file, cls] of [
      [this.actions, 'action'],
      [this.refusals, 'refusal'],
    ] as const) {
      const kept: AuditEntry[] = [];
      for (const value of file.read()) {
        const e = value as AuditEntry;
        if (e === null || typeof e !== 'object' || typeof e.seq !== 'number' || typeof e.action !== 'string') {
          this.skippedLines++;
          continue;
        }
        // A file written before classes existed holds both: each record goes by its class.
        if (cls === 'action' || auditClassOf(e) === 'refusal') kept.push({ ...e, address: e.address ?? null });
      }
      this.skippedLines += file.skippedLines;
      const actions = kept.filter((e) => auditClassOf(e) === 'action');
      const refusals = kept.filter((e) => auditClassOf(e) === 'refusal');
      out.push(...actions.slice(-limit), ...refusals.slice(-limit));
    }
    if (this.skippedLines)
      (this.options.log ?? fallbackLogger()).warn(
        { sink: this.description, skippedLines: this.skippedLines },
        'skipped unreadable lines in the audit log',
      );
    return out;
  }

  append(entry: AuditEntry): void {
    (auditClassOf(entry) === 'refusal' ? this.refusals : this.actions).append(entry);
  }

  close(): void {
    this.actions.close();
    this.refusals.close();
  }
}

function check(o: RotationOptions, prefix: string): void {
  if (!Number.isInteger(o.maxBytes) || o.maxBytes < 1024)
    throw new RangeError(`${prefix}.max-file-bytes must be an integer of at least 1024`);
  if (!Number.isInteger(o.maxFiles) || o.maxFiles < 0) throw new RangeError(`${prefix}.max-files must be a non-negative integer`);
}
