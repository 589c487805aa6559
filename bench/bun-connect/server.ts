/**
 * One server of bench/bun-connect, alone in its process on Bun: `fw` (fw's real-time endpoint,
 * `fw.listen()` on `Bun.serve`), `bun` (Bun's own pub/sub: upgrade, subscribe one topic), or `fw`
 * with parts of its connect replaced by the least that still opens the socket (`--skip`), to
 * see what each part costs:
 *
 * - `resource`: the open socket gets no resource (no registry, broadcaster, handshake);
 * - `admission`: no query parsing, interceptors, shares (an admitted upgrade made up once);
 * - `route`: the route of the first upgrade is reused (no URL parse, no Host/Origin screening).
 *
 * Driven by bench/bun-connect/index.ts over IPC: `mark` before the clients connect, `measure` once
 * they have: CPU per thread (`/proc/self/task`), and the JavaScript heap by `bun:jsc`'s
 * `heapStats()` after full collections.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Framework } from '@fw/runtime';
import { HandlerTransports } from '@fw/runtime/internals';
import { serveParent } from '../common/child.js';

interface HeapStats {
  heapSize: number;
  extraMemorySize: number;
  objectCount: number;
  objectTypeCounts: Record<string, number>;
}
interface BunApi {
  gc(full: boolean): void;
  serve(options: unknown): { port: number };
}

const bun = (globalThis as { Bun?: BunApi }).Bun;
if (bun === undefined) throw new Error('bench/bun-connect/server.js runs on Bun');
const { heapStats } = (await import('bun:jsc' as string)) as { heapStats(): HeapStats };

const kind = process.argv[2] ?? 'fw';
const skip = new Set((process.argv[3] ?? '').split(',').filter(Boolean));
let opened = 0;
/** Sockets opened so far (fw: its broadcaster's members, once resources are made). */
let count = (): number => opened;

/** CPU ms of each thread of this process, by thread name (JIT workers, GC helpers, the main thread). */
function threadCpu(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/\d+$/, '');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out[name] = (out[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

function settledHeap(): HeapStats {
  for (let i = 0; i < 3; i++) bun!.gc(true);
  return heapStats();
}

async function start(): Promise<number> {
  if (kind === 'bun') {
    const server = bun!.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (req: Request, srv: { upgrade(r: Request, o: unknown): boolean }) =>
        srv.upgrade(req, { data: { publisher: false } }) ? undefined : new Response('upgrade required', { status: 426 }),
      websocket: {
        open(ws: { subscribe(topic: string): void }) {
          opened++;
          ws.subscribe('bench');
        },
        message() {},
        perMessageDeflate: false,
        idleTimeout: 0,
      },
    });
    return server.port;
  }
  if (skip.has('resource')) HandlerTransports.prototype.upgraded = () => void opened++;
  if (skip.has('admission')) {
    const admitted = { query: { fw: true, implicitIds: true }, cc: undefined, target: undefined, share: undefined };
    HandlerTransports.prototype.admitUpgrade = async () => admitted as never;
  }
  const fw = new Framework({ configFile: false, 'fw.connections.max-per-address': 0 });
  fw.handle('/bench', {});
  if (skip.has('route')) {
    const route = fw.routeUpgrade.bind(fw);
    let first: ReturnType<typeof route> | undefined;
    fw.routeUpgrade = (req) => (first ??= route(req));
  }
  const { port } = await fw.listen(0, '127.0.0.1');
  if (!skip.has('resource')) count = () => fw.broadcasters.lookup('/fw/bench')?.size ?? 0;
  return port;
}

const port = await start();
let before: { cpu: NodeJS.CpuUsage; threads: Record<string, number>; heap: HeapStats } | undefined;

serveParent({
  mark: () => {
    const heap = settledHeap();
    before = { cpu: process.cpuUsage(), threads: threadCpu(), heap };
    return { type: 'marked' };
  },
  count: () => ({ type: 'count', opened: count() }),
  measure: () => {
    const cpu = process.cpuUsage(before!.cpu);
    const threads = threadCpu();
    const heap = settledHeap();
    const n = count();
    const perThread: Record<string, number> = {};
    for (const [name, ms] of Object.entries(threads)) {
      const d = ms - (before!.threads[name] ?? 0);
      if (d > 0) perThread[name] = d;
    }
    const types: Record<string, number> = {};
    for (const [t, c] of Object.entries(heap.objectTypeCounts)) {
      const d = c - (before!.heap.objectTypeCounts[t] ?? 0);
      if (d >= n / 2) types[t] = d / n;
    }
    return {
      type: 'measured',
      opened: n,
      cpuMs: (cpu.user + cpu.system) / 1000,
      perThread,
      heapPerConn: (heap.heapSize - before!.heap.heapSize) / n,
      extraPerConn: (heap.extraMemorySize - before!.heap.extraMemorySize) / n,
      objectsPerConn: (heap.objectCount - before!.heap.objectCount) / n,
      types,
    };
  },
});
process.send!({ type: 'ready', port });
