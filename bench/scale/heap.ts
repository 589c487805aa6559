/**
 * bench/scale/heap: what one idle WebSocket connection costs on the V8 heap, object by object, fw
 * beside raw `ws` (or any bench/scale kind). Where `npm run bench:scale` measures RSS per
 * connection (which moves by several per cent between runs of the same code), this counts the
 * heap exactly: a census by constructor before and after `--connections` idle connections, in a
 * server process of its own, divided by the connections. Not a test; prints a table.
 *
 *   npx tsc -b bench && node bench/dist/scale/heap.js [--kinds fw,ws] [--connections 3000] [--min-bytes 4]
 *     [--heartbeat <ms> --wait <ms>]
 *
 * `--heartbeat` sets fw's sweep interval and gives raw `ws` its README keepalive at the same
 * interval (off by default: fw's default sweep is 25 s, longer than the census waits); `--wait`
 * is how long the connections sit idle before the second census (default 1000 ms). Together they
 * show what a ping and its pong leave behind on each connection.
 */
import { fileURLToPath } from 'node:url';
import { BenchChild } from '../common/child.js';
import type { HeapCensus } from '../common/heap-census.js';
import type { ScaleKind } from './targets.js';
import { arg } from '../common/args.js';

const KINDS = arg('kinds', 'fw,ws').split(',') as ScaleKind[];
const CONNECTIONS = Number(arg('connections', '3000'));
/** Rows under this many bytes per connection in every kind are left out. */
const MIN_BYTES = Number(arg('min-bytes', '4'));
const WAIT = Number(arg('wait', '1000'));
const HEARTBEAT = arg('heartbeat', '');
if (HEARTBEAT !== '') {
  process.env.SCALE_FW_HEARTBEAT = HEARTBEAT;
  process.env.SCALE_WS_KEEPALIVE = HEARTBEAT;
}
const script = (name: string): string => fileURLToPath(new URL(`./${name}.js`, import.meta.url));

/** Heap bytes and objects per connection, by kind of object. */
async function perConnection(kind: ScaleKind): Promise<Map<string, { count: number; bytes: number }>> {
  const server = new BenchChild(`${kind} server`, script('server'), [kind]);
  const client = new BenchChild(`${kind} client`, script('client'), [kind, '0', '127.0.0.2'], []);
  try {
    const { port } = await server.next('ready');
    // The client was started before the port was known: it only needs the port to connect.
    await client.stop();
    const c = new BenchChild(`${kind} client`, script('client'), [kind, String(port), '127.0.0.2'], []);
    try {
      await c.next('ready');
      const before = (await server.request({ type: 'heap' }, 'heap', 120_000)).census as HeapCensus;
      const connected = await c.request({ type: 'connect', n: CONNECTIONS }, 'connected', 180_000);
      if ((connected.open as number) !== CONNECTIONS)
        throw new Error(`${kind}: ${connected.open} of ${CONNECTIONS} connected (${connected.error})`);
      await new Promise((r) => setTimeout(r, WAIT));
      const after = await server.request({ type: 'heap' }, 'heap', 120_000);
      const n = after.connections as number;
      const out = new Map<string, { count: number; bytes: number }>();
      for (const [key, a] of Object.entries(after.census as HeapCensus)) {
        const b = before[key] ?? { count: 0, bytes: 0 };
        out.set(key, { count: (a.count - b.count) / n, bytes: (a.bytes - b.bytes) / n });
      }
      return out;
    } finally {
      await c.request({ type: 'close' }, 'closed', 30_000).catch(() => undefined);
      await c.stop();
    }
  } finally {
    await server.stop();
  }
}

const results = new Map<ScaleKind, Map<string, { count: number; bytes: number }>>();
for (const kind of KINDS) results.set(kind, await perConnection(kind));

const keys = new Set<string>();
for (const r of results.values()) for (const [k, v] of r) if (Math.abs(v.bytes) >= MIN_BYTES) keys.add(k);
const first = results.get(KINDS[0]!)!;
const rows = [...keys].sort((a, b) => (first.get(b)?.bytes ?? 0) - (first.get(a)?.bytes ?? 0));
const cell = (v: { count: number; bytes: number } | undefined): string =>
  v === undefined ? '' : `${v.bytes.toFixed(0)} B (${v.count.toFixed(2)})`;
const beat = HEARTBEAT === '' ? 'no heartbeat in the window' : `heartbeat every ${HEARTBEAT} ms`;
console.log(
  `Heap per idle connection, ${CONNECTIONS} connections idle ${WAIT} ms, ${beat}; bytes (objects) per connection, rows under ${MIN_BYTES} B left out`,
);
console.log(['what', ...KINDS].map((s, i) => (i === 0 ? s.padEnd(44) : s.padStart(18))).join(''));
for (const k of rows) console.log([k.padEnd(44), ...KINDS.map((kind) => cell(results.get(kind)!.get(k)).padStart(18))].join(''));
const totals = KINDS.map((kind) => [...results.get(kind)!.values()].reduce((s, v) => s + v.bytes, 0));
console.log(['total'.padEnd(44), ...totals.map((t) => `${t.toFixed(0)} B`.padStart(18))].join(''));
if (KINDS.length > 1)
  console.log(
    `${KINDS[0]} / ${KINDS[1]}: ${(totals[0]! / totals[1]!).toFixed(3)}×, ${(totals[0]! - totals[1]!).toFixed(0)} B more per connection`,
  );
