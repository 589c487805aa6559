/**
 * bench/durability: what acknowledging only durable state costs (issue 25). Chat turns per second
 * (WebSocket clients, one prompt after the other, `done` counted) and A2A tasks per second
 * (JSON-RPC SendMessage, blocking, `completed` counted) against fw on the embedded SQLite store
 * and on PostgreSQL (a database made for the run on 127.0.0.1:5432, dropped afterwards). With
 * `--baseline <dir>` (a checkout of an older commit, built) the same load also runs against that
 * build in the same run: fire-and-forget writes before, acknowledge-after-durability with group
 * commit now. The model answers at once (an echo), so the store's share is as large as it gets.
 *
 *   npm run bench:durability -- [--baseline /tmp/fw-baseline] [--clients 16] [--seconds 10]
 *        [--backends sqlite,postgres] [--postgres-url postgres://postgres@127.0.0.1:5432/test]
 *
 * The server runs in a child process; the load comes from this one. Every phase is bounded by
 * `--seconds`; a request gets 30 s at most.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import WebSocket from 'ws';
import { arg } from '../common/args.js';
import { BenchChild } from '../common/child.js';
import { fmt, markdownTable, ratio, textTable } from '../common/table.js';

const CLIENTS = Number(arg('clients', '16'));
const SECONDS = Number(arg('seconds', '10'));
const BACKENDS = arg('backends', 'sqlite,postgres').split(',');
const BASELINE = arg('baseline', '');
const PG_URL = arg('postgres-url', process.env.FW_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test');

/** Chat clients, each sending its next prompt when the last one is answered; `done` frames per second. */
async function chatTurns(base: string): Promise<{ rate: number; errors: number }> {
  const until = Date.now() + SECONDS * 1000;
  let done = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const ws = new WebSocket(`${base.replace('http', 'ws')}/fw/agent/keeper`);
      let answered: ((ok: boolean) => void) | undefined;
      ws.on('message', (d) => {
        const f = JSON.parse(String(d)) as { type: string };
        if (f.type === 'done' || f.type === 'error') answered?.(f.type === 'done');
      });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      for (let n = 0; Date.now() < until; n++) {
        const ok = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), 30_000);
          answered = (v) => {
            clearTimeout(timer);
            resolve(v);
          };
          ws.send(`turn ${n}`);
        });
        if (ok) done++;
        else errors++;
      }
      ws.close();
    }),
  );
  return { rate: done / SECONDS, errors };
}

/** A2A clients, each sending its next message when the last task is answered; completed tasks per second. */
async function a2aTasks(base: string): Promise<{ rate: number; errors: number }> {
  const until = Date.now() + SECONDS * 1000;
  let completed = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < until) {
        const res = await fetch(`${base}/fw/agent/keeper/a2a`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'SendMessage',
            params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'task' }] } },
          }),
          signal: AbortSignal.timeout(30_000),
        }).catch(() => undefined);
        const body = res ? ((await res.json().catch(() => ({}))) as { result?: { task?: { status?: { state?: string } } } }) : {};
        if (body.result?.task?.status?.state === 'TASK_STATE_COMPLETED') completed++;
        else errors++;
      }
    }),
  );
  return { rate: completed / SECONDS, errors };
}

interface Row {
  backend: string;
  build: string;
  turns: number;
  tasks: number;
  errors: number;
}

async function measure(backend: string, build: string, root: string | undefined): Promise<Row> {
  const env: Record<string, string> = {};
  let cleanup = async () => {};
  if (backend === 'postgres') {
    const name = `fw_bench_durability_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    env.FW_BENCH_POSTGRES_URL = url.toString();
    cleanup = async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    };
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'fw-bench-durability-'));
    env.FW_BENCH_DATA_DIR = dir;
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }
  if (root) env.FW_BENCH_ROOT = root;
  Object.assign(process.env, env);
  const server = new BenchChild(`fw (${build}, ${backend})`, new URL('./server.js', import.meta.url), [], []);
  for (const k of Object.keys(env)) delete process.env[k];
  try {
    const { port } = (await server.next('ready', 60_000)) as unknown as { port: number };
    const base = `http://127.0.0.1:${port}`;
    const chat = await chatTurns(base);
    const a2a = await a2aTasks(base);
    return { backend, build, turns: chat.rate, tasks: a2a.rate, errors: chat.errors + a2a.errors };
  } finally {
    await server.stop();
    await cleanup();
  }
}

console.log(
  `bench/durability: ${CLIENTS} clients, ${SECONDS} s per phase; ${cpus().length} CPUs (${cpus()[0]?.model}), load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const rows: Row[] = [];
for (const backend of BACKENDS) {
  if (BASELINE) rows.push(await measure(backend, 'fire-and-forget (baseline)', BASELINE));
  rows.push(await measure(backend, 'ack after durability', undefined));
}
const headers = ['store', 'build', 'chat turns/s', 'A2A tasks/s', 'errors', 'turns vs baseline', 'tasks vs baseline'];
const table = rows.map((r) => {
  const base = rows.find((b) => b.backend === r.backend && b.build.startsWith('fire'));
  return [
    r.backend,
    r.build,
    fmt(r.turns),
    fmt(r.tasks),
    r.errors,
    base ? ratio(r.turns, base.turns) : '–',
    base ? ratio(r.tasks, base.tasks) : '–',
  ];
});
console.log(`\n${textTable(headers, table)}\n\n${markdownTable(headers, table)}`);
console.log(
  `load at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
