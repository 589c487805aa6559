/**
 * bench/admin-overhead: what the admin plane costs the data plane. fw fan-out (one publisher, N
 * raw WebSocket subscribers, 128-byte messages, as in bench/fanout) with the admin plane off,
 * against the admin plane on with one event-stream consumer reading every event and one stalled
 * consumer that never reads, in the same run, alternating rounds. Not a test: it prints
 * deliveries/s per configuration and the ratio (target ≥ 0.95×).
 *
 * Metrics are on in both servers (fw's default). `--traces` says where an OpenTelemetry SDK is
 * registered (server.ts): `both` (the default: the admin plane's cost in an app that traces, the
 * SDK being the app's, on both sides), `on` (only beside the admin plane: the admin plane plus what
 * the SDK's context manager costs the app), `off` (nowhere).
 *
 *   npx tsc -b bench && node bench/dist/admin-overhead/index.js [--subscribers 500] [--messages 2000] [--warmup 2000] [--rounds 5] [--traces both|on|off]
 */
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { BenchChild, type BenchMessage } from '../common/child.js';
import { fmt, markdownTable, textTable } from '../common/table.js';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : fallback;
};
const SUBSCRIBERS = Number(arg('subscribers', '500'));
const MESSAGES = Number(arg('messages', '2000'));
const ROUNDS = Number(arg('rounds', '5'));
/** Messages of the warm-up burst before each measured one (JIT and socket buffers settle first). */
const WARMUP = Number(arg('warmup', String(MESSAGES)));
const TRACES_MODE = arg('traces', 'both');
if (!['both', 'on', 'off'].includes(TRACES_MODE)) throw new Error(`--traces must be both, on or off (got ${TRACES_MODE})`);
/** Whether the server of this mode registers an OpenTelemetry SDK. */
const traced = (mode: Mode): boolean => TRACES_MODE === 'both' || (TRACES_MODE === 'on' && mode === 'on');
const PER_TICK = 10;
const TIMEOUT_MS = 120_000;

const here = (name: string) => fileURLToPath(new URL(`./${name}.js`, import.meta.url));
const subscriberScript = fileURLToPath(new URL('../fanout/subscriber.js', import.meta.url));

type Mode = 'off' | 'on';
interface Run {
  mode: Mode;
  rate: number;
  missing: number;
  cpuUsPerDelivery: number;
  events: number;
  adminDropped: number;
  slowDropped: number;
}

async function burst(
  server: BenchChild,
  subs: BenchChild,
  phase: number,
  count: number,
): Promise<{ rate: number; missing: number; cpuUs: number; received: number }> {
  await subs.request({ type: 'expect', phase, messages: count }, 'expecting');
  const done = subs.next('done', TIMEOUT_MS + 60_000);
  const cpu0 = (await server.request({ type: 'cpu' })).us as number;
  const published = await server.request({ type: 'publish', phase, count, perTick: PER_TICK }, 'published', TIMEOUT_MS);
  const timer = setTimeout(() => subs.send({ type: 'report' }), TIMEOUT_MS);
  // The subscriber reports what it received and over how many sockets; what was expected is
  // every message on every socket (its report carries no `expected`: computing it here keeps
  // lost deliveries visible instead of NaN).
  const report = (await done) as BenchMessage & { received: number; sockets: number; lastUs: number };
  clearTimeout(timer);
  const cpu1 = (await server.request({ type: 'cpu' })).us as number;
  const seconds = (report.lastUs - (published.startUs as number)) / 1e6;
  if (report.sockets !== SUBSCRIBERS) throw new Error(`${report.sockets} of ${SUBSCRIBERS} subscribers are connected`);
  const expected = count * report.sockets;
  return { rate: report.received / seconds, missing: expected - report.received, cpuUs: cpu1 - cpu0, received: report.received };
}

async function measure(mode: Mode, phaseBase: number): Promise<Run> {
  const server = new BenchChild(`server (admin ${mode})`, here('server'), traced(mode) ? [mode, 'traces'] : [mode]);
  let subs: BenchChild | undefined;
  let consumers: BenchChild | undefined;
  try {
    const port = (await server.next('ready')).port as number;
    subs = new BenchChild('subscribers', subscriberScript, ['fw', String(port)], []);
    await subs.next('ready');
    await subs.request({ type: 'connect', n: SUBSCRIBERS }, 'connected', 120_000);
    if (mode === 'on') {
      consumers = new BenchChild('event-stream consumers', here('consumers'), [String(port)], []);
      await consumers.next('ready');
    }
    const count = MESSAGES;
    await burst(server, subs, phaseBase, Math.max(10, WARMUP)); // warm-up
    const r = await burst(server, subs, phaseBase + 1, count);
    await new Promise((res) => setTimeout(res, 200)); // let the event stream drain
    const admin = (await server.request({ type: 'admin' })) as BenchMessage & {
      stats: { queueDropped: number; consumerDropped: number } | null;
      runtime: { dropped: number };
    };
    const events = consumers ? ((await consumers.request({ type: 'count' })).events as number) : 0;
    return {
      mode,
      rate: r.rate,
      missing: r.missing,
      cpuUsPerDelivery: r.cpuUs / r.received,
      events,
      adminDropped: (admin.stats?.queueDropped ?? 0) + (admin.stats?.consumerDropped ?? 0),
      slowDropped: admin.runtime.dropped,
    };
  } finally {
    await consumers?.request({ type: 'close' }, 'closed', 10_000).catch(() => undefined);
    await consumers?.stop();
    await subs?.request({ type: 'close' }, 'closed', 30_000).catch(() => undefined);
    await subs?.stop();
    await server.stop();
  }
}

const runs: Run[] = [];
console.log(
  `admin-overhead: ${SUBSCRIBERS} subscribers, ${MESSAGES} messages per burst, ${ROUNDS} rounds, OpenTelemetry SDK: ${{ both: 'in both servers', on: 'only beside the admin plane', off: 'none' }[TRACES_MODE]}; ${cpus().length} CPUs, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
for (let round = 0; round < ROUNDS; round++) {
  // Alternate the order so that neither configuration always runs on a warmer (or busier) machine.
  const order: Mode[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
  for (const mode of order) {
    const r = await measure(mode, (runs.length * 2) % 10);
    runs.push(r);
    console.log(
      `  round ${round + 1} admin ${mode}: ${fmt(r.rate)} deliveries/s, missing ${r.missing}, server CPU ${r.cpuUsPerDelivery.toFixed(2)} µs/delivery, events seen ${r.events}`,
    );
  }
}

const of = (mode: Mode): Run[] => runs.filter((r) => r.mode === mode);
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const best = (mode: Mode): number => Math.max(...of(mode).map((r) => r.rate));
const rate = (mode: Mode): number => median(of(mode).map((r) => r.rate));
const cpu = (mode: Mode): number => median(of(mode).map((r) => r.cpuUsPerDelivery));
const last = of('on').at(-1)!;
const headers = [
  'admin plane',
  'best deliveries/s',
  'median deliveries/s',
  'missing',
  'median server CPU µs/delivery',
  'events to the reader',
  'stream drops (admin + slow consumer)',
];
const rows = [
  [
    `off${traced('off') ? ' + traces' : ''}`,
    fmt(best('off')),
    fmt(rate('off')),
    String(of('off').reduce((n, r) => n + r.missing, 0)),
    fmt(cpu('off'), 2),
    '-',
    '-',
  ],
  [
    `on${traced('on') ? ' + traces' : ''}, 1 reader + 1 stalled consumer`,
    fmt(best('on')),
    fmt(rate('on')),
    String(of('on').reduce((n, r) => n + r.missing, 0)),
    fmt(cpu('on'), 2),
    String(last.events),
    `${last.adminDropped} + ${last.slowDropped}`,
  ],
];
console.log(`\n${textTable(headers, rows)}`);
// Wall-clock throughput swings with whatever else the machine runs; the server's CPU time per
// delivery is the steadier measure of what the admin plane adds to the data plane.
console.log(
  `\nthroughput on/off: ${(rate('on') / rate('off')).toFixed(3)}× (median of ${ROUNDS}), ${(best('on') / best('off')).toFixed(3)}× (best)`,
);
console.log(`CPU efficiency on/off (CPU per delivery off ÷ on): ${(cpu('off') / cpu('on')).toFixed(3)}×; target ≥ 0.95×`);
// Each round measures both back to back (in alternating order): their ratio cancels the machine's
// drift between rounds, which the ratio of the two medians does not.
const paired = Array.from({ length: ROUNDS }, (_, i) => {
  const pair = runs.slice(i * 2, i * 2 + 2);
  const off = pair.find((r) => r.mode === 'off')!;
  const on = pair.find((r) => r.mode === 'on')!;
  return off.cpuUsPerDelivery / on.cpuUsPerDelivery;
});
console.log(
  `CPU efficiency per round (off ÷ on, same round): median ${median(paired).toFixed(3)}×, range ${Math.min(...paired).toFixed(3)}–${Math.max(...paired).toFixed(3)}×\n`,
);
console.log(markdownTable(headers, rows));
