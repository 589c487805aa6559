/**
 * One server under test, alone in its process (so its RSS is its own), driven by
 * bench/scale/index.ts, heap.ts and sweep.ts over IPC: `rss` (settled, after forced GCs), `heap` (a
 * census of the heap by constructor), `loop` (event-loop delay over a window), `connections`,
 * `cpu`, `publish`.
 *
 *   node --expose-gc bench/dist/scale/server.js fw|ws|sio|ceiling
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { serveParent } from '../common/child.js';
import { settledMemory } from '../common/rss.js';
import { heapCensus } from '../common/heap-census.js';
import { nowUs } from '../common/clock.js';
import { type ScaleKind, startTarget } from './targets.js';
import { publishBurst } from './publish.js';

const target = await startTarget(process.argv[2] as ScaleKind, 0);

serveParent({
  rss: async () => {
    const m = await settledMemory();
    return { type: 'rss', rss: m.rss, heap: m.heapUsed + m.external, connections: target.connections() };
  },
  heap: async () => ({ type: 'heap', census: await heapCensus(), connections: target.connections() }),
  loop: async (m) => {
    const h = monitorEventLoopDelay({ resolution: 1 });
    h.enable();
    await new Promise((r) => setTimeout(r, m.ms as number));
    h.disable();
    const ms = (ns: number): number => ns / 1e6;
    return { type: 'loop', max: ms(h.max), p99: ms(h.percentile(99)), mean: ms(h.mean), connections: target.connections() };
  },
  connections: () => ({ type: 'connections', connections: target.connections() }),
  cpu: () => {
    const c = process.cpuUsage();
    return { type: 'cpu', us: c.user + c.system };
  },
  publish: async (m) => {
    const startUs = nowUs();
    await publishBurst(target, m.phase as number, m.count as number, m.perTick as number);
    return { type: 'published', startUs };
  },
});
process.send!({ type: 'ready', port: target.port });
