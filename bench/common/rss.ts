import { openSync, readSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

/**
 * `/proc/self/statm`, opened once while the process has file descriptors to spare:
 * `process.memoryUsage()` opens `/proc/self/stat` at every reading, which fails (EMFILE) in a
 * server process holding as many sockets as its open-file limit allows (a cluster worker that
 * round-robin handed ~19,700 of the bench's connections). Elsewhere than Linux it is not there and
 * `process.memoryUsage()` is used.
 */
const statm = (() => {
  try {
    return openSync('/proc/self/statm', 'r');
  } catch {
    return undefined;
  }
})();
const statmBuffer = Buffer.alloc(128);

function residentPages(): number {
  const n = readSync(statm!, statmBuffer, 0, statmBuffer.length, 0);
  return Number(statmBuffer.toString('latin1', 0, n).split(' ')[1]);
}
/** Bytes per page, from one reading of each while `process.memoryUsage()` still works. */
const pageSize = statm === undefined ? 0 : 2 ** Math.round(Math.log2(process.memoryUsage.rss() / residentPages()));

export interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
}

/**
 * Resident set size after the heap has settled: a full GC when the process runs with
 * `--expose-gc` (the benches' children do), then a short pause so that freed pages are returned
 * before reading. Memory per connection is then (after − before) / connections, measured in a
 * process that holds nothing but the server under test.
 */
export async function settledMemory(): Promise<Memory> {
  // Node with --expose-gc, or Bun (bench/fanout's Bun kinds), whose full collection is Bun.gc(true).
  const bun = (globalThis as { Bun?: { gc(full: boolean): void } }).Bun;
  const gc = (globalThis as { gc?: () => void }).gc ?? (bun ? () => bun.gc(true) : undefined);
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  if (statm === undefined) return process.memoryUsage();
  const heap = getHeapStatistics();
  return { rss: residentPages() * pageSize, heapUsed: heap.used_heap_size, external: heap.external_memory };
}

export async function settledRss(): Promise<number> {
  return (await settledMemory()).rss;
}

export function mb(bytes: number): string {
  return (bytes / 1048576).toFixed(1);
}
