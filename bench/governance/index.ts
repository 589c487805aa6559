/**
 * bench/governance: what governance costs (issue 26, acceptance 3). Each round starts one fresh
 * server with governance off (no admin plane) and one with it on (the admin plane, its kill switch
 * armed for another agent, a policy file of six rules, one event-stream reader and one stalled
 * consumer), in alternating order, and measures in each, after a warm-up of the same size:
 *
 * - server CPU per delivery: fw fan-out, one publisher, raw WebSocket subscribers, 128-byte
 *   messages (bench/fanout's subscriber process);
 * - server CPU per model call: agent runs on the local OpenAI-compatible model (its own
 *   process), each two model calls (a tool call, then the answer) and one tool call, every one
 *   of which the policies evaluate when governance is on.
 *
 * Budgets: ≤ 5 % more CPU per delivery, ≤ 2 % more per model call. Not a test: it prints both
 * configurations' medians and the per-round ratios (the two of a round run back to back, so
 * their ratio cancels the machine's drift).
 *
 *   npx tsc -b bench && node bench/dist/governance/index.js [--rounds 5] [--subscribers 200] [--messages 1000] [--runs 300] [--concurrency 4]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchChild, type BenchMessage } from '../common/child.js';
import { fmt, markdownTable, textTable } from '../common/table.js';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string): number => {
  const i = argv.indexOf(`--${name}`);
  const v = Number(i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback);
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a positive integer`);
  return v;
};
const ROUNDS = arg('rounds', '5');
const SUBSCRIBERS = arg('subscribers', '200');
const MESSAGES = arg('messages', '1000');
const RUNS = arg('runs', '300');
const CONCURRENCY = arg('concurrency', '4');
const PER_TICK = 10;
const TIMEOUT_MS = 120_000;
/** Budgets of the issue: what governance on may add to server CPU. */
const BUDGET = { delivery: 0.05, modelCall: 0.02 };

const here = (name: string) => fileURLToPath(new URL(`./${name}.js`, import.meta.url));
const subscriberScript = fileURLToPath(new URL('../fanout/subscriber.js', import.meta.url));
const consumersScript = fileURLToPath(new URL('../admin-overhead/consumers.js', import.meta.url));

/** Rules of the kinds docs/governance.md describes; each is evaluated on every call, none denies the bench's. */
const POLICIES = {
  policies: [
    { name: 'no-shell', rules: [{ type: 'deny-tools', tools: ['shell', 'exec_*'] }] },
    { name: 'short-queries', rules: [{ type: 'argument', tool: 'lookup', argument: 'q', max_length: 200, pattern: '^[\\w ]*$' }] },
    { name: 'lookups', rules: [{ type: 'rate-limit', on: 'tool', tools: ['lookup'], max: 1_000_000, window_seconds: 60 }] },
    { name: 'runaway-runs', rules: [{ type: 'rate-limit', on: 'model', max: 100, window_seconds: 60, per: 'run' }] },
    { name: 'no-passwords', rules: [{ type: 'content', on: 'input', pattern: 'password', flags: 'i' }] },
    { name: 'no-keys', mode: 'dry-run', rules: [{ type: 'content', on: 'output', pattern: 'sk-[A-Za-z0-9]{20}' }] },
  ],
};

type Mode = 'off' | 'on';
interface Run {
  mode: Mode;
  cpuUsPerDelivery: number;
  missing: number;
  cpuUsPerModelCall: number;
  modelCallsPerSecond: number;
  failedRuns: number;
  decisions: number;
}

async function burst(server: BenchChild, subs: BenchChild, phase: number, count: number) {
  await subs.request({ type: 'expect', phase, messages: count }, 'expecting');
  const done = subs.next('done', TIMEOUT_MS + 60_000);
  const cpu0 = (await server.request({ type: 'cpu' })).us as number;
  await server.request({ type: 'publish', phase, count, perTick: PER_TICK }, 'published', TIMEOUT_MS);
  const timer = setTimeout(() => subs.send({ type: 'report' }), TIMEOUT_MS);
  const report = (await done) as BenchMessage & { received: number; sockets: number };
  clearTimeout(timer);
  const cpu1 = (await server.request({ type: 'cpu' })).us as number;
  if (report.sockets !== SUBSCRIBERS) throw new Error(`${report.sockets} of ${SUBSCRIBERS} subscribers are connected`);
  return { cpuUs: cpu1 - cpu0, received: report.received, missing: count * report.sockets - report.received };
}

async function measure(mode: Mode, phaseBase: number, modelUrl: string, policyFile: string): Promise<Run> {
  const server = new BenchChild(
    `server (governance ${mode})`,
    here('server'),
    mode === 'on' ? [mode, modelUrl, policyFile] : [mode, modelUrl],
  );
  let subs: BenchChild | undefined;
  let consumers: BenchChild | undefined;
  try {
    const port = (await server.next('ready')).port as number;
    subs = new BenchChild('subscribers', subscriberScript, ['fw', String(port)], []);
    await subs.next('ready');
    await subs.request({ type: 'connect', n: SUBSCRIBERS }, 'connected', 120_000);
    if (mode === 'on') {
      consumers = new BenchChild('event-stream consumers', consumersScript, [String(port)], []);
      await consumers.next('ready');
    }
    await burst(server, subs, phaseBase, MESSAGES); // warm-up
    const fanout = await burst(server, subs, phaseBase + 1, MESSAGES);

    await server.request({ type: 'runs', runs: RUNS, concurrency: CONCURRENCY }, 'ran', TIMEOUT_MS); // warm-up
    const ran = (await server.request({ type: 'runs', runs: RUNS, concurrency: CONCURRENCY }, 'ran', TIMEOUT_MS)) as BenchMessage & {
      cpuUs: number;
      wallUs: number;
      failed: number;
    };
    const modelCalls = RUNS * 2;
    const decisions = (await server.request({ type: 'decisions' })).logged as number;
    return {
      mode,
      cpuUsPerDelivery: fanout.cpuUs / fanout.received,
      missing: fanout.missing,
      cpuUsPerModelCall: ran.cpuUs / modelCalls,
      modelCallsPerSecond: modelCalls / (ran.wallUs / 1e6),
      failedRuns: ran.failed,
      decisions,
    };
  } finally {
    await consumers?.request({ type: 'close' }, 'closed', 10_000).catch(() => undefined);
    await consumers?.stop();
    await subs?.request({ type: 'close' }, 'closed', 30_000).catch(() => undefined);
    await subs?.stop();
    await server.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'fw-bench-governance-'));
const policyFile = join(dir, 'policies.json');
writeFileSync(policyFile, JSON.stringify(POLICIES));
const model = new BenchChild('model server', here('model-server'), [], []);
const runs: Run[] = [];
const started = Date.now();
try {
  const modelUrl = (await model.next('ready')).url as string;
  console.log(
    `governance: ${ROUNDS} rounds; fan-out ${SUBSCRIBERS} subscribers × ${MESSAGES} messages; ${RUNS} agent runs (${RUNS * 2} model calls), ${CONCURRENCY} at a time; ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; ${new Date().toISOString()}`,
  );
  for (let round = 0; round < ROUNDS; round++) {
    const order: Mode[] = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
    for (const mode of order) {
      const r = await measure(mode, (runs.length * 2) % 10, modelUrl, policyFile);
      runs.push(r);
      console.log(
        `  round ${round + 1} governance ${mode}: ${r.cpuUsPerDelivery.toFixed(3)} µs/delivery (missing ${r.missing}), ${fmt(r.cpuUsPerModelCall, 1)} µs/model call (${fmt(r.modelCallsPerSecond)} calls/s, ${r.failedRuns} failed runs, ${r.decisions} decisions logged)`,
      );
    }
  }
} finally {
  await model.stop();
  rmSync(dir, { recursive: true, force: true });
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const of = (mode: Mode) => runs.filter((r) => r.mode === mode);
const paired = (key: 'cpuUsPerDelivery' | 'cpuUsPerModelCall'): number[] =>
  Array.from({ length: ROUNDS }, (_, i) => {
    const pair = runs.slice(i * 2, i * 2 + 2);
    return pair.find((r) => r.mode === 'on')![key] / pair.find((r) => r.mode === 'off')![key];
  });
const pct = (ratio: number): string => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)} %`;
const headers = ['governance', 'median CPU µs/delivery', 'missing', 'median CPU µs/model call', 'median model calls/s', 'failed runs'];
const rows = (['off', 'on'] as Mode[]).map((mode) => [
  mode === 'off' ? 'off (no admin plane)' : 'on (admin plane, kill switch, 6 rules, 2 stream consumers)',
  fmt(median(of(mode).map((r) => r.cpuUsPerDelivery)), 3),
  String(of(mode).reduce((n, r) => n + r.missing, 0)),
  fmt(median(of(mode).map((r) => r.cpuUsPerModelCall)), 1),
  fmt(median(of(mode).map((r) => r.modelCallsPerSecond))),
  String(of(mode).reduce((n, r) => n + r.failedRuns, 0)),
]);
console.log(`\n${textTable(headers, rows)}\n`);
for (const [key, label, budget] of [
  ['cpuUsPerDelivery', 'CPU per delivery', BUDGET.delivery],
  ['cpuUsPerModelCall', 'CPU per model call', BUDGET.modelCall],
] as const) {
  const ratios = paired(key);
  const medians = median(of('on').map((r) => r[key])) / median(of('off').map((r) => r[key]));
  const m = median(ratios);
  console.log(
    `${label}, on ÷ off: ${m.toFixed(3)}× (${pct(m)}) median of the per-round ratios, range ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}×; ratio of the medians ${medians.toFixed(3)}×; budget ≤ ${pct(1 + budget)}: ${m <= 1 + budget ? 'within' : 'OVER'}`,
  );
}
console.log(`\n${markdownTable(headers, rows)}\n(${((Date.now() - started) / 1000).toFixed(0)} s)`);
