/**
 * bench/scale: how many idle WebSocket connections fw holds and what each costs, one process and
 * a node:cluster of workers on one port with the Redis adapter, and fan-out at 10,000 subscribers
 * against the frame-once-and-cork ceiling; fw beside raw `ws` and Socket.IO 4 in the same run,
 * loopback only. Not a test: it prints tables with ratios, and Markdown for docs/benchmarks.md.
 *
 *   npm run bench:scale -- [--sections idle,cluster,fanout] [--kinds fw,ws,sio] [--idle 19500]
 *        [--cluster-total 55500] [--workers 3] [--fanout 10000] [--rounds 3] [--messages 100]
 *        [--per-tick 10] [--rate 0] [--clients 2] [--cluster-clients 4] [--redis-url redis://127.0.0.1:6379] [--max-minutes 25]
 *        [--warmup 1000] [--ws-keepalive 0] [--idle-wait 1000] [--repeat 1]
 *
 * idle     per kind, a server process of its own; `--clients` client processes (each limited to
 *          20,000 open files like the server) open `--idle` connections in total, 100 handshakes in
 *          flight per client, bound to loopback source addresses 127.0.0.x of their own. First
 *          `--warmup` connections per server process are opened and closed; then RSS per
 *          connection = (settled RSS after − before) / connections, settled = three forced GCs
 *          (`--expose-gc`) then a pause; connect rate = connections / wall time from the first
 *          handshake to the last. Then one broadcast must reach every connection.
 * cluster  the same with `--workers` processes on one port (node:cluster) joined through Redis
 *          (fw: @fw/redis; Socket.IO: @socket.io/redis-adapter; raw ws: one Redis pub/sub
 *          channel), `--cluster-total` connections from `--cluster-clients` client processes; RSS
 *          is the workers' sum. The broadcast check is published on the first worker only, so it
 *          reaches the others through Redis.
 * fanout   `--fanout` subscribers, fw against the ceiling (raw `ws`, each message framed once with
 *          `Sender.frame` and written to every socket between cork() and uncork()), `--rounds`
 *          rounds in alternating order. Per measurement a fresh server; the server publishes
 *          itself (`--per-tick` messages per event-loop turn, or `--rate` per second; the
 *          bench/fanout message) a warm-up burst of
 *          10% of `--messages`, then `--messages`: deliveries/s = deliveries / (last delivery in
 *          any client − first publish), the server's CPU µs per delivery, and the latency of
 *          each delivery (publish to receipt, the message carries its send time) at p50, p99, max,
 *          and the server's longest event-loop stall from the first publish to the last delivery.
 * Everything is bounded: each step has a timeout, the whole run `--max-minutes`; children exit when
 * this process does; Redis keys are deleted at the end.
 */
import { cpus, loadavg } from 'node:os';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { purgeRedis } from '../common/redis-purge.js';
import { BenchChild, type BenchMessage } from '../common/child.js';
import { fmt, markdownTable, ratio, textTable } from '../common/table.js';
import type { ScaleKind } from './targets.js';
import { arg } from '../common/args.js';
import { Histogram, type HistogramData } from '../common/histogram.js';

const argv = process.argv.slice(2);
const SECTIONS = arg('sections', 'idle,cluster,fanout').split(',');
const KINDS = arg('kinds', 'fw,ws,sio').split(',') as ScaleKind[];
const IDLE = Number(arg('idle', '19500'));
const CLUSTER_TOTAL = Number(arg('cluster-total', '55500'));
const WORKERS = Number(arg('workers', '3'));
const FANOUT = Number(arg('fanout', '10000'));
const ROUNDS = Number(arg('rounds', '3'));
const MESSAGES = Number(arg('messages', '100'));
/** Messages per event-loop turn of the publishing server: 1 makes fw write each socket once per message, as the ceiling does. */
const PER_TICK = Number(arg('per-tick', '10'));
/** Messages per second the publishing server offers (0: as fast as it takes them, `--per-tick` per turn): latency compared at one offered load. */
const RATE = Number(arg('rate', '0'));
const CLIENTS = Number(arg('clients', '2'));
const CLUSTER_CLIENTS = Number(arg('cluster-clients', '4'));
const REDIS_URL = arg('redis-url', 'redis://127.0.0.1:6379');
const MAX_MINUTES = Number(arg('max-minutes', '25'));
/**
 * Idle sections: connections per server process opened and closed before the baseline RSS is
 * read, so that what each process pays once (compiled code, the compiler's and allocator's own
 * memory, pools) is not divided among the measured connections. 0 measures from servers that
 * have never seen a connection.
 */
const WARMUP = Number(arg('warmup', '1000'));
/**
 * Raw `ws` servers ping their sockets every this many ms (the `ws` README's keepalive; 0: off, the
 * default). fw pings quiet connections every `fw.heartbeat.interval` (25 s), and a ping's pong
 * costs memory on the receiving side: with this at 25000 both sides pay it.
 */
process.env.SCALE_WS_KEEPALIVE = arg('ws-keepalive', '0');
/** Idle sections: ms between the last connection and the RSS reading (past 25000, fw's first heartbeat sweep has run). */
const IDLE_WAIT = Number(arg('idle-wait', '1000'));
/**
 * Idle sections: how many times each is measured (kinds in alternating order). RSS per connection
 * is the difference of two large totals and moves ±5 % from run to run with the allocator's state;
 * with more than one run the bench also prints fw's ratio in each and their median (runs where a
 * connection failed left out).
 */
const REPEAT = Number(arg('repeat', '1'));
/** Connections per loopback source address: well under the ~28,000 ephemeral ports each gives. */
const PER_ADDRESS = 8000;
const STEP_TIMEOUT = 180_000;

const LABEL: Record<ScaleKind, string> = { fw: 'fw', ws: 'ws (raw)', sio: 'Socket.IO 4', ceiling: 'ceiling (frame once + cork)' };
const script = (name: string) => fileURLToPath(new URL(`./${name}.js`, import.meta.url));

// The whole run is bounded: past it, exit (children exit with us: their IPC channel closes).
setTimeout(() => {
  console.error(`bench/scale: --max-minutes ${MAX_MINUTES} reached, stopping`);
  process.exit(2);
}, MAX_MINUTES * 60_000).unref();

/** Source addresses 127.0.0.2…127.0.0.254, handed out in turn from a random start, never reused in a run. */
let nextAddress = 2 + Math.floor(Math.random() * 200);
function addresses(count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    out.push(`127.0.0.${nextAddress}`);
    nextAddress = nextAddress >= 254 ? 2 : nextAddress + 1;
  }
  return out.join(',');
}

interface Fleet {
  server: BenchChild;
  clients: BenchChild[];
  connected: number;
  failed: number;
  connectSeconds: number;
  firstError: string;
}

/** Starts the server (one process or a cluster), `clients` client processes, and opens `n` connections. */
async function fleet(
  kind: ScaleKind,
  n: number,
  clients: number,
  clusterPrefix?: string,
  warmup = 0,
): Promise<Fleet & { before: BenchMessage }> {
  const server = clusterPrefix
    ? new BenchChild(`${kind} cluster`, script('cluster'), [kind, String(WORKERS), REDIS_URL, clusterPrefix])
    : new BenchChild(`${kind} server`, script('server'), [kind]);
  const f: Fleet = { server, clients: [], connected: 0, failed: 0, connectSeconds: 0, firstError: '' };
  try {
    const port = (await server.next('ready', STEP_TIMEOUT)).port as number;
    for (let i = 0; i < clients; i++) {
      const share = Math.floor(n / clients) + (i < n % clients ? 1 : 0);
      const c = new BenchChild(
        `${kind} clients ${i + 1}`,
        script('client'),
        [kind, String(port), addresses(Math.ceil(share / PER_ADDRESS))],
        [],
      );
      f.clients.push(c);
      await c.next('ready');
    }
    if (warmup > 0) {
      await Promise.all(f.clients.map((c) => c.request({ type: 'connect', n: Math.ceil(warmup / clients) }, 'connected', STEP_TIMEOUT)));
      await Promise.all(f.clients.map((c) => c.request({ type: 'close' }, 'closed', 30_000)));
      // Until the server has seen every warm-up connection end.
      const deadline = Date.now() + 30_000;
      while (((await server.request({ type: 'connections' })).connections as number) > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    const before = await server.request({ type: 'rss' });
    const t0 = performance.now();
    const replies = await Promise.all(
      f.clients.map((c, i) =>
        c.request({ type: 'connect', n: Math.floor(n / clients) + (i < n % clients ? 1 : 0) }, 'connected', STEP_TIMEOUT),
      ),
    );
    f.connectSeconds = (performance.now() - t0) / 1000;
    for (const r of replies) {
      f.connected += r.open as number;
      f.failed += r.failed as number;
      if (r.error && !f.firstError) f.firstError = r.error as string;
    }
    return { ...f, before };
  } catch (err) {
    await stopFleet(f);
    throw err;
  }
}

async function stopFleet(f: { server: BenchChild; clients: BenchChild[] }): Promise<void> {
  await Promise.all(
    f.clients.map(async (c) => {
      await c.request({ type: 'close' }, 'closed', 30_000).catch(() => undefined);
      await c.stop();
    }),
  );
  await f.server.stop();
}

/** Publishes `count` messages of `phase` from the server; waits until every client has them all (or the timeout). */
async function burst(
  f: Fleet,
  phase: number,
  count: number,
  /** Also measure the server's event-loop delay (a single-process server only). */
  watchLoop = false,
): Promise<{ delivered: number; expected: number; seconds: number; cpuUs: number; latency: Histogram; loopMax: number }> {
  await Promise.all(f.clients.map((c) => c.request({ type: 'expect', phase, messages: count }, 'expecting')));
  const dones = f.clients.map((c) => c.next('done', STEP_TIMEOUT + 30_000));
  for (const d of dones) d.catch(() => undefined);
  const cpu0 = (await f.server.request({ type: 'cpu' })).us as number;
  if (watchLoop) await f.server.request({ type: 'loop-start' }, 'loop-started');
  const published = await f.server.request({ type: 'publish', phase, count, perTick: PER_TICK, rate: RATE }, 'published', STEP_TIMEOUT);
  const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 60_000).unref());
  if ((await Promise.race([Promise.all(dones), timeout])) === 'timeout') for (const c of f.clients) c.send({ type: 'report' });
  const reports = await Promise.all(dones);
  const loop = watchLoop ? await f.server.request({ type: 'loop-stop' }, 'loop') : { max: Number.NaN };
  const cpu1 = (await f.server.request({ type: 'cpu' })).us as number;
  let delivered = 0;
  let expected = 0;
  let lastUs = 0;
  const latency = new Histogram();
  for (const r of reports) {
    latency.merge(r.latency as HistogramData);
    delivered += r.received as number;
    expected += (r.sockets as number) * count;
    lastUs = Math.max(lastUs, r.lastUs as number);
  }
  return {
    delivered,
    expected,
    seconds: (lastUs - (published.startUs as number)) / 1e6,
    cpuUs: cpu1 - cpu0,
    latency,
    loopMax: loop.max as number,
  };
}

interface IdleResult {
  kind: ScaleKind;
  connected: number;
  failed: number;
  firstError: string;
  rssPerConn: number;
  heapPerConn: number;
  connectRate: number;
  rssTotal: number;
  broadcastReached: number;
  perWorker?: number[];
}

async function idle(kind: ScaleKind, n: number, clients: number, clustered: boolean): Promise<IdleResult> {
  const prefix = clustered ? `fwscale-${kind}-${randomBytes(4).toString('hex')}` : undefined;
  const f = await fleet(kind, n, clients, prefix, WARMUP * (clustered ? WORKERS : 1));
  try {
    await new Promise((r) => setTimeout(r, IDLE_WAIT));
    const after = await f.server.request({ type: 'rss' }, 'rss', STEP_TIMEOUT);
    const conns = after.connections as number;
    // One message to everyone: every connection is live, and (in a cluster) Redis carries it.
    const b = await burst(f, 1, 1);
    return {
      kind,
      connected: conns,
      failed: f.failed,
      firstError: f.firstError,
      rssPerConn: ((after.rss as number) - (f.before.rss as number)) / conns,
      heapPerConn: ((after.heap as number) - (f.before.heap as number)) / conns,
      connectRate: f.connected / f.connectSeconds,
      rssTotal: after.rss as number,
      broadcastReached: b.delivered,
      ...(Array.isArray(after.per) ? { perWorker: after.per as number[] } : {}),
    };
  } finally {
    await stopFleet(f);
    if (prefix) await purgeRedis(REDIS_URL, prefix);
  }
}

interface FanoutResult {
  kind: ScaleKind;
  connected: number;
  rate: number;
  cpuPerDelivery: number;
  missing: number;
  /** Publish-to-receipt time per delivery, ms. */
  p50: number;
  p99: number;
  max: number;
  /** The server's longest event-loop stall during the burst, ms. */
  loopMax: number;
}

async function fanout(kind: ScaleKind): Promise<FanoutResult> {
  const f = await fleet(kind, FANOUT, CLIENTS);
  try {
    await burst(f, 1, Math.max(1, Math.round(MESSAGES / 10)));
    const b = await burst(f, 2, MESSAGES, true);
    return {
      kind,
      connected: f.connected,
      rate: b.delivered / b.seconds,
      cpuPerDelivery: b.cpuUs / b.delivered,
      missing: b.expected - b.delivered,
      p50: b.latency.percentile(50) / 1000,
      p99: b.latency.percentile(99) / 1000,
      max: b.latency.max / 1000,
      loopMax: b.loopMax,
    };
  } finally {
    await stopFleet(f);
  }
}

const machine = () =>
  `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
const out: string[] = [];
function print(title: string, headers: string[], rows: string[][]): void {
  console.log(`\n${title}\n${textTable(headers, rows)}`);
  out.push(`${title}\n\n${markdownTable(headers, rows)}`);
}

console.log(`bench/scale — ${new Date().toISOString()}, Node ${process.version}, ${machine()}, args: ${argv.join(' ') || '(defaults)'}`);

const IDLE_HEADERS = ['server', 'connections', 'failed', 'broadcast reached', 'connect/s', 'RSS total MB', 'RSS/conn KB', 'heap/conn KB'];
function idleRows(rs: IdleResult[]): string[][] {
  const rows = rs.map((r) => [
    LABEL[r.kind] + (r.perWorker ? ` (${r.perWorker.join(' + ')})` : ''),
    fmt(r.connected),
    fmt(r.failed),
    fmt(r.broadcastReached),
    fmt(r.connectRate),
    fmt(r.rssTotal / 1048576, 1),
    fmt(r.rssPerConn / 1024, 2),
    fmt(r.heapPerConn / 1024, 2),
  ]);
  const fw = rs.find((r) => r.kind === 'fw');
  if (fw)
    for (const o of rs.filter((r) => r !== fw))
      rows.push([
        `fw / ${LABEL[o.kind]}`,
        '',
        '',
        '',
        ratio(fw.connectRate, o.connectRate),
        '',
        ratio(fw.rssPerConn, o.rssPerConn),
        ratio(fw.heapPerConn, o.heapPerConn),
      ]);
  return rows;
}

async function section(title: string, n: number, clients: number, clustered: boolean): Promise<void> {
  const runs: IdleResult[][] = [];
  for (let run = 1; run <= REPEAT; run++) {
    const rs: IdleResult[] = [];
    // Repetitions alternate the order, so that neither kind always runs on a fresher machine.
    for (const kind of run % 2 === 1 ? KINDS : [...KINDS].reverse()) {
      process.stderr.write(`  ${title}${REPEAT > 1 ? `, run ${run}` : ''}: ${LABEL[kind]}…\n`);
      try {
        const r = await idle(kind, n, clients, clustered);
        rs.push(r);
        if (r.failed > 0) console.log(`  note: ${LABEL[kind]}: ${r.failed} connections failed (${r.firstError})`);
      } catch (err) {
        console.log(`  ${title}: ${LABEL[kind]} failed: ${(err as Error).message}`);
      }
    }
    rs.sort((a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind));
    runs.push(rs);
    print(`${title}${REPEAT > 1 ? `, run ${run} of ${REPEAT}` : ''} (${machine()})`, IDLE_HEADERS, idleRows(rs));
  }
  if (REPEAT > 1) print(`${title}: fw's ratios in each of ${REPEAT} runs, and their median`, REPEAT_HEADERS, repeatRows(runs));
}

const REPEAT_HEADERS = ['fw / …', 'RSS/conn by run', 'median', 'heap/conn by run', 'median', 'connect/s by run', 'median'];
/**
 * One row per peer: fw's ratio in every run where both were measured whole, and the median of
 * those. A run where either kind lost a connection is left out (and counted): a worker that
 * node:cluster's round-robin filled up to its open-file limit stalls new handshakes, connecting
 * then takes minutes and memory is read from a process that has been idle that long.
 */
function repeatRows(runs: IdleResult[][]): string[][] {
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  return KINDS.filter((k) => k !== 'fw').map((peer) => {
    const pairs = runs.flatMap((rs) => {
      const fw = rs.find((r) => r.kind === 'fw');
      const o = rs.find((r) => r.kind === peer);
      return fw && o && fw.failed === 0 && o.failed === 0 ? [[fw, o] as const] : [];
    });
    const left = runs.length - pairs.length;
    const column = (f: (r: IdleResult) => number): string[] => {
      const xs = pairs.map(([fw, o]) => f(fw) / f(o));
      return [xs.map((x) => `${x.toFixed(3)}×`).join(' '), xs.length > 0 ? `${median(xs).toFixed(3)}×` : ''];
    };
    return [
      `${LABEL[peer]}${left > 0 ? ` (${left} of ${runs.length} runs left out: failed connections)` : ''}`,
      ...column((r) => r.rssPerConn),
      ...column((r) => r.heapPerConn),
      ...column((r) => r.connectRate),
    ];
  });
}

if (SECTIONS.includes('idle'))
  await section(`Idle connections, one process, ${fmt(IDLE)} from ${CLIENTS} client processes`, IDLE, CLIENTS, false);
if (SECTIONS.includes('cluster'))
  await section(
    `Idle connections, ${WORKERS} workers on one port + Redis, ${fmt(CLUSTER_TOTAL)} from ${CLUSTER_CLIENTS} client processes`,
    CLUSTER_TOTAL,
    CLUSTER_CLIENTS,
    true,
  );
if (SECTIONS.includes('fanout')) {
  const rows: string[][] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const order: ScaleKind[] = round % 2 === 1 ? ['fw', 'ceiling'] : ['ceiling', 'fw'];
    const rs: FanoutResult[] = [];
    for (const kind of order) {
      process.stderr.write(`  fan-out round ${round}: ${LABEL[kind]}…\n`);
      try {
        rs.push(await fanout(kind));
      } catch (err) {
        console.log(`  fan-out round ${round}: ${LABEL[kind]} failed: ${(err as Error).message}`);
      }
    }
    for (const r of rs)
      rows.push([
        String(round),
        LABEL[r.kind],
        fmt(r.connected),
        fmt(r.missing),
        fmt(r.rate),
        fmt(r.cpuPerDelivery, 3),
        fmt(r.p50, 1),
        fmt(r.p99, 1),
        fmt(r.max, 1),
        fmt(r.loopMax, 1),
      ]);
    const fw = rs.find((r) => r.kind === 'fw');
    const ceiling = rs.find((r) => r.kind === 'ceiling');
    if (fw && ceiling)
      rows.push([
        String(round),
        'fw / ceiling',
        '',
        '',
        ratio(fw.rate, ceiling.rate),
        ratio(fw.cpuPerDelivery, ceiling.cpuPerDelivery),
        ratio(fw.p50, ceiling.p50),
        ratio(fw.p99, ceiling.p99),
        ratio(fw.max, ceiling.max),
        ratio(fw.loopMax, ceiling.loopMax),
      ]);
  }
  print(
    `Fan-out, ${fmt(FANOUT)} subscribers, ${MESSAGES} messages of 128 bytes, ${RATE > 0 ? `${RATE} per second` : `${PER_TICK} per event-loop turn`}, ${ROUNDS} rounds in alternating order (${machine()})`,
    [
      'round',
      'server',
      'subscribers',
      'missing',
      'deliveries/s',
      'server CPU µs/delivery',
      'latency p50 ms',
      'p99 ms',
      'max ms',
      'server loop stall max ms',
    ],
    rows,
  );
}
console.log(`\nDone, ${machine()}.\n\nMarkdown:\n\n${out.join('\n\n')}`);
process.exit(0);
