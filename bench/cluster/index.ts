/**
 * bench/cluster: cross-node fan-out through Redis. Three nodes of fw (cluster mode, `@fw/redis`)
 * and three of Socket.IO 4 (`@socket.io/redis-adapter`), in the same run, on the same Redis,
 * loopback only. Not a test: it prints a table with ratios, and a Markdown table for
 * docs/benchmarks.md.
 *
 *   npx tsc -b bench && node bench/dist/cluster/index.js [--per-node 200] [--messages 1000]
 *        [--paced-rate 5000] [--kinds fw,sio] [--redis-url redis://127.0.0.1:6379] [--timeout 60]
 *
 * Per kind: three server processes (nodes a, b, c), one subscriber process per node holding
 * `--per-node` WebSocket subscribers (the bench/fanout subscriber: raw `ws` for fw,
 * socket.io-client for Socket.IO). The publisher is on node a, so two thirds of every delivery
 * crossed Redis. Phases, identical for both kinds:
 *   warm-up  a burst of 10% of `--messages`, discarded;
 *   burst    `--messages` messages, 10 per event-loop turn: deliveries/s = deliveries /
 *            (last delivery anywhere − first send), and latency (receive − send, shared clock);
 *   paced    `--paced-rate` deliveries/s for 3 s: latency at a load both sustain.
 * Every phase waits for every subscriber to have every message (at most `--timeout` s) and
 * reports what is missing. Keys and channels use a fresh prefix, deleted at the end.
 */
import { cpus, loadavg } from 'node:os';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { purgeRedis } from '../common/redis-purge.js';
import { BenchChild, type BenchMessage } from '../common/child.js';
import { Histogram, type HistogramData } from '../common/histogram.js';
import { fmt, markdownTable, ratio, textTable } from '../common/table.js';
import { MESSAGE_BYTES } from '../fanout/message.js';
import type { ClusterKind } from './server.js';
import { arg } from '../common/args.js';

const PER_NODE = Number(arg('per-node', '200'));
const MESSAGES = Number(arg('messages', '1000'));
const PACED_RATE = Number(arg('paced-rate', '5000'));
const KINDS = arg('kinds', 'fw,sio').split(',') as ClusterKind[];
const REDIS_URL = arg('redis-url', 'redis://127.0.0.1:6379');
const TIMEOUT_MS = Number(arg('timeout', '60')) * 1000;
const PACED_SECONDS = 3;
const PER_TICK = 10;
const NODES = ['a', 'b', 'c'];
const LABEL: Record<ClusterKind, string> = { fw: 'fw + @fw/redis', sio: 'Socket.IO 4 + redis-adapter' };

interface PhaseResult {
  deliveries: number;
  missing: number;
  seconds: number;
  p50: number;
  p99: number;
}

interface Result {
  kind: ClusterKind;
  connectFailed: number;
  burst: PhaseResult;
  paced: PhaseResult;
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

async function runPhase(
  publisher: BenchChild,
  subs: BenchChild[],
  m: { phase: number; mode: 'burst' | 'paced'; count: number; intervalMs?: number },
): Promise<PhaseResult> {
  await Promise.all(subs.map((s) => s.request({ type: 'expect', phase: m.phase, messages: m.count }, 'expecting')));
  const dones = subs.map((s) => s.next('done', TIMEOUT_MS + 5 * 60_000));
  // If the phase fails before they are awaited, stopping the children must not crash the run.
  for (const d of dones) d.catch(() => undefined);
  const published = await publisher.request({ type: 'publish', ...m, perTick: PER_TICK }, 'published', TIMEOUT_MS);
  const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), TIMEOUT_MS).unref());
  if ((await Promise.race([Promise.all(dones), timeout])) === 'timeout') for (const s of subs) s.send({ type: 'report' });
  const reports = (await Promise.all(dones)) as (BenchMessage & {
    received: number;
    sockets: number;
    lastUs: number;
    hist: HistogramData;
  })[];
  const hist = new Histogram();
  let received = 0;
  let expected = 0;
  let lastUs = 0;
  for (const r of reports) {
    hist.merge(r.hist);
    received += r.received;
    expected += m.count * r.sockets;
    lastUs = Math.max(lastUs, r.lastUs);
  }
  return {
    deliveries: received,
    missing: expected - received,
    seconds: (lastUs - (published.startUs as number)) / 1e6,
    p50: hist.percentile(50) / 1000,
    p99: hist.percentile(99) / 1000,
  };
}

async function measure(kind: ClusterKind): Promise<Result> {
  const prefix = `fwbench-${kind}-${randomBytes(4).toString('hex')}`;
  const servers = NODES.map((n) => new BenchChild(`${kind} node ${n}`, here('./server.js'), [kind, REDIS_URL, prefix, n]));
  const subs: BenchChild[] = [];
  try {
    const ports = await Promise.all(servers.map(async (s) => (await s.next('ready')).port as number));
    let connectFailed = 0;
    for (const [i, port] of ports.entries()) {
      const sub = new BenchChild(`${kind} subscribers on ${NODES[i]}`, here('../fanout/subscriber.js'), [kind, String(port)], []);
      subs.push(sub);
      await sub.next('ready');
      connectFailed += (await sub.request({ type: 'connect', n: PER_NODE }, 'connected', 120_000)).failed as number;
    }
    await new Promise((r) => setTimeout(r, 500));
    const publisher = servers[0]!;
    await runPhase(publisher, subs, { phase: 1, mode: 'burst', count: Math.max(10, Math.round(MESSAGES / 10)) });
    const burst = await runPhase(publisher, subs, { phase: 2, mode: 'burst', count: MESSAGES });
    const total = PER_NODE * NODES.length;
    const rate = PACED_RATE / total;
    const paced = await runPhase(publisher, subs, {
      phase: 3,
      mode: 'paced',
      count: Math.round(rate * PACED_SECONDS),
      intervalMs: 1000 / rate,
    });
    return { kind, connectFailed, burst, paced };
  } finally {
    await Promise.all(
      subs.map(async (s) => {
        await s.request({ type: 'close' }, 'closed', 30_000).catch(() => undefined);
        await s.stop();
      }),
    );
    await Promise.all(servers.map((s) => s.stop()));
    await purgeRedis(REDIS_URL, prefix);
  }
}

const ms = (v: number) => fmt(v, v < 10 ? 2 : 1);
const HEADERS = ['server (3 nodes)', 'deliveries/s', 'missing', 'burst p50 ms', 'burst p99 ms', 'paced p50 ms', 'paced p99 ms'];
const rate = (r: Result) => r.burst.deliveries / r.burst.seconds;
const row = (r: Result) => [
  LABEL[r.kind],
  fmt(rate(r)),
  fmt(r.burst.missing + r.paced.missing + r.connectFailed),
  ms(r.burst.p50),
  ms(r.burst.p99),
  ms(r.paced.p50),
  ms(r.paced.p99),
];
const machine = () =>
  `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;

console.log(
  `bench/cluster — ${new Date().toISOString()}, Node ${process.version}, ${machine()}, ${MESSAGE_BYTES}-byte messages, ` +
    `3 nodes × ${PER_NODE} subscribers, publisher on node a, Redis ${REDIS_URL}`,
);
const results: Result[] = [];
for (const kind of KINDS) {
  process.stderr.write(`  ${LABEL[kind]}…\n`);
  results.push(await measure(kind));
}
const rows = results.map(row);
const fw = results.find((r) => r.kind === 'fw');
const sio = results.find((r) => r.kind === 'sio');
if (fw && sio) {
  rows.push([
    'fw / Socket.IO',
    ratio(rate(fw), rate(sio)),
    '',
    ratio(fw.burst.p50, sio.burst.p50),
    ratio(fw.burst.p99, sio.burst.p99),
    ratio(fw.paced.p50, sio.paced.p50),
    ratio(fw.paced.p99, sio.paced.p99),
  ]);
}
console.log(`\n${textTable(HEADERS, rows)}\n\nDone, ${machine()}.\n\nMarkdown:\n\n${markdownTable(HEADERS, rows)}`);
