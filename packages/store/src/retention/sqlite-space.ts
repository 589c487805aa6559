/**
 * Making the embedded store give deleted space back to the filesystem. SQLite keeps deleted pages
 * in its file (on a free list it reuses) unless told otherwise:
 *
 * - `auto_vacuum = INCREMENTAL`: the file keeps the bookkeeping that lets `incremental_vacuum(N)`
 *   move up to N pages from the end into free slots and cut the file. It must be chosen before
 *   the first table exists; a file made without it is converted once, at open, by a VACUUM
 *   (which rewrites the file: the time and the temporary space of one copy, logged).
 * - `journal_size_limit`: after a checkpoint the WAL file is cut back to this size instead of
 *   keeping the largest size it ever had; retention's TRUNCATE checkpoints empty it.
 *
 * `incremental_vacuum` frees one page per step of its statement, and libSQL's `execute` steps a
 * statement that returns no rows once: it goes through `executeMultiple` (sqlite3_exec, which runs
 * it to the end), in chunks so that one call never holds the event loop long.
 */
import type { Client } from '@libsql/client';
import type { Kysely } from 'kysely';
import type { Logger } from '@fw/runtime';
import { yieldToLoop } from './batches.js';

/** Pages one `incremental_vacuum` call frees (4 KiB pages: 1 MiB, a few ms measured). */
const VACUUM_CHUNK_PAGES = 256;

/**
 * Right after the file is opened, before WAL mode and the migrations: incremental auto-vacuum
 * (converting an older file once) and the WAL limit. True when the file gives space back.
 */
export async function prepareSqliteSpace(client: Client, walLimit: number, log: Logger): Promise<boolean> {
  await client.execute(`PRAGMA journal_size_limit = ${Math.max(0, Math.floor(walLimit))}`);
  const mode = async (): Promise<number> => Number((await client.execute('PRAGMA auto_vacuum')).rows[0]?.[0]);
  if ((await mode()) === 2) return true;
  // Takes effect at once on an empty file; an existing one needs the VACUUM to rebuild it.
  await client.execute('PRAGMA auto_vacuum = INCREMENTAL');
  const tables = Number((await client.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'")).rows[0]?.[0] ?? 0);
  if (tables > 0) {
    const started = performance.now();
    try {
      await client.execute('VACUUM');
      log.info(
        { ms: Math.round(performance.now() - started) },
        'store converted to incremental vacuum (once): deleted space is now given back',
      );
    } catch (err) {
      // A full disk cannot hold the copy: the store still works and reuses its free pages.
      log.warn(
        { error: (err as Error).message },
        'store could not be converted to incremental vacuum; deleted space is reused but not given back',
      );
    }
  }
  return (await mode()) === 2;
}

/** Chunks between two WAL checkpoints while space is given back (4 MiB, about one automatic checkpoint's worth). */
const CHUNKS_PER_CHECKPOINT = 4;

/**
 * Gives the free pages back and empties the WAL. Every step holds the one connection briefly and
 * the event loop gets a turn between two steps: a step is either one chunk of `incremental_vacuum`
 * or one TRUNCATE checkpoint (its fsync is the slower of the two). The pages a chunk moves pass
 * through the WAL, so the WAL is emptied before the first chunk, after every
 * `CHUNKS_PER_CHECKPOINT` chunks and at the end: the data directory never holds more than 4 MiB
 * above what it held before. Returns the free pages left.
 */
export async function reclaimSqliteSpace(
  db: Kysely<unknown>,
  client: Client,
  stopped: () => boolean,
  onStep: (ms: number) => void = () => {},
): Promise<number> {
  const step = async <T>(work: () => Promise<T>): Promise<T> => {
    const result = await db.connection().execute(async () => {
      const started = performance.now();
      const r = await work();
      onStep(performance.now() - started);
      return r;
    });
    await yieldToLoop();
    return result;
  };
  const freePages = async (): Promise<number> => Number((await client.execute('PRAGMA freelist_count')).rows[0]?.[0] ?? 0);
  const checkpoint = (): Promise<unknown> => step(() => client.execute('PRAGMA wal_checkpoint(TRUNCATE)'));
  // The WAL emptied first: the moved pages then never sit on top of what it already held.
  await checkpoint();
  let left = await step(freePages);
  for (let chunk = 1; left > 0 && !stopped(); chunk++) {
    const after = await step(async () => {
      await client.executeMultiple(`PRAGMA incremental_vacuum(${VACUUM_CHUNK_PAGES});`);
      return freePages();
    });
    if (chunk % CHUNKS_PER_CHECKPOINT === 0) await checkpoint();
    // Nothing moved: a file without incremental auto-vacuum frees nothing.
    if (after >= left) break;
    left = after;
  }
  await checkpoint();
  return left;
}
