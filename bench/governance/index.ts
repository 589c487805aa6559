/**
 * bench/governance: what governance costs (issue 26, acceptance 3). Each round starts three fresh
 * servers, in rotating order: `none` (no admin plane), `off` (the admin plane with governance as
 * it comes: switch disarmed, no policy) and `on` (the admin plane with its kill switch armed for
 * another agent and a policy file of six rules and two budgets); the two with the admin plane have one
 * event-stream reader and one stalled consumer. In each, after a warm-up of the same size:
 *
 * - server CPU per delivery: fw fan-out, one publisher, raw WebSocket subscribers, 128-byte
 *   messages (bench/fanout's subscriber process);
 * - server CPU per model call: agent runs on the local OpenAI-compatible model (its own
 *   process), each two model calls (a tool call, then the answer) and one tool call, every one
 *   of which the policies evaluate when governance is on.
 *
 * Budgets, governance on against off: ≤ 5 % more CPU per delivery, ≤ 2 % more per model call.
 * It also prints on against none (the admin plane and governance together). Not a test: it prints
 * each configuration's medians and the per-round ratios (a round's servers run back to back, so
 * their ratio cancels the machine's drift).
 *
 *   npx tsc -b bench && node bench/dist/governance/index.js [--rounds 5] [--subscribers 200] [--messages 1000] [--runs 60] [--concurrency 4]
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
const RUNS = arg('runs', '60');
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
  // Budgets checked on every model call and charged after it (none is reached).
  budgets: [
    { id: 'each-run', scope: 'run', hard: { tokens: 1_000_000 } },
    { id: 'writer-daily', scope: 'agent', key: 'writer', soft: { tokens: 1_000_000_000 }, hard: { tokens: 2_000_000_000 } },
  ],
};

type Mode = 'none' | 'off' | 'on';
const MODES: Mode[] = ['none', 'off', 'on'];
interface Run {
  mode: Mode;
  cpuUsPerDelivery: number;
  missing: number;
  cpuUsPerModelCall: number;
  modelCallsPerSecond: number;
  failedRuns: number;
  decisions: number;
  /** Governance's own work per model call, timed alone in the same server (on only). */
  engineUsPerModelCall: number;
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
    if (mode !== 'none') {
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
    const engine =
      mode === 'on' ? ((await server.request({ type: 'engine', iterations: 5000 }, 'engine', TIMEOUT_MS)).usPerRun as number) : 0;
    return {
      mode,
      cpuUsPerDelivery: fanout.cpuUs / fanout.received,
      missing: fanout.missing,
      cpuUsPerModelCall: ran.cpuUs / modelCalls,
      modelCallsPerSecond: modelCalls / (ran.wallUs / 1e6),
      failedRuns: ran.failed,
      decisions,
      engineUsPerModelCall: engine / 2,
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
    // Rotate the order so that no configuration always runs first (on a cooler or a busier machine).
    const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]!);
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
const paired = (key: 'cpuUsPerDelivery' | 'cpuUsPerModelCall', base: Mode): number[] =>
  Array.from({ length: ROUNDS }, (_, i) => {
    const round = runs.slice(i * MODES.length, (i + 1) * MODES.length);
    return round.find((r) => r.mode === 'on')![key] / round.find((r) => r.mode === base)![key];
  });
const pct = (ratio: number): string => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)} %`;
const headers = ['governance', 'median CPU µs/delivery', 'missing', 'median CPU µs/model call', 'median model calls/s', 'failed runs'];
const LABEL: Record<Mode, string> = {
  none: 'none (no admin plane)',
  off: 'off (admin plane: switch disarmed, no policy)',
  on: 'on (admin plane: switch armed for another agent, 6 rules, 2 budgets)',
};
const rows = MODES.map((mode) => [
  LABEL[mode],
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
  for (const base of ['off', 'none'] as const) {
    const ratios = paired(key, base);
    const medians = median(of('on').map((r) => r[key])) / median(of(base).map((r) => r[key]));
    const m = median(ratios);
    console.log(
      `${label}, on ÷ ${base}: ${m.toFixed(3)}× (${pct(m)}) median of the per-round ratios, range ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}×; ratio of the medians ${medians.toFixed(3)}×${
        base === 'off'
          ? `; budget ≤ ${pct(1 + budget)}: ${m <= 1 + budget ? 'within' : 'OVER'}`
          : ' (the admin plane and governance together)'
      }`,
    );
  }
}
const engine = median(of('on').map((r) => r.engineUsPerModelCall));
console.log(
  `the policies' own work per model call, timed alone in the on servers (asked as a run asks them, decisions logged): ${engine.toFixed(1)} µs, ${((100 * engine) / median(of('on').map((r) => r.cpuUsPerModelCall))).toFixed(2)} % of the on servers' median CPU per model call`,
);
console.log(`\n${markdownTable(headers, rows)}\n(${((Date.now() - started) / 1000).toFixed(0)} s)`);
