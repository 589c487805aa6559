import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Size-based rotation of one JSON Lines file. */
export interface RotationOptions {
  /** Past this many bytes the file is rotated (`x.jsonl` → `x.jsonl.1`, …). */
  maxBytes: number;
  /** Rotated files kept besides the live one; older ones are deleted. */
  maxFiles: number;
}

/**
 * One JSON Lines file, appended to synchronously (a line is with the OS when `append` returns)
 * and rotated by size, keeping `maxFiles` older files. Reading skips lines that do not parse (a
 * crash mid-write leaves a torn last line) and counts them.
 */
export class RotatingJsonlFile {
  private fd: number | undefined;
  private size = 0;
  /** Lines that could not be parsed at the last read (torn writes). */
  skippedLines = 0;

  constructor(
    readonly path: string,
    private readonly options: RotationOptions,
  ) {}

  /** Every parsed line of the rotated files and the live one, oldest first; opens the live file for appending. */
  read(): unknown[] {
    mkdirSync(dirname(this.path), { recursive: true });
    const out: unknown[] = [];
    this.skippedLines = 0;
    for (let i = this.options.maxFiles; i >= 0; i--) {
      const file = i === 0 ? this.path : `${this.path}.${i}`;
      // Only regular files are read: a device or a FIFO in the data directory must not hang the start.
      if (!existsSync(file) || !statSync(file).isFile()) continue;
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        try {
          out.push(JSON.parse(line));
        } catch {
          this.skippedLines++;
        }
      }
    }
    this.openFile();
    // A torn last line has no newline: start the next append on a fresh line.
    if (this.size > 0 && statSync(this.path).isFile() && !readFileSync(this.path, 'utf8').endsWith('\n')) this.write('\n');
    return out;
  }

  append(value: unknown): void {
    const line = `${JSON.stringify(value)}\n`;
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
