/**
 * Which store errors are faults of the store itself (a PostgreSQL that restarts or fails over, a
 * connection cut, a full or read-only disk) rather than of one write (a constraint, a bug): a
 * fault is retried within `fw.store.retry-budget`, then turns the store unavailable until a probe
 * write succeeds again; any other error belongs to the write that caused it.
 */
import { FwError } from '@fw/runtime';

/** PostgreSQL SQLSTATEs of a server that is going away, not there yet, or out of room. */
const PG_FAULT_STATES = new Set([
  '57P01', // admin_shutdown (a restart, a failover)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, in recovery)
  '53100', // disk_full
  '53200', // out_of_memory
  '53300', // too_many_connections
  '25006', // read_only_sql_transaction (a standby promoted late, a read-only replica)
  '40001', // serialization_failure: retrying is what it asks for
  '40P01', // deadlock_detected: same
]);

/** Socket and filesystem errnos of a store that cannot be reached or written. */
const ERRNO_FAULTS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOSPC',
  'EROFS',
  'EDQUOT',
  'EIO',
]);

/** `pg`'s own messages for a connection that ended or never came up (they carry no code). */
const PG_CLIENT_MESSAGES = [
  'Connection terminated',
  'connection is not queryable',
  'timeout exceeded when trying to connect',
  'Connection ended',
  'server closed the connection',
];

/** SQLite result codes (and their extended forms) of a disk that is full, read-only or failing. */
const SQLITE_FAULT = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY|LOCKED|NOMEM)/;

/** What kind of store fault an error is, or undefined when it is the write's own error. */
export type FaultKind = 'disk_full' | 'read_only' | 'unreachable';

export function faultOf(err: unknown): FaultKind | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    const c = typeof code === 'string' ? code : '';
    const m = typeof message === 'string' ? message : '';
    if (c === 'ENOSPC' || c === 'EDQUOT' || c === '53100' || c.startsWith('SQLITE_FULL') || /database or disk is full/i.test(m))
      return 'disk_full';
    if (c === 'EROFS' || c === '25006' || c.startsWith('SQLITE_READONLY') || /readonly database|read-only file system/i.test(m))
      return 'read_only';
    if (PG_FAULT_STATES.has(c) || c.startsWith('08') || ERRNO_FAULTS.has(c) || SQLITE_FAULT.test(c)) return 'unreachable';
    if (PG_CLIENT_MESSAGES.some((p) => m.includes(p))) return 'unreachable';
  }
  return undefined;
}

/**
 * What the operator reads in the log (never the client): the store's location and what to do. The
 * location of a PostgreSQL store comes without its password.
 */
export function faultAdvice(kind: FaultKind, kindOfStore: 'sqlite' | 'memory' | 'postgres', location: string): string {
  if (kind === 'disk_full') {
    return kindOfStore === 'postgres'
      ? `the PostgreSQL server of ${location} is out of disk space: free space on its data volume`
      : `the disk holding ${location} is full: free space on that filesystem, writes resume by themselves (fw.store.budget and fw.store.min-free-disk refuse new work before the disk fills)`;
  }
  if (kind === 'read_only') {
    return kindOfStore === 'postgres'
      ? `the PostgreSQL server of ${location} accepts no writes (a read-only replica or a standby): point fw.store.postgres-url at the primary`
      : `${location} cannot be written (a read-only filesystem or file): remount it read-write or fix its permissions, writes resume by themselves`;
  }
  return `the store at ${location} cannot be reached: check that the database is running; fw retries and recovers by itself`;
}

/**
 * What a client reads when fw cannot make its work durable: the store is down (or its disk full)
 * and nothing was confirmed. No address, path or driver message: those are in the server log.
 */
export class StoreUnavailableError extends FwError {
  constructor() {
    super('store_unavailable', 'the store is unavailable, so this could not be saved; try again later', 503, undefined, {
      'retry-after': '5',
    });
  }
}
