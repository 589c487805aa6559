/**
 * bench/tape: what recording a run on the tape costs fw's server CPU on a model-backed turn
 * (issue 27, acceptance 3: ≤ 3 %). Two fw servers in their own processes (server.ts), the same
 * agent, one with `fw.agent.tape.enabled` on and one off, both against one local
 * OpenAI-compatible model server, a third process (model-server.ts). A turn is a chat message
 * over WebSocket to a model-backed agent: a model call that asks for two tool calls, the two
 * tools, a model call whose answer streams in 40 pieces, the answer streamed to the client.
 *
 * Rounds alternate between the servers (on/off, then off/on, …) so that whatever else the
 * machine does falls on both alike; each round is `--clients` chat sockets sending `--turns`
 * turns each, one after the other. A round's CPU is the server process's `process.cpuUsage()`
 * (user + system, all its threads) after its store's write queue has drained, minus before: the
 * tape's deferred writes are in it. Reported: CPU per turn of each side over all rounds, the
 * overhead of on over off, and the median of the rounds' paired overheads (round i on against
 * round i off), which is what a noisy machine disturbs least.
 *
 *   npm run bench:tape -- [--rounds 10] [--clients 4] [--turns 25] [--chunks 40] [--port 23100] [--profile <dir>] [--compare tape|budgets]
 *
 * `--compare budgets` measures governance's budgets and spend instead (issue 26, item 3: ≤ 2 % per
 * model call): the tape off on both servers, `on` with the admin plane, a price table and budgets
 * of every scope, `off` without the admin plane; besides the CPU per turn, the `on` server times
 * each call into the budget hooks, which gives their cost per model call without the noise of
 * comparing two processes.
 *
 * Ports: the model server on `--port`, the servers with the tape on and off on the next two.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { BenchChild } from '../common/child.js';
import { arg } from '../common/args.js';
import { fmt, markdownTable, textTable } from '../common/table.js';

const ROUNDS = Number(arg('rounds', '10'));
const CLIENTS = Number(arg('clients', '4'));
const TURNS = Number(arg('turns', '25'));
const CHUNKS = arg('chunks', '40');
const PORT = Number(arg('port', '23100'));
/** `--profile <dir>`: the servers write V8 CPU profiles there (`--cpu-prof`), to see where recording's time goes. */
const PROFILE = arg('profile', '');
/** What the two servers differ in: the run tape (default) or governance's budgets and spend. */
const COMPARE = arg('compare', 'tape');
if (COMPARE !== 'tape' && COMPARE !== 'budgets') throw new Error(`--compare is tape or budgets, not '${COMPARE}'`);
const ANSWER = Array.from({ length: Number(CHUNKS) }, (_, i) => `word${i} `).join('');

interface Side {
  name: 'on' | 'off';
  child: BenchChild;
  port: number;
  dataDir: string;
  /** CPU µs per turn of each measured round. */
  rounds: number[];
}

/** One chat socket sending `turns` messages, each after the previous one's `done`; every answer must be the model's. */
async function chat(port: number, turns: number): Promise<void> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/fw/agent/surveyor`);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  try {
    for (let i = 0; i < turns; i++) {
      const done = new Promise<void>((resolve, reject) => {
        const onMessage = (data: WebSocket.RawData): void => {
          const frame = JSON.parse(String(data)) as { type: string; text?: string; code?: string };
          if (frame.type !== 'done' && frame.type !== 'error') return; // tokens, the session frame
          ws.off('message', onMessage);
          if (frame.type === 'done' && frame.text === ANSWER) resolve();
          else reject(new Error(`turn ${i}: ${JSON.stringify(frame).slice(0, 300)}`));
        };
        ws.on('message', onMessage);
      });
      ws.send(`which is longer, the rope or the pole? (${i})`);
      await done;
    }
  } finally {
    ws.close();
  }
}

async function cpuUs(side: Side): Promise<number> {
  return (await side.child.request({ type: 'cpu' })).us as number;
}

/** One round on one server: CPU µs per turn. */
async function round(side: Side): Promise<number> {
  const before = await cpuUs(side);
  await Promise.all(Array.from({ length: CLIENTS }, () => chat(side.port, TURNS)));
  const after = await cpuUs(side);
  return (after - before) / (CLIENTS * TURNS);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  console.log(
    `bench/tape (${COMPARE} on vs off): ${ROUNDS} rounds per side, ${CLIENTS} chat clients × ${TURNS} turns per round, answers of ${CHUNKS} pieces; node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load ${load()}`,
  );
  const model = new BenchChild(
    'model server',
    new URL('./model-server.js', import.meta.url),
    ['--port', String(PORT), '--chunks', CHUNKS],
    [],
  );
  const sides: Side[] = [];
  try {
    const { url } = await model.next('ready');
    for (const [i, name] of (['on', 'off'] as const).entries()) {
      const dataDir = mkdtempSync(join(tmpdir(), `fw-bench-tape-${name}-`));
      const port = PORT + 1 + i;
      const child = new BenchChild(
        `fw (${COMPARE} ${name})`,
        new URL('./server.js', import.meta.url),
        [name, String(url), dataDir, String(port), COMPARE],
        PROFILE ? ['--cpu-prof', '--cpu-prof-dir', join(PROFILE, name)] : [],
      );
      await child.next('ready');
      sides.push({ name, child, port, dataDir, rounds: [] });
    }
    // Warm-up, not counted: the JIT, the store's first writes, the model client's connections.
    for (const side of sides) await round(side);
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) side.rounds.push(await round(side));
      process.stdout.write(`  round ${i + 1}/${ROUNDS}\r`);
    }
    const [on, off] = sides as [Side, Side];
    if (COMPARE === 'budgets') return await report(on, off, (await model.request({ type: 'requests' })).requests as number);
    const recorded = await on.child.request({ type: 'tape' });
    const unrecorded = await off.child.request({ type: 'tape' });
    if (recorded.status !== 'completed' || (recorded.steps as number) < 8)
      throw new Error(`the tape 'on' server did not record its runs: ${JSON.stringify(recorded)}`);
    const turns = (ROUNDS + 1) * CLIENTS * TURNS;
    if (recorded.completed !== turns) throw new Error(`the tape has ${recorded.completed} completed runs for ${turns} turns`);
    if (unrecorded.status !== null) throw new Error(`the tape 'off' server recorded: ${JSON.stringify(unrecorded)}`);
    const requests = (await model.request({ type: 'requests' })).requests as number;

    const paired = on.rounds.map((x, i) => (x / off.rounds[i]! - 1) * 100);
    const overall = (mean(on.rounds) / mean(off.rounds) - 1) * 100;
    const headers = ['tape', 'CPU per turn (µs, mean)', 'median round', 'min round', 'max round'];
    const rows = sides.map((s) => [
      s.name,
      fmt(mean(s.rounds)),
      fmt(median(s.rounds)),
      fmt(Math.min(...s.rounds)),
      fmt(Math.max(...s.rounds)),
    ]);
    console.log(`\n${textTable(headers, rows)}\n`);
    console.log(markdownTable(headers, rows));
    console.log(
      `\nrecording's cost: ${overall.toFixed(1)} % of a turn's server CPU (means); median of the ${ROUNDS} paired rounds ${median(paired).toFixed(1)} % (rounds: ${paired.map((p) => p.toFixed(1)).join(', ')})`,
    );
    console.log(
      `turns: ${fmt(turns)} per side, each a completed run on the tape; model requests: ${fmt(requests)}; a taped run has ${recorded.steps} steps; load at the end ${load()}`,
    );
  } finally {
    for (const side of sides) {
      await side.child.stop();
      rmSync(side.dataDir, { recursive: true, force: true });
    }
    await model.stop();
  }
}

/** `--compare budgets`: CPU per turn on and off, and the budget hooks' own time per model call. */
async function report(on: Side, off: Side, requests: number): Promise<void> {
  const spend = await on.child.request({ type: 'spend' });
  const turns = (ROUNDS + 1) * CLIENTS * TURNS;
  // Two model calls a turn (the tool calls, then the answer).
  if (spend.calls !== 2 * turns) throw new Error(`the governed server counted ${spend.calls} model calls for ${turns} turns`);
  const paired = on.rounds.map((x, i) => (x / off.rounds[i]! - 1) * 100);
  const overall = (mean(on.rounds) / mean(off.rounds) - 1) * 100;
  const headers = ['governance', 'CPU per turn (µs, mean)', 'median round', 'min round', 'max round'];
  const rows = [on, off].map((s) => [
    s.name,
    fmt(mean(s.rounds)),
    fmt(median(s.rounds)),
    fmt(Math.min(...s.rounds)),
    fmt(Math.max(...s.rounds)),
  ]);
  console.log(`\n${textTable(headers, rows)}\n`);
  console.log(markdownTable(headers, rows));
  const hooks = (await on.child.request({ type: 'hooks-cpu', runs: 5000 }, 'hooks-cpu', 120_000)).us as number;
  const cpuPerCall = mean(off.rounds) / 2;
  console.log(
    `\ngovernance's cost: ${overall.toFixed(1)} % of a turn's server CPU (means, admin plane included); median of the ${ROUNDS} paired rounds ${median(paired).toFixed(1)} %`,
  );
  console.log(
    `budget hooks alone: ${hooks.toFixed(2)} µs CPU per model call (10,000 synthetic calls of 40 parts on the idle server), ${((hooks / cpuPerCall) * 100).toFixed(3)} % of a model call's server CPU without governance (${fmt(cpuPerCall)} µs: half a turn)`,
  );
  console.log(
    `model calls counted: ${fmt(spend.calls as number)}, ${spend.costUsd} USD; model requests: ${fmt(requests)}; load at the end ${load()}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
