import type { Logger } from './logger.js';

export interface LogEntry {
  level: 'error' | 'warn' | 'info' | 'debug';
  /** The child loggers' bindings and the line's own fields, merged as pino merges them. */
  fields: Record<string, unknown>;
  message: string | undefined;
}

/**
 * A logger that keeps its entries in memory (its children add to the same list): for tests
 * that assert what fw logged, and to keep a test's output quiet.
 */
export class MemoryLogger implements Logger {
  constructor(
    readonly entries: LogEntry[] = [],
    private readonly bindings: Record<string, unknown> = {},
  ) {}

  private write(level: LogEntry['level']) {
    return (fields: object, message?: string): void => {
      this.entries.push({ level, fields: { ...this.bindings, ...fields }, message });
    };
  }

  readonly error = this.write('error');
  readonly warn = this.write('warn');
  readonly info = this.write('info');
  readonly debug = this.write('debug');

  child(bindings: Record<string, unknown>): Logger {
    return new MemoryLogger(this.entries, { ...this.bindings, ...bindings });
  }
}
