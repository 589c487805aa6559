/**
 * One server under test, alone in its process (so its RSS is its own), driven by
 * bench/scale/index.ts, heap.ts and sweep.ts over IPC: `rss` (settled, after forced GCs), `heap` (a
 * census of the heap by constructor), `loop` (event-loop delay over a window; `loop-start` …
 * `loop-stop` around a step), `connections`,
 * `cpu`, `publish`.
 *
 *   node --expose-gc bench/dist/scale/server.js fw|ws|sio|ceiling
 */
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { type BenchMessage, serveParent } from '../common/child.js';
import { settledMemory } from '../common/rss.js';
import { heapCensus } from '../common/heap-census.js';
import { nowUs } from '../common/clock.js';
import { type ScaleKind, startTarget } from './targets.js';
import { publishBurst } from './publish.js';

const target = await startTarget(process.argv[2] as ScaleKind, 0);

/** The event-loop delay since `watchLoop()`, in ms (1 ms resolution): `loop` over a window, or `loop-start` … `loop-stop` around a step. */
let loopWatch: IntervalHistogram | undefined;
function watchLoop(): void {
  loopWatch?.disable();
  loopWatch = monitorEventLoopDelay({ resolution: 1 });
  loopWatch.enable();
}
function loopDelay(): BenchMessage {
  const h = loopWatch!;
  h.disable();
  const ms = (ns: number): number => ns / 1e6;
  return { type: 'loop', max: ms(h.max), p99: ms(h.percentile(99)), mean: ms(h.mean), connections: target.connections() };
}

serveParent({
  rss: async () => {
    const m = await settledMemory();
    return { type: 'rss', rss: m.rss, heap: m.heapUsed + m.external, connections: target.connections() };
  },
  heap: async () => ({ type: 'heap', census: await heapCensus(), connections: target.connections() }),
  loop: async (m) => {
    watchLoop();
    await new Promise((r) => setTimeout(r, m.ms as number));
    return loopDelay();
  },
  'loop-start': () => {
    watchLoop();
    return { type: 'loop-started' };
  },
  'loop-stop': () => loopDelay(),
  connections: () => ({ type: 'connections', connections: target.connections() }),
  cpu: () => {
    const c = process.cpuUsage();
    return { type: 'cpu', us: c.user + c.system };
  },
  publish: async (m) => {
    const startUs = nowUs();
    await publishBurst(target, m.phase as number, m.count as number, {
      perTick: m.perTick as number,
      rate: (m.rate as number | undefined) ?? 0,
    });
    return { type: 'published', startUs };
  },
});
process.send!({ type: 'ready', port: target.port });
