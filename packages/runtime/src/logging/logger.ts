import { ConfigError } from '../config.js';

/**
 * The logger fw writes through: the pino interface, so pino itself, or any logger with level
 * methods that take a fields object and a message (`log.warn({ agent: 'x' }, 'text')`) and a
 * `child(bindings)` fits. Every fw package logs through `fw.logger` (docs/operations.md, *Logging*).
 */
export type LogFn = (fields: object, message?: string) => void;

export interface Logger {
  error: LogFn;
  warn: LogFn;
  info: LogFn;
  debug: LogFn;
  /** A logger whose every line carries `bindings` besides its own fields (fw binds `module`). */
  child(bindings: Record<string, unknown>): Logger;
}

/** The levels `fw.log.level` accepts, most to least severe, then `silent` (pino's names). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * An error as one log field without its stack: for failures that are the environment's, not the
 * code's (a provider answering 500, a database going away), where a stack says nothing useful and
 * a multi-line dump breaks line-oriented log pipelines.
 */
export function errorSummary(err: unknown): { name: string; message: string; code?: string | number; status?: number } {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const e = err as Error & { code?: unknown; statusCode?: unknown; status?: unknown };
  const status = typeof e.statusCode === 'number' ? e.statusCode : typeof e.status === 'number' ? e.status : undefined;
  return {
    name: e.name,
    message: e.message,
    ...(typeof e.code === 'string' || typeof e.code === 'number' ? { code: e.code } : {}),
    ...(status !== undefined ? { status } : {}),
  };
}

/** `fw.log.level` checked: a misspelt level is a configuration error, not a silent `info`. */
export function parseLogLevel(value: string): LogLevel {
  const level = value.trim().toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel;
  throw new ConfigError(`fw.log.level must be one of ${LOG_LEVELS.join(', ')} (got '${value}')`);
}
