/**
 * How big the store is, for the budget.
 *
 * - Embedded: the bytes of every file in the data directory (the SQLite file, its WAL and
 *   shared-memory files, the admin audit file, anything else put there) plus the store's files if
 *   they live elsewhere: what the operator's disk holds. Retention gives deleted pages back
 *   (sqlite-space.ts), so this falls when rows go. Also the free bytes of that filesystem.
 * - In memory: the pages of the database.
 * - PostgreSQL: `bytes` are the relations of fw tables (heap, TOAST and indexes:
 *   `pg_total_relation_size`). PostgreSQL keeps a relation's size after a DELETE and reuses the
 *   space once vacuumed, so the budget counts what is used: each relation's size scaled by how
 *   full its table is (live rows × their average size, sampled, over the table's heap and TOAST
 *   bytes). An estimate, within a few percent of a dense table.
 */
import { statSync } from 'node:fs';
import { readdir, stat, statfs } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { StoreSchema } from '../schema.js';

export interface StoreSize {
  /** What the store takes on disk (or in memory). */
  bytes: number;
  /** What the budget compares: `bytes` on SQLite; on PostgreSQL the part in use. */
  usedBytes: number;
  /** Free bytes of the data directory's filesystem (embedded file store only). */
  freeDiskBytes?: number;
}

/**
 * A full measurement; `quick`, where there is one, a synchronous reading of what changes fastest
 * (the embedded store's own files), for the budget to decide each admission on the present size.
 */
export type Measure = ((exact: boolean) => Promise<StoreSize>) & { quick?: () => StoreSize | undefined };

/** Every table of the store (fw_migrations is fw's too). */
export const STORE_TABLES = [
  'fw_a2a_tasks',
  'fw_agent_sessions',
  'fw_agent_session_messages',
  'fw_agent_journal',
  'fw_agent_journal_parties',
  'fw_agent_runs',
  'fw_admin_audit',
  'fw_tape_runs',
  'fw_tape_steps',
  'fw_eval_cases',
  'fw_eval_runs',
  'fw_eval_results',
  'fw_spend_daily',
  'fw_migrations',
  'fw_migrations_lock',
] as const;

/** How long a PostgreSQL table's sampled average row size is used before it is sampled again. */
const ROW_SAMPLE_MS = 60_000;

/** Files walked at most in the data directory (a directory someone filled with other things). */
const MAX_FILES = 10_000;

/**
 * `usedBytes` is what is on disk: free pages inside the file go back to the filesystem after each
 * pass (sqlite-space.ts), and until then the budget counts them, so no new work is let in while the
 * disk still holds them. Only a file that cannot give space back (its conversion failed) has its
 * free pages left out: it reuses them before it grows, and would otherwise refuse forever.
 */
export function fileStoreMeasure(db: Kysely<StoreSchema>, file: string, dataDir: string | undefined, reclaims: boolean): Measure {
  const own = [file, `${file}-wal`, `${file}-shm`];
  /** What the last full measurement found besides the store's own files, and the free disk. */
  let others = 0;
  let freeDisk: number | undefined;
  const measure: Measure = async () => {
    const seen = new Set<string>();
    let bytes = 0;
    const add = async (path: string): Promise<void> => {
      if (seen.has(path) || seen.size >= MAX_FILES) return;
      seen.add(path);
      const s = await stat(path).catch(() => undefined);
      if (s?.isFile()) bytes += s.size;
    };
    for (const f of own) await add(f);
    const mine = bytes;
    if (dataDir) await walk(dataDir, add, seen);
    others = bytes - mine;
    const fs = await statfs(dataDir ?? dirname(file)).catch(() => undefined);
    freeDisk = fs ? fs.bavail * fs.bsize : undefined;
    const free = reclaims ? 0 : await freePageBytes(db);
    return { bytes, usedBytes: Math.max(0, bytes - free), ...(freeDisk !== undefined ? { freeDiskBytes: freeDisk } : {}) };
  };
  // Three stat calls (microseconds): the SQLite file and its WAL grow between two full
  // measurements faster than anything else in the directory. Only where used = on disk.
  if (reclaims) {
    measure.quick = () => {
      let bytes = others;
      for (const f of own) {
        try {
          bytes += statSync(f).size;
        } catch {
          // not there (yet): 0
        }
      }
      return { bytes, usedBytes: bytes, ...(freeDisk !== undefined ? { freeDiskBytes: freeDisk } : {}) };
    };
  }
  return measure;
}

async function walk(dir: string, add: (path: string) => Promise<void>, seen: Set<string>): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (seen.size >= MAX_FILES) return;
    const path = join(dir, e.name);
    if (e.isDirectory()) await walk(path, add, seen);
    else if (e.isFile()) await add(path);
  }
}

export function memoryStoreMeasure(db: Kysely<StoreSchema>): Measure {
  return async () => {
    const bytes = (await pragma(db, 'page_count')) * (await pragma(db, 'page_size'));
    return { bytes, usedBytes: Math.max(0, bytes - (await freePageBytes(db))) };
  };
}

async function pragma(db: Kysely<StoreSchema>, name: 'page_count' | 'page_size' | 'freelist_count'): Promise<number> {
  const r = await sql<Record<string, number>>`PRAGMA ${sql.raw(name)}`.execute(db);
  return Number(Object.values(r.rows[0] ?? {})[0] ?? 0);
}

async function freePageBytes(db: Kysely<StoreSchema>): Promise<number> {
  return (await pragma(db, 'freelist_count')) * (await pragma(db, 'page_size'));
}

interface RelationRow {
  relname: string;
  total: number;
  heap: number;
  live: number;
  pages: number;
}

/**
 * `exact`: live rows are counted (under pressure, right after deletes, when the statistics
 * collector may not have caught up yet); otherwise its `n_live_tup` is used.
 */
export function postgresMeasure(db: Kysely<StoreSchema>): Measure {
  // A table's average row changes slowly: sampled at most once a minute per table, so that the
  // measurement every second is the one query above.
  const rowBytes = new Map<string, { bytes: number | undefined; at: number }>();
  const averageRow = async (table: string, pages: number): Promise<number | undefined> => {
    const known = rowBytes.get(table);
    if (known && Date.now() - known.at < ROW_SAMPLE_MS) return known.bytes;
    const bytes = await sampledRowBytes(db, table, pages);
    rowBytes.set(table, { bytes, at: Date.now() });
    return bytes;
  };
  return async (exact) => {
    const r = await sql<RelationRow>`
      SELECT c.relname,
             pg_total_relation_size(c.oid)::float8 AS total,
             (pg_relation_size(c.oid) + coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0))::float8 AS heap,
             coalesce(s.n_live_tup, 0)::float8 AS live,
             greatest(c.relpages, 1)::float8 AS pages
        FROM pg_class c
        LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
       WHERE c.oid IN (SELECT to_regclass(t) FROM unnest(${sql.val([...STORE_TABLES])}::text[]) AS t)`.execute(db);
    let bytes = 0;
    let usedBytes = 0;
    for (const rel of r.rows) {
      bytes += rel.total;
      if (rel.heap <= 0 || rel.total <= 0) continue;
      const live = exact ? await exactCount(db, rel.relname) : rel.live;
      if (live === 0) continue;
      const row = await averageRow(rel.relname, rel.pages);
      // A heap tuple carries a 24-byte header and a 4-byte line pointer beside its data.
      const fill = row === undefined ? 1 : Math.min(1, (live * (row + 28)) / rel.heap);
      usedBytes += rel.total * fill;
    }
    return { bytes, usedBytes: Math.round(usedBytes) };
  };
}

async function exactCount(db: Kysely<StoreSchema>, table: string): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::float8 AS n FROM ${sql.table(table)}`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

/** The leading primary-key column of each table: a bounded read of a few rows through its index. */
const KEY: Record<(typeof STORE_TABLES)[number], string> = {
  fw_a2a_tasks: 'id',
  fw_agent_sessions: 'id',
  fw_agent_session_messages: 'session_id',
  fw_agent_journal: 'id',
  fw_agent_journal_parties: 'party',
  fw_agent_runs: 'id',
  fw_admin_audit: 'id',
  fw_tape_runs: 'id',
  fw_tape_steps: 'run_id',
  fw_eval_cases: 'dataset',
  fw_eval_runs: 'id',
  fw_eval_results: 'eval_run_id',
  fw_spend_daily: 'day',
  fw_migrations: 'name',
  fw_migrations_lock: 'id',
};

/** The average size of a row's data, from about 64 random pages of the table (undefined: empty). */
async function sampledRowBytes(db: Kysely<StoreSchema>, table: string, pages: number): Promise<number | undefined> {
  const percent = Math.min(100, (64 / pages) * 100);
  const r = await sql<{ avg: number | null }>`
    SELECT avg(pg_column_size(t.*))::float8 AS avg FROM ${sql.table(table)} AS t TABLESAMPLE SYSTEM (${sql.lit(percent)})`.execute(db);
  const avg = r.rows[0]?.avg;
  if (avg !== null && avg !== undefined) return Number(avg);
  // The sample missed every live row of a sparse table: 200 rows through the primary key instead
  // (never a scan of the mostly empty heap).
  const key = KEY[table as keyof typeof KEY] ?? 'id';
  const some = await sql<{ avg: number | null }>`
    SELECT avg(pg_column_size(t.*))::float8 AS avg
      FROM (SELECT * FROM ${sql.table(table)} ORDER BY ${sql.ref(key)} LIMIT 200) AS t`.execute(db);
  const v = some.rows[0]?.avg;
  return v === null || v === undefined ? undefined : Number(v);
}
