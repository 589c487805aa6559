/**
 * bench/scale/sweep: how long a server's keepalive sweep holds its event loop. Each kind serves
 * `--connections` idle connections in a process of its own, with a heartbeat every `--heartbeat`
 * ms (fw's `fw.heartbeat.interval`; for raw `ws`, the `ws` README's keepalive, which pings every
 * socket in one pass), and reports the event-loop delay it measured over `--window` ms (a
 * `monitorEventLoopDelay` histogram, 1 ms resolution): the longest stall, p99 and mean. Not a
 * test; prints a table.
 *
 *   npx tsc -b bench && node bench/dist/scale/sweep.js [--kinds fw,ws] [--connections 19000]
 *     [--heartbeat 2000] [--window 10000]
 */
import { fileURLToPath } from 'node:url';
import { BenchChild } from '../common/child.js';
import type { ScaleKind } from './targets.js';
import { arg } from '../common/args.js';

const KINDS = arg('kinds', 'fw,ws').split(',') as ScaleKind[];
const CONNECTIONS = Number(arg('connections', '19000'));
const HEARTBEAT = arg('heartbeat', '2000');
const WINDOW = Number(arg('window', '10000'));
process.env.SCALE_FW_HEARTBEAT = HEARTBEAT;
process.env.SCALE_WS_KEEPALIVE = HEARTBEAT;
const script = (name: string): string => fileURLToPath(new URL(`./${name}.js`, import.meta.url));

interface Delay {
  max: number;
  p99: number;
  mean: number;
}

/**
 * `source`: the client's loopback address, one per kind and per run (19,000 closed connections
 * keep their ports in TIME_WAIT for a minute).
 */
async function measure(kind: ScaleKind, source: string): Promise<Delay> {
  const server = new BenchChild(`${kind} server`, script('server'), [kind]);
  try {
    const { port } = await server.next('ready');
    const client = new BenchChild(`${kind} client`, script('client'), [kind, String(port), source], []);
    try {
      await client.next('ready');
      const connected = await client.request({ type: 'connect', n: CONNECTIONS }, 'connected', 180_000);
      if ((connected.open as number) !== CONNECTIONS)
        throw new Error(`${kind}: ${connected.open} of ${CONNECTIONS} connected (${connected.error})`);
      const d = await server.request({ type: 'loop', ms: WINDOW }, 'loop', WINDOW + 60_000);
      return { max: d.max as number, p99: d.p99 as number, mean: d.mean as number };
    } finally {
      await client.request({ type: 'close' }, 'closed', 30_000).catch(() => undefined);
      await client.stop();
    }
  } finally {
    await server.stop();
  }
}

console.log(
  `Event-loop delay with ${CONNECTIONS} idle connections, a heartbeat every ${HEARTBEAT} ms, over ${WINDOW} ms (Node ${process.version})`,
);
console.log(['server', 'longest stall ms', 'p99 ms', 'mean ms'].map((s, i) => (i === 0 ? s.padEnd(10) : s.padStart(18))).join(''));
for (const [i, kind] of KINDS.entries()) {
  const d = await measure(kind, `127.0.${(process.pid % 250) + 1}.${2 + i}`);
  console.log([kind.padEnd(10), ...[d.max, d.p99, d.mean].map((v) => v.toFixed(1).padStart(18))].join(''));
}
