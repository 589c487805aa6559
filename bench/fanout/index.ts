/**
 * bench/fanout: one publisher, N WebSocket subscribers on loopback, 128-byte messages; fw against
 * a raw `ws` send loop and Socket.IO 4, in the same run. Not a test: it prints a table per N with
 * ratios, and a Markdown table for docs/benchmarks.md.
 *
 *   npm run bench:fanout -- [--sizes 100,1000,5000] [--kinds fw,ws,sio] [--fw-protocol]
 *                           [--deliveries 1000000] [--paced-rate 10000] [--clients 1] [--memory-only]
 *
 * Per server kind and N: the server starts in a child process of its own; the subscribers connect
 * from `--clients` other child processes; the server's RSS is read (after a GC) before and after
 * the N idle connections. Then three phases, identical for every kind:
 *   warm-up  a burst of 10% of the burst's messages, results discarded;
 *   burst    `--deliveries`/N messages (at most 5000), 10 per event-loop turn, as fast as the
 *            server takes them: deliveries/s = deliveries / (last delivery − first send), and the
 *            server's CPU time per delivery;
 *   paced    `--paced-rate`/N messages per second for 3 s: latency at a load every kind sustains
 *            (10 000 deliveries/s by default, a third of Socket.IO's burst rate here).
 * Each phase waits for every subscriber to have every message, at most `--timeout` seconds, and
 * reports what is missing.
 */
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { BenchChild, type BenchMessage } from '../common/child.js';
import { Histogram, type HistogramData } from '../common/histogram.js';
import { fmt, markdownTable, ratio, textTable } from '../common/table.js';
import { MESSAGE_BYTES } from './message.js';
import type { ServerKind } from './server.js';

const argv = process.argv.slice(2);
function arg(name: string, fallback: string): string {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : fallback;
}
const SIZES = arg('sizes', '100,1000,5000').split(',').map(Number);
const KINDS = arg('kinds', 'fw,ws,sio').split(',') as ServerKind[];
if (argv.includes('--fw-protocol') && !KINDS.includes('fw-proto')) KINDS.splice(1, 0, 'fw-proto');
const DELIVERIES = Number(arg('deliveries', '1000000'));
const PACED_RATE = Number(arg('paced-rate', '10000'));
const PACED_SECONDS = 3;
const PER_TICK = 10;
const CLIENTS = Number(arg('clients', '1'));
const MEMORY_ONLY = argv.includes('--memory-only');
const TIMEOUT_MS = Number(arg('timeout', '60')) * 1000;

const LABEL: Record<ServerKind, string> = { fw: 'fw', 'fw-proto': 'fw (fw protocol)', ws: 'ws (raw loop)', sio: 'Socket.IO 4' };

interface PhaseResult {
  deliveries: number;
  missing: number;
  seconds: number;
  p50: number;
  p99: number;
  cpuUsPerDelivery: number;
}

interface Result {
  kind: ServerKind;
  n: number;
  connectFailed: number;
  rssPerConn: number;
  /** V8 heap + external bytes per connection: the part of the RSS the server's objects account for. */
  heapPerConn: number;
  burst: PhaseResult;
  paced: PhaseResult;
}

const NO_PHASE: PhaseResult = { deliveries: NaN, missing: 0, seconds: NaN, p50: NaN, p99: NaN, cpuUsPerDelivery: NaN };

const script = (name: string) => fileURLToPath(new URL(`./${name}.js`, import.meta.url));

async function runPhase(server: BenchChild, subs: BenchChild[], m: { phase: number; mode: 'burst' | 'paced'; count: number; intervalMs?: number }): Promise<PhaseResult> {
  await Promise.all(subs.map((s) => s.request({ type: 'expect', phase: m.phase, messages: m.count }, 'expecting')));
  const dones = subs.map((s) => s.next('done', TIMEOUT_MS + 5 * 60_000));
  const cpu0 = (await server.request({ type: 'cpu' })).us as number;
  const published = await server.request({ type: 'publish', ...m, perTick: PER_TICK }, 'published', TIMEOUT_MS);
  // Wait for every subscriber to have everything, or the timeout; then take what arrived.
  const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), TIMEOUT_MS).unref());
  if ((await Promise.race([Promise.all(dones), timeout])) === 'timeout') for (const s of subs) s.send({ type: 'report' });
  const reports = (await Promise.all(dones)) as (BenchMessage & { received: number; expected: number; lastUs: number; hist: HistogramData })[];
  const cpu1 = (await server.request({ type: 'cpu' })).us as number;
  const hist = new Histogram();
  let received = 0;
  let expected = 0;
  let lastUs = 0;
  for (const r of reports) {
    hist.merge(r.hist);
    received += r.received;
    expected += r.expected;
    lastUs = Math.max(lastUs, r.lastUs);
  }
  const seconds = (lastUs - (published.startUs as number)) / 1e6;
  return {
    deliveries: received,
    missing: expected - received,
    seconds,
    p50: hist.percentile(50) / 1000,
    p99: hist.percentile(99) / 1000,
    cpuUsPerDelivery: received > 0 ? (cpu1 - cpu0) / received : NaN,
  };
}

async function measure(kind: ServerKind, n: number): Promise<Result> {
  const server = new BenchChild(`${kind} server`, script('server'), [kind]);
  const subs: BenchChild[] = [];
  try {
    const port = (await server.next('ready')).port as number;
    const before = await server.request({ type: 'rss' });
    let connectFailed = 0;
    for (let i = 0; i < CLIENTS; i++) {
      const share = Math.floor(n / CLIENTS) + (i < n % CLIENTS ? 1 : 0);
      const sub = new BenchChild(`${kind} subscribers ${i + 1}`, script('subscriber'), [kind, String(port)], []);
      subs.push(sub);
      await sub.next('ready');
      connectFailed += (await sub.request({ type: 'connect', n: share }, 'connected', 120_000)).failed as number;
    }
    // Idle connections, settled: the server's memory per connection.
    await new Promise((r) => setTimeout(r, 500));
    const after = await server.request({ type: 'rss' });
    const conns = after.connections as number;
    const rssPerConn = ((after.rss as number) - (before.rss as number)) / conns;
    const heapPerConn = ((after.heap as number) - (before.heap as number)) / conns;
    if (MEMORY_ONLY) return { kind, n, connectFailed, rssPerConn, heapPerConn, burst: NO_PHASE, paced: NO_PHASE };

    const count = Math.min(5000, Math.round(DELIVERIES / n));
    await runPhase(server, subs, { phase: 1, mode: 'burst', count: Math.max(10, Math.round(count / 10)) });
    const burst = await runPhase(server, subs, { phase: 2, mode: 'burst', count });
    const rate = PACED_RATE / n;
    const paced = await runPhase(server, subs, { phase: 3, mode: 'paced', count: Math.round(rate * PACED_SECONDS), intervalMs: 1000 / rate });
    return { kind, n, connectFailed, rssPerConn, heapPerConn, burst, paced };
  } finally {
    await Promise.all(subs.map(async (s) => {
      await s.request({ type: 'close' }, 'closed', 30_000).catch(() => undefined);
      await s.stop();
    }));
    await server.stop();
  }
}

const ms = (v: number) => fmt(v, v < 10 ? 2 : 1);
const HEADERS = ['N', 'server', 'deliveries/s', 'missing', 'burst p50 ms', 'burst p99 ms', 'paced p50 ms', 'paced p99 ms', 'server CPU µs/delivery', 'RSS/conn KB', 'heap/conn KB'];

function row(r: Result): string[] {
  return [String(r.n), LABEL[r.kind], fmt(r.burst.deliveries / r.burst.seconds), fmt(r.burst.missing + r.paced.missing + r.connectFailed),
    ms(r.burst.p50), ms(r.burst.p99), ms(r.paced.p50), ms(r.paced.p99), fmt(r.burst.cpuUsPerDelivery, 2), fmt(r.rssPerConn / 1024, 1), fmt(r.heapPerConn / 1024, 1)];
}

function ratios(rs: Result[]): string[][] {
  const fw = rs.find((r) => r.kind === 'fw');
  if (!fw) return [];
  const rate = (r: Result) => r.burst.deliveries / r.burst.seconds;
  return rs.filter((r) => r !== fw).map((o) => [String(fw.n), `fw / ${LABEL[o.kind]}`, ratio(rate(fw), rate(o)), '',
    ratio(fw.burst.p50, o.burst.p50), ratio(fw.burst.p99, o.burst.p99), ratio(fw.paced.p50, o.paced.p50), ratio(fw.paced.p99, o.paced.p99),
    ratio(fw.burst.cpuUsPerDelivery, o.burst.cpuUsPerDelivery), ratio(fw.rssPerConn, o.rssPerConn), ratio(fw.heapPerConn, o.heapPerConn)]);
}

const machine = () => `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`;
console.log(`bench/fanout — ${new Date().toISOString()}, Node ${process.version}, ${machine()}, ${MESSAGE_BYTES}-byte messages, ${CLIENTS} subscriber process(es)`);
const all: string[][] = [];
for (const n of SIZES) {
  const results: Result[] = [];
  for (const kind of KINDS) {
    process.stderr.write(`  N=${n} ${LABEL[kind]}…\n`);
    results.push(await measure(kind, n));
  }
  const rows = [...results.map(row), ...ratios(results)];
  all.push(...rows);
  console.log(`\nN = ${n}\n${textTable(HEADERS, rows)}`);
}
console.log(`\nDone, ${machine()}.\n\nMarkdown:\n\n${markdownTable(HEADERS, all)}`);
