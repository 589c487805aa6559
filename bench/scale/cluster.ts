/**
 * Several worker processes on one port (node:cluster, the primary hands out connections
 * round-robin), each a server under test joined to the others through Redis. The primary is what
 * bench/scale/index.ts drives over IPC: `rss` sums the workers' settled RSS, `connections` their
 * connection counts; `publish` goes to the first worker only, so the message reaches the others
 * through Redis.
 *
 *   node --expose-gc bench/dist/scale/cluster.js fw|ws|sio <workers> <redis-url> <prefix>
 */
import cluster, { type Worker } from 'node:cluster';
import { serveParent, type BenchMessage } from '../common/child.js';
import { settledMemory } from '../common/rss.js';
import { nowUs } from '../common/clock.js';
import { type ScaleKind, startTarget } from './targets.js';
import { publishBurst } from './publish.js';

const [kind, workersArg, redisUrl, prefix] = process.argv.slice(2) as [ScaleKind, string, string, string];

if (cluster.isPrimary) {
  const workers: Worker[] = [];
  const ask = (w: Worker, m: BenchMessage): Promise<BenchMessage> =>
    new Promise((resolve) => {
      const on = (r: BenchMessage) => {
        if (r.type !== m.type) return;
        w.off('message', on);
        resolve(r);
      };
      w.on('message', on);
      w.send(m);
    });
  const all = (m: BenchMessage) => Promise.all(workers.map((w) => ask(w, m)));
  const sum = (rs: BenchMessage[], key: string) => rs.reduce((s, r) => s + (r[key] as number), 0);
  let port = 0;
  for (let i = 0; i < Number(workersArg); i++) {
    // Every worker listens on port 0: node:cluster gives them all the same random port, the
    // primary owning the listening socket.
    const w = cluster.fork({ SCALE_NODE: `w${i}` });
    workers.push(w);
    const ready = await new Promise<BenchMessage>((r) => w.once('message', r));
    port = ready.port as number;
  }
  cluster.on('exit', (w, code, signal) => {
    if (!stopping) {
      console.error(`scale cluster: worker ${w.process.pid} exited (${signal ?? code})`);
      process.exit(1);
    }
  });
  let stopping = false;
  const stop = () => {
    stopping = true;
    for (const w of workers) w.process.kill('SIGTERM');
  };
  process.on('exit', stop);
  serveParent({
    rss: async () => {
      const rs = await all({ type: 'rss' });
      return {
        type: 'rss',
        rss: sum(rs, 'rss'),
        heap: sum(rs, 'heap'),
        connections: sum(rs, 'connections'),
        per: rs.map((r) => r.connections),
      };
    },
    connections: async () => ({ type: 'connections', connections: sum(await all({ type: 'connections' }), 'connections') }),
    cpu: async () => ({ type: 'cpu', us: sum(await all({ type: 'cpu' }), 'us') }),
    publish: async (m) => ({ type: 'published', startUs: (await ask(workers[0]!, m)).startUs }),
  });
  process.send!({ type: 'ready', port, workers: workers.map((w) => w.process.pid) });
} else {
  const target = await startTarget(kind, 0, { redisUrl, prefix, node: process.env.SCALE_NODE! });
  process.on('message', (m: BenchMessage) => {
    const reply = async (): Promise<BenchMessage> => {
      switch (m.type) {
        case 'rss': {
          const mem = await settledMemory();
          return { type: 'rss', rss: mem.rss, heap: mem.heapUsed + mem.external, connections: target.connections() };
        }
        case 'connections':
          return { type: 'connections', connections: target.connections() };
        case 'cpu': {
          const c = process.cpuUsage();
          return { type: 'cpu', us: c.user + c.system };
        }
        case 'publish': {
          const startUs = nowUs();
          await publishBurst(target, m.phase as number, m.count as number, {
            perTick: m.perTick as number,
            rate: (m.rate as number | undefined) ?? 0,
          });
          return { type: 'publish', startUs };
        }
        default:
          return { type: 'unknown' };
      }
    };
    void reply().then((r) => process.send!(r));
  });
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
  process.send!({ type: 'ready', port: target.port });
}
