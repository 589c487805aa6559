/**
 * bench/fanout: one publisher, N WebSocket subscribers on loopback, 128-byte messages; fw against
 * a raw `ws` send loop, a coalescing Node ceiling and Socket.IO 4, in the same run. Not a test: it
 * prints a table per N with ratios, and a Markdown table for docs/benchmarks.md.
 *
 *   npm run bench:fanout -- [--sizes 100,1000,5000] [--kinds fw,ws,sio] [--fw-protocol]   (kinds: fw, fw-proto, fw-rooms, ws, sio, ceiling)
 *                           [--deliveries 500000] [--paced-rate 20000] [--clients 1] [--memory-only]
 *                           [--server-flags '--max-semi-space-size=1'] [--subscriber-flags '--cpu-prof']
 *                           [--rounds 3] [--idle-seconds 10] [--bun <path to bun>]
 *
 * On Bun (docs/bun.md): kinds `fw-bun`, `fw-proto-bun` (fw's server unchanged, its `fw.listen()`
 * serving through `Bun.serve`) and `bun` (Bun's own pub/sub: one `server.publish` per message)
 * run their server process on the Bun binary given by `--bun` (or $BUN, or `bun` on PATH); the
 * subscribers and the publisher stay on Node, the same for every kind. `--rounds 3` measures the
 * kinds alternated, three times over, in one run; `--idle-seconds` adds the server's CPU while the
 * N connections are idle (µs per second per 1,000 connections). `npm run bench:bun` runs both
 * acceptance measurements of issue #30 (docs/bun.md, *Benchmarks*).
 *
 * `ceiling` ("Node ceiling (coalescing)", server.ts): raw `ws` on Node doing the least a server
 * can per delivery while coalescing as fw does: each message framed once, the frames of one task
 * concatenated once in a microtask after it and that one Buffer written to every subscriber socket
 * (one write per socket per turn). `npm run bench:fanout:like` measures fw, fw-proto and ceiling
 * like for like; the rows `fw / ceiling`, `fw (fw protocol) / ceiling` and `fw (fw protocol) / fw`
 * give the ratios (issue #30's acceptance: fw protocol ≥ 0.9× fw raw frames in CPU efficiency).
 * fw-protocol subscribers connect with `?fw=1&ids=implicit` and check the message numbering
 * (subscriber.ts); a kind with misnumbered frames gets a note under its table.
 *
 * Per server kind and N: the server starts in a child process of its own; the subscribers connect
 * from `--clients` other child processes; the server's RSS is read (after a GC) before, at N/2 and
 * after the N idle connections. Then the publisher, a client process of its own, connects to the
 * server's publishing path, and sends three phases, identical for every kind:
 *   warm-up  a burst of 10% of the burst's messages, results discarded;
 *   burst    `--deliveries`/N messages (at most 5000), 10 per event-loop turn of the publisher:
 *            deliveries/s = deliveries / (last delivery − first send), and the server's CPU time
 *            per delivery;
 *   paced    `--paced-rate`/N messages per second for 5 s: latency at a load every kind sustains
 *            (20 000 deliveries/s by default, well under Socket.IO's burst rate here).
 * Each phase waits for every subscriber to have every message, at most `--timeout` seconds (60),
 * then stops the publisher and reports what is missing. The server's CPU time while the N
 * subscribers connect (the two connect steps, without the pause and RSS reading between them) is
 * given in ms per 1,000 connections.
 */
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { BenchChild, type BenchMessage } from '../common/child.js';
import { Histogram, type HistogramData } from '../common/histogram.js';
import { fmt, markdownTable, ratio, textTable } from '../common/table.js';
import { MESSAGE_BYTES } from './message.js';
import { ON_BUN, type ServerKind } from './kinds.js';
import { arg } from '../common/args.js';

const argv = process.argv.slice(2);
const SIZES = arg('sizes', '100,1000,5000').split(',').map(Number);
const KINDS = arg('kinds', 'fw,ws,sio').split(',') as ServerKind[];
if (argv.includes('--fw-protocol') && !KINDS.includes('fw-proto')) KINDS.splice(1, 0, 'fw-proto');
const DELIVERIES = Number(arg('deliveries', '500000'));
const PACED_RATE = Number(arg('paced-rate', '20000'));
const PACED_SECONDS = 5;
const PER_TICK = 10;
const CLIENTS = Number(arg('clients', '1'));
const MEMORY_ONLY = argv.includes('--memory-only');
/** Extra Node flags for every server process alike (e.g. a fixed young generation, to see its share of RSS). */
const SERVER_FLAGS = arg('server-flags', '').split(' ').filter(Boolean);
/** Extra Node flags for the subscriber processes (e.g. `--cpu-prof` to see where the load generator's time goes). */
const SUBSCRIBER_FLAGS = arg('subscriber-flags', '').split(' ').filter(Boolean);
const TIMEOUT_MS = Number(arg('timeout', '60')) * 1000;
const ROUNDS = Number(arg('rounds', '1'));
const IDLE_SECONDS = Number(arg('idle-seconds', '0'));
const BUN = arg('bun', process.env.BUN ?? 'bun');

const LABEL: Record<ServerKind, string> = {
  fw: 'fw',
  'fw-proto': 'fw (fw protocol)',
  'fw-rooms': 'fw (fw protocol, rooms)',
  ws: 'ws (raw loop)',
  sio: 'Socket.IO 4',
  ceiling: 'Node ceiling (coalescing)',
  'fw-bun': 'fw on Bun',
  'fw-proto-bun': 'fw on Bun (fw protocol)',
  bun: 'Bun pub/sub',
};

interface PhaseResult {
  deliveries: number;
  /** Messages sent but not received by every subscriber before the deadline. */
  missing: number;
  /** Messages not even published before the deadline (the publisher was stopped). */
  unsent: number;
  seconds: number;
  p50: number;
  p99: number;
  cpuUsPerDelivery: number;
  /** fw-protocol frames numbered wrong (subscriber.ts), summed over the subscriber processes. */
  misnumbered: number;
}

interface Result {
  kind: ServerKind;
  n: number;
  connectFailed: number;
  rssPerConn: number;
  /** RSS growth per connection from N/2 to N connections. */
  rssMarginal: number;
  /** V8 heap + external bytes per connection: the part of the RSS the server's objects account for. */
  heapPerConn: number;
  /** Server CPU while the N connections are idle, µs per second per 1,000 connections (`--idle-seconds`). */
  idleCpuPer1000: number;
  /** Server CPU during the two connect steps, ms per 1,000 connections. */
  connectCpuMsPer1000: number;
  /** fw-protocol frames numbered wrong in all three phases (warm-up included). */
  misnumbered: number;
  burst: PhaseResult;
  paced: PhaseResult;
}

const NO_PHASE: PhaseResult = {
  deliveries: NaN,
  missing: 0,
  unsent: 0,
  seconds: NaN,
  p50: NaN,
  p99: NaN,
  cpuUsPerDelivery: NaN,
  misnumbered: 0,
};

const script = (name: string) => fileURLToPath(new URL(`./${name}.js`, import.meta.url));

async function runPhase(
  server: BenchChild,
  publisher: BenchChild,
  subs: BenchChild[],
  m: { phase: number; mode: 'burst' | 'paced'; count: number; intervalMs?: number },
): Promise<PhaseResult> {
  await Promise.all(subs.map((s) => s.request({ type: 'expect', phase: m.phase, messages: m.count }, 'expecting')));
  const dones = subs.map((s) => s.next('done', TIMEOUT_MS + 60_000));
  // A failed phase must not leave these waiting on children that are being stopped.
  for (const d of dones) d.catch(() => undefined);
  const cpu0 = (await server.request({ type: 'cpu' })).us as number;
  // One deadline for publishing and delivering: past it, the publisher stops and what arrived counts.
  const deadline = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), TIMEOUT_MS).unref());
  const publishing = publisher.request({ type: 'publish', ...m, perTick: PER_TICK }, 'published', TIMEOUT_MS + 60_000);
  if ((await Promise.race([publishing, deadline])) === 'timeout') publisher.send({ type: 'abort' });
  const published = await publishing;
  if ((await Promise.race([Promise.all(dones), deadline])) === 'timeout') for (const s of subs) s.send({ type: 'report' });
  const reports = (await Promise.all(dones)) as (BenchMessage & {
    received: number;
    sockets: number;
    lastUs: number;
    misnumbered?: number;
    hist: HistogramData;
  })[];
  const cpu1 = (await server.request({ type: 'cpu' })).us as number;
  const hist = new Histogram();
  let received = 0;
  let expected = 0;
  let lastUs = 0;
  let misnumbered = 0;
  for (const r of reports) {
    hist.merge(r.hist);
    misnumbered += r.misnumbered ?? 0;
    received += r.received;
    expected += r.sockets * (published.sent as number);
    lastUs = Math.max(lastUs, r.lastUs);
  }
  const seconds = (lastUs - (published.startUs as number)) / 1e6;
  return {
    deliveries: received,
    missing: expected - received,
    unsent: m.count - (published.sent as number),
    seconds,
    p50: hist.percentile(50) / 1000,
    p99: hist.percentile(99) / 1000,
    cpuUsPerDelivery: received > 0 ? (cpu1 - cpu0) / received : NaN,
    misnumbered,
  };
}

async function measure(kind: ServerKind, n: number): Promise<Result> {
  const onBun = ON_BUN.includes(kind);
  const server = onBun
    ? new BenchChild(`${kind} server`, script('server'), [kind], SERVER_FLAGS, BUN)
    : new BenchChild(`${kind} server`, script('server'), [kind], ['--expose-gc', ...SERVER_FLAGS]);
  const subs: BenchChild[] = [];
  let publisher: BenchChild | undefined;
  try {
    const port = (await server.next('ready')).port as number;
    const before = await server.request({ type: 'rss' });
    let connectFailed = 0;
    for (let i = 0; i < CLIENTS; i++) {
      const sub = new BenchChild(`${kind} subscribers ${i + 1}`, script('subscriber'), [kind, String(port)], SUBSCRIBER_FLAGS);
      subs.push(sub);
      await sub.next('ready');
    }
    // Two halves: the RSS at N/2 gives the marginal cost of the second half, free of one-time growth
    // (JIT code, the young generation growing while the first connections are set up).
    let connectCpuUs = 0;
    const connect = async (total: number) => {
      const cpu0 = (await server.request({ type: 'cpu' })).us as number;
      for (let i = 0; i < CLIENTS; i++) {
        const share = Math.floor(total / CLIENTS) + (i < total % CLIENTS ? 1 : 0);
        connectFailed += (await subs[i]!.request({ type: 'connect', n: share }, 'connected', 120_000)).failed as number;
      }
      connectCpuUs += ((await server.request({ type: 'cpu' })).us as number) - cpu0;
    };
    await connect(Math.floor(n / 2));
    await new Promise((r) => setTimeout(r, 500));
    const half = await server.request({ type: 'rss' });
    await connect(n - Math.floor(n / 2));
    // Idle connections, settled: the server's memory per connection.
    await new Promise((r) => setTimeout(r, 500));
    const after = await server.request({ type: 'rss' });
    const conns = after.connections as number;
    const rssPerConn = ((after.rss as number) - (before.rss as number)) / conns;
    const rssMarginal = ((after.rss as number) - (half.rss as number)) / (conns - (half.connections as number));
    const heapPerConn = ((after.heap as number) - (before.heap as number)) / conns;
    const connectCpuMsPer1000 = connectCpuUs / 1000 / (conns / 1000);
    let idleCpuPer1000 = NaN;
    if (IDLE_SECONDS > 0) {
      const cpu0 = (await server.request({ type: 'cpu' })).us as number;
      await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
      const cpu1 = (await server.request({ type: 'cpu' })).us as number;
      idleCpuPer1000 = (cpu1 - cpu0) / IDLE_SECONDS / (conns / 1000);
    }
    if (MEMORY_ONLY)
      return {
        kind,
        n,
        connectFailed,
        rssPerConn,
        rssMarginal,
        heapPerConn,
        idleCpuPer1000,
        connectCpuMsPer1000,
        misnumbered: 0,
        burst: NO_PHASE,
        paced: NO_PHASE,
      };

    publisher = new BenchChild(`${kind} publisher`, script('publisher'), [kind, String(port)], []);
    await publisher.next('ready');
    await publisher.request({ type: 'connect' }, 'connected', 30_000);
    const pub = publisher;
    const count = Math.min(5000, Math.round(DELIVERIES / n));
    const warm = await runPhase(server, pub, subs, { phase: 1, mode: 'burst', count: Math.max(10, Math.round(count / 10)) });
    const burst = await runPhase(server, pub, subs, { phase: 2, mode: 'burst', count });
    const rate = PACED_RATE / n;
    const paced = await runPhase(server, pub, subs, {
      phase: 3,
      mode: 'paced',
      count: Math.round(rate * PACED_SECONDS),
      intervalMs: 1000 / rate,
    });
    const misnumbered = warm.misnumbered + burst.misnumbered + paced.misnumbered;
    return { kind, n, connectFailed, rssPerConn, rssMarginal, heapPerConn, idleCpuPer1000, connectCpuMsPer1000, misnumbered, burst, paced };
  } finally {
    await Promise.all(
      [...subs, ...(publisher ? [publisher] : [])].map(async (s) => {
        await s.request({ type: 'close' }, 'closed', 30_000).catch(() => undefined);
        await s.stop();
      }),
    );
    await server.stop();
  }
}

const ms = (v: number) => fmt(v, v < 10 ? 2 : 1);
const HEADERS = [
  'N',
  'server',
  'deliveries/s',
  'missing',
  'burst p50 ms',
  'burst p99 ms',
  'paced p50 ms',
  'paced p99 ms',
  'server CPU µs/delivery',
  'RSS/conn KB',
  'RSS/conn KB (2nd half)',
  'heap/conn KB',
  'idle CPU µs/s per 1k conns',
  'connect CPU ms per 1k conns',
];

function row(r: Result): string[] {
  return [
    String(r.n),
    LABEL[r.kind],
    fmt(r.burst.deliveries / r.burst.seconds),
    fmt(r.burst.missing + r.paced.missing),
    ms(r.burst.p50),
    ms(r.burst.p99),
    ms(r.paced.p50),
    ms(r.paced.p99),
    fmt(r.burst.cpuUsPerDelivery, 2),
    fmt(r.rssPerConn / 1024, 1),
    fmt(r.rssMarginal / 1024, 1),
    fmt(r.heapPerConn / 1024, 1),
    fmt(r.idleCpuPer1000, 1),
    fmt(r.connectCpuMsPer1000, 1),
  ];
}

/**
 * fw against every other Node kind; fw protocol against fw (raw frames) and the ceiling; fw on
 * Bun against Bun's own pub/sub (the issue #30 targets).
 */
function ratios(rs: Result[]): string[][] {
  const rate = (r: Result) => r.burst.deliveries / r.burst.seconds;
  const against = (a: Result, o: Result): string[] => [
    String(a.n),
    `${LABEL[a.kind]} / ${LABEL[o.kind]}`,
    ratio(rate(a), rate(o)),
    '',
    ratio(a.burst.p50, o.burst.p50),
    ratio(a.burst.p99, o.burst.p99),
    ratio(a.paced.p50, o.paced.p50),
    ratio(a.paced.p99, o.paced.p99),
    ratio(a.burst.cpuUsPerDelivery, o.burst.cpuUsPerDelivery),
    ratio(a.rssPerConn, o.rssPerConn),
    ratio(a.rssMarginal, o.rssMarginal),
    ratio(a.heapPerConn, o.heapPerConn),
    ratio(a.idleCpuPer1000, o.idleCpuPer1000),
    ratio(a.connectCpuMsPer1000, o.connectCpuMsPer1000),
  ];
  const out: string[][] = [];
  const fw = rs.find((r) => r.kind === 'fw');
  // fw against fw protocol is given the other way round, below.
  if (fw) for (const o of rs) if (o !== fw && o.kind !== 'fw-proto' && !ON_BUN.includes(o.kind)) out.push(against(fw, o));
  const proto = rs.find((r) => r.kind === 'fw-proto');
  if (proto) for (const o of rs) if (o.kind === 'fw' || o.kind === 'ceiling') out.push(against(proto, o));
  const bun = rs.find((r) => r.kind === 'bun');
  if (bun) for (const o of rs) if (o.kind === 'fw-bun' || o.kind === 'fw-proto-bun') out.push(against(o, bun));
  return out;
}

const machine = () =>
  `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;
console.log(
  `bench/fanout — ${new Date().toISOString()}, Node ${process.version}, ${machine()}, ${MESSAGE_BYTES}-byte messages, ${CLIENTS} subscriber process(es)${SERVER_FLAGS.length ? `, server flags ${SERVER_FLAGS.join(' ')}` : ''}`,
);
const all: string[][] = [];
for (const n of SIZES) {
  for (let round = 1; round <= ROUNDS; round++) {
    const results: Result[] = [];
    // Rounds alternate the kinds (the first kind of one round is the last of the one before), so
    // that a machine whose load drifts during the run does not favour one kind.
    const order = round % 2 === 1 ? KINDS : [...KINDS].reverse();
    for (const kind of order) {
      process.stderr.write(`  N=${n}${ROUNDS > 1 ? ` round ${round}` : ''} ${LABEL[kind]}…\n`);
      try {
        results.push(await measure(kind, n));
      } catch (err) {
        console.error(`  N=${n} ${LABEL[kind]} failed: ${(err as Error).message}`);
      }
    }
    results.sort((a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind));
    const rows = [...results.map(row), ...ratios(results)];
    all.push(...rows);
    console.log(`\nN = ${n}${ROUNDS > 1 ? `, round ${round} of ${ROUNDS}` : ''}\n${textTable(HEADERS, rows)}`);
    for (const r of results) {
      for (const [name, p] of [
        ['burst', r.burst],
        ['paced', r.paced],
      ] as const) {
        if (p.unsent > 0)
          console.log(
            `  note: ${LABEL[r.kind]} ${name}: ${p.unsent} messages not published within --timeout (rates are over what was sent)`,
          );
      }
      if (r.connectFailed > 0) console.log(`  note: ${LABEL[r.kind]}: ${r.connectFailed} subscribers failed to connect`);
      if (r.misnumbered > 0)
        console.log(
          `  note: ${LABEL[r.kind]}: ${r.misnumbered} fw-protocol frames misnumbered (id not the previous + 1, or none to count from)`,
        );
    }
  }
}
console.log(`\nDone, ${machine()}.\n\nMarkdown:\n\n${markdownTable(HEADERS, all)}`);
