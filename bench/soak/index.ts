/**
 * bench/soak: does the store stay bounded under a client that creates work as fast as it is
 * allowed? A real fw app with the agent module on an embedded SQLite data directory (every
 * retention and budget setting at its default) in a child process; an anonymous client in another
 * (bench/soak/client.ts: A2A tasks, AG-UI coordinator runs, chat sessions, 32 KB prompts). Every
 * `--sample` seconds the data directory's size (every file in it, as `du` would count them) is
 * read and the server is asked for its rows per table, what retention deleted, its longest delete
 * transaction and its longest event-loop stall. Prints the curve, then the growth before the
 * budget was reached and over the last half of the run, each extrapolated to 30 days, and a
 * Markdown table for docs/benchmarks.md. Not a test.
 *
 *   npm run bench:soak -- [--minutes 10] [--sample 10] [--clients 2] [--prompt-bytes 32768]
 *        [--turns 3] [--data-dir <dir>] [--keep]
 *
 * Store settings come from the environment (FW_STORE_BUDGET=…, FW_STORE_RETENTION_INTERVAL=…),
 * which the server child inherits. Bounded: the run stops after `--minutes`; the data directory (a
 * temporary one unless `--data-dir`) is removed at the end unless `--keep`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { arg } from '../common/args.js';
import { BenchChild, type BenchMessage } from '../common/child.js';
import { fmt, markdownTable, textTable } from '../common/table.js';

const MINUTES = Number(arg('minutes', '10'));
const SAMPLE_S = Number(arg('sample', '10'));
const CLIENTS = Number(arg('clients', '2'));
const PROMPT_BYTES = Number(arg('prompt-bytes', '32768'));
const TURNS = Number(arg('turns', '3'));
const KEEP = process.argv.includes('--keep');
const DIR = arg('data-dir', '') || mkdtempSync(join(tmpdir(), 'fw-soak-'));
const DAY_S = 86_400;

interface Stats extends BenchMessage {
  size: { bytes: number; usedBytes: number } | null;
  refusing: string | null;
  refusals: number;
  rows: Record<string, number>;
  pruned: Record<string, number>;
  passes: number;
  transactions: number;
  longestTransactionMs: number;
  longestReclaimStepMs: number;
  reclaimedBytes: number;
  stallMs: number;
  rss: number;
}

interface Counts {
  a2a: { accepted: number; refused: number; failed: number };
  agui: { accepted: number; refused: number; failed: number };
  chat: { accepted: number; refused: number; failed: number };
  bytesSent: number;
}

interface Sample {
  t: number;
  bytes: number;
  stats: Stats;
  counts: Counts;
}

async function dirBytes(dir: string): Promise<number> {
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) n += await dirBytes(p);
    else n += (await stat(p).catch(() => ({ size: 0 }))).size;
  }
  return n;
}

const MiB = (n: number): string => fmt(n / 1_048_576, 1);
const sum = (o: Record<string, number>): number => Object.values(o).reduce((a, b) => a + b, 0);
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** Least-squares slope of bytes over seconds. */
function slope(points: Sample[]): number {
  if (points.length < 2) return Number.NaN;
  const n = points.length;
  const mt = points.reduce((a, p) => a + p.t, 0) / n;
  const mb = points.reduce((a, p) => a + p.bytes, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.bytes - mb);
    den += (p.t - mt) ** 2;
  }
  return num / den;
}

const startLoad = load();
const startedAt = new Date();
console.log(
  `bench/soak ${startedAt.toISOString()}: ${MINUTES} min, a sample every ${SAMPLE_S} s, ${CLIENTS} loop(s) per protocol, ${PROMPT_BYTES}-byte prompts, ${TURNS} turns per chat session`,
);
console.log(`data directory ${DIR}; ${cpus().length} CPUs (${cpus()[0]?.model}), load ${startLoad}, Node ${process.version}`);
const store = Object.entries(process.env).filter(([k]) => k.startsWith('FW_STORE_'));
console.log(`store settings: ${store.length ? store.map(([k, v]) => `${k}=${v}`).join(' ') : 'all defaults'}`);

const server = new BenchChild('server', new URL('./server.js', import.meta.url), [DIR], []);
const { port } = await server.next('ready', 120_000);
const client = new BenchChild(
  'client',
  new URL('./client.js', import.meta.url),
  [String(port), String(CLIENTS), String(PROMPT_BYTES), String(TURNS)],
  [],
);
await client.next('ready');

const samples: Sample[] = [];
const t0 = performance.now();
const headers = [
  't (s)',
  'data dir MiB',
  'store MiB',
  'runs',
  'sessions',
  'messages',
  'tasks',
  'journal',
  'pruned',
  'refused',
  'accepted',
  'longest tx ms',
  'stall ms',
  'RSS MiB',
];
const row = (s: Sample): (string | number)[] => [
  Math.round(s.t),
  MiB(s.bytes),
  MiB(s.stats.size?.bytes ?? 0),
  fmt(s.stats.rows.fw_agent_runs ?? 0),
  fmt(s.stats.rows.fw_agent_sessions ?? 0),
  fmt(s.stats.rows.fw_agent_session_messages ?? 0),
  fmt(s.stats.rows.fw_a2a_tasks ?? 0),
  fmt(s.stats.rows.fw_agent_journal ?? 0),
  fmt(sum(s.stats.pruned)),
  fmt(s.counts.a2a.refused + s.counts.agui.refused + s.counts.chat.refused),
  fmt(s.counts.a2a.accepted + s.counts.agui.accepted + s.counts.chat.accepted),
  fmt(s.stats.longestTransactionMs, 1),
  fmt(s.stats.stallMs, 0),
  MiB(s.stats.rss),
];
console.log(headers.join(' | '));
try {
  const end = t0 + MINUTES * 60_000;
  for (let next = t0 + SAMPLE_S * 1000; ; next += SAMPLE_S * 1000) {
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(next, end) - performance.now())));
    const [bytes, stats, counts] = await Promise.all([
      dirBytes(DIR),
      server.request({ type: 'stats' }, 'stats', 60_000) as Promise<Stats>,
      client.request({ type: 'counts' }, 'counts').then((m) => m.counts as Counts),
    ]);
    const s: Sample = { t: (performance.now() - t0) / 1000, bytes, stats, counts };
    samples.push(s);
    console.log(row(s).join(' | '));
    if (performance.now() >= end) break;
  }
} finally {
  await client.request({ type: 'stop' }, 'stopped', 120_000).catch(() => undefined);
  await client.stop();
  await server.stop();
}

const last = samples[samples.length - 1]!;
const firstRefused = samples.findIndex(
  (s) => s.counts.a2a.refused + s.counts.agui.refused + s.counts.chat.refused > 0 || sum(s.stats.pruned) > 0,
);
const before = firstRefused > 0 ? samples.slice(0, firstRefused + 1) : samples;
const growthBefore = slope([{ t: 0, bytes: 0 } as Sample, ...before]);
const tail = samples.slice(Math.floor(samples.length / 2));
const growthTail = slope(tail);
const peak = Math.max(...samples.map((s) => s.bytes));
const budget = Number(process.env.FW_STORE_BUDGET ?? 536_870_912);
const perTable = Object.entries(last.stats.pruned)
  .filter(([, n]) => n > 0)
  .map(([t, n]) => `${t} ${fmt(n)}`)
  .join(', ');
const c = last.counts;

console.log(`\n${textTable(headers, samples.map(row))}`);
/** min–max of the data directory over the samples in [from, to) of the run's duration (fractions). */
const band = (from: number, to: number): string => {
  const v = samples.filter((x) => x.t >= from * last.t && x.t < to * last.t + 1e-9).map((x) => x.bytes);
  return v.length ? `${MiB(Math.min(...v))}–${MiB(Math.max(...v))}` : '–';
};
console.log(`
load ${startLoad} at the start, ${load()} at the end
peak data directory ${MiB(peak)} MiB (budget ${MiB(budget)} MiB); at the end ${MiB(last.bytes)} MiB
data directory per quarter of the run (MiB): ${band(0, 0.25)} | ${band(0.25, 0.5)} | ${band(0.5, 0.75)} | ${band(0.75, 1)}
growth before retention/the budget acted: ${MiB(growthBefore)} MiB/s → ${fmt((growthBefore * 30 * DAY_S) / 2 ** 30, 0)} GiB in 30 days unbounded
trend over the last half (${Math.round(tail[0]?.t ?? 0)}–${Math.round(last.t)} s, least squares over a sawtooth): ${fmt(growthTail / 1024, 2)} KiB/s; 30 days on: at most the budget, ${MiB(budget)} MiB (a flat band reads as ±noise here)
accepted: A2A ${fmt(c.a2a.accepted)}, AG-UI ${fmt(c.agui.accepted)}, chat turns ${fmt(c.chat.accepted)}; refused (storage_budget_exceeded): ${fmt(c.a2a.refused)} / ${fmt(c.agui.refused)} / ${fmt(c.chat.refused)}; failed ${fmt(c.a2a.failed + c.agui.failed + c.chat.failed)}; ${MiB(c.bytesSent)} MiB of prompts sent
retention: ${fmt(last.stats.passes)} passes, ${fmt(last.stats.transactions)} delete transactions, longest ${fmt(last.stats.longestTransactionMs, 1)} ms; deleted ${perTable || 'nothing'}; ${MiB(last.stats.reclaimedBytes)} MiB given back to the filesystem, longest vacuum step (1 MiB, or a checkpoint) ${fmt(last.stats.longestReclaimStepMs, 1)} ms
longest event-loop stall in any sample window: ${fmt(Math.max(...samples.map((s) => s.stats.stallMs)), 0)} ms
`);
// Every `--sample` seconds is too long for a doc: about twenty rows.
const every = Math.max(1, Math.round(samples.length / 20));
console.log(markdownTable(headers, samples.filter((_, i) => i % every === 0 || i === samples.length - 1).map(row)));
if (!KEEP && !arg('data-dir', '')) rmSync(DIR, { recursive: true, force: true });
