import type { Logger } from '@fw/runtime';

/** What a client reads instead of a system error's own text. */
const HIDDEN = 'an internal error occurred (details are in the server log)';

/**
 * Whether `err` is one of Node's system errors (a failed connect, open, lookup…): it has a
 * `syscall`, a numeric `errno`, or an `E…` code such as ECONNREFUSED or ENOENT. Their messages
 * name internal addresses and paths (`connect ECONNREFUSED 10.0.0.5:5432`, `ENOENT: no such file
 * or directory, open '/srv/app/…'`).
 */
export function isSystemError(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false;
  const e = err as { syscall?: unknown; errno?: unknown; code?: unknown };
  return typeof e.syscall === 'string' || typeof e.errno === 'number' || (typeof e.code === 'string' && /^E[A-Z0-9_]+$/.test(e.code));
}

/**
 * The text of a failure that reaches an MCP client (a tool error the model reads, a failed
 * read, an internal error): the error's own message — the application chose it — except for a
 * system error, whose message is logged on the server and replaced, so that no answer reveals
 * internal addresses or paths. A stack trace is never part of it.
 */
export function publicMessage(err: unknown, log: Logger, what: string): string {
  if (isSystemError(err)) {
    log.warn({ err, what }, 'an MCP request failed with a system error; the client was told only that an internal error occurred');
    return HIDDEN;
  }
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : 'unknown error';
}
