/**
 * Resident set size after the heap has settled: a full GC when the process runs with
 * `--expose-gc` (the benches' children do), then a short pause so that freed pages are returned
 * before reading. Memory per connection is then (after − before) / connections, measured in a
 * process that holds nothing but the server under test.
 */
export async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  return process.memoryUsage();
}

export async function settledRss(): Promise<number> {
  return (await settledMemory()).rss;
}

export function mb(bytes: number): string {
  return (bytes / 1048576).toFixed(1);
}
