import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { fallbackLogger, type Logger } from '@fw/runtime';
import type { AuditEntry, AuditSink } from './audit.js';

export interface FileSinkOptions {
  /** Past this many bytes the file is rotated (`audit.jsonl` → `audit.jsonl.1`, …). */
  maxBytes: number;
  /** Rotated files kept besides the live one; older ones are deleted. */
  maxFiles: number;
  /** Where skipped (torn) lines are reported; default fw's default logger. */
  log?: Logger;
}

/**
 * The audit log as JSON Lines in a file, one record per line, written synchronously (the record
 * is with the OS before the write it describes runs). Size-based rotation keeps `maxFiles` older
 * files. A torn last line (a crash mid-write) is skipped on load instead of failing the start.
 */
export class FileAuditSink implements AuditSink {
  readonly description: string;
  private fd: number | undefined;
  private size = 0;
  /** Lines of the files that could not be parsed at load (torn writes). */
  skippedLines = 0;

  constructor(
    private readonly path: string,
    private readonly options: FileSinkOptions,
  ) {
    if (!Number.isInteger(options.maxBytes) || options.maxBytes < 1024)
      throw new RangeError('fw.admin.audit.max-file-bytes must be an integer of at least 1024');
    if (!Number.isInteger(options.maxFiles) || options.maxFiles < 0)
      throw new RangeError('fw.admin.audit.max-files must be a non-negative integer');
    this.description = `file ${path}`;
  }

  load(limit: number): AuditEntry[] {
    mkdirSync(dirname(this.path), { recursive: true });
    const out: AuditEntry[] = [];
    for (let i = this.options.maxFiles; i >= 0; i--) {
      const file = i === 0 ? this.path : `${this.path}.${i}`;
      // Only regular files are read: a device or a FIFO in the data directory must not hang the start.
      if (!existsSync(file) || !statSync(file).isFile()) continue;
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        try {
          const e = JSON.parse(line) as AuditEntry;
          if (typeof e.seq !== 'number' || typeof e.action !== 'string') throw new Error('not an audit entry');
          out.push({ ...e, address: e.address ?? null });
        } catch {
          this.skippedLines++;
        }
      }
    }
    if (this.skippedLines)
      (this.options.log ?? fallbackLogger()).warn(
        { sink: this.description, skippedLines: this.skippedLines },
        'skipped unreadable lines in the audit log',
      );
    this.openFile();
    // A torn last line has no newline: start the next append on a fresh line.
    if (this.size > 0 && statSync(this.path).isFile() && !readFileSync(this.path, 'utf8').endsWith('\n')) this.write('\n');
    return out.slice(-limit);
  }

  append(entry: AuditEntry): void {
    const line = `${JSON.stringify(entry)}\n`;
    const bytes = Buffer.byteLength(line);
    if (this.fd === undefined) this.openFile();
    if (this.size > 0 && this.size + bytes > this.options.maxBytes) this.rotate();
    this.write(line);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private openFile(): void {
    mkdirSync(dirname(this.path), { recursive: true });
    this.fd = openSync(this.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  private write(text: string): void {
    const buf = Buffer.from(text);
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd!, buf, off);
    this.size += buf.length;
  }

  private rotate(): void {
    this.close();
    const keep = this.options.maxFiles;
    if (keep === 0) {
      rmSync(this.path, { force: true });
    } else {
      rmSync(`${this.path}.${keep}`, { force: true });
      for (let i = keep - 1; i >= 1; i--) if (existsSync(`${this.path}.${i}`)) renameSync(`${this.path}.${i}`, `${this.path}.${i + 1}`);
      renameSync(this.path, `${this.path}.1`);
    }
    this.openFile();
  }
}
