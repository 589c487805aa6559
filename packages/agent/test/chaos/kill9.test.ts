/**
 * Issue 25, chaos: kill -9 of an fw process under a load of chat turns and A2A tasks, on the
 * embedded SQLite store and on PostgreSQL (a server of the test's own). After a restart (which
 * settles what the killed process left in flight) the audit holds: every chat turn answered `done`
 * is stored exactly once, every task answered `completed` is stored completed and its run recorded
 * completed (not settled as interrupted). Requests cut by the kill got no acknowledgement, only a
 * dropped connection: nothing a client was told is lost.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, test } from 'node:test';
import { waitFor } from '@fw/testing';
import type { StoreOptions } from '@fw/store';
import { audit } from './audit.js';
import { a2aLoop, chatLoop, outcomes } from './load.js';
import { startPostgres, type PostgresServer } from './postgres-server.js';

const PORT = 20_432;
const dir = mkdtempSync(join(tmpdir(), 'fw-kill9-'));
let server: PostgresServer | undefined;
after(async () => {
  await server?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the child fw process; resolves with it and its base URL once it listens. */
async function spawnFw(env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [new URL('./fw-child.js', import.meta.url).pathname], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the fw child did not start within 20 s')), 20_000);
    child.once('exit', (code) => reject(new Error(`the fw child exited (${code}) before it listened`)));
    lines.on('line', (line) => {
      if (!line.startsWith('{"port"')) return;
      clearTimeout(timer);
      resolve((JSON.parse(line) as { port: number }).port);
    });
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

async function killUnderLoad(env: Record<string, string>, store: StoreOptions): Promise<string> {
  const first = await spawnFw(env);
  const out = outcomes();
  let load = true;
  const running = () => load;
  const clients = [
    ...Array.from({ length: 8 }, (_, i) => chatLoop(first.base, `chat${i}`, running, out)),
    ...Array.from({ length: 8 }, () => a2aLoop(first.base, running, out)),
  ];
  try {
    // Killed in the middle of the load, once it has acknowledged work of both kinds, right as an
    // acknowledgement arrives: what was confirmed last has had the least time to be written.
    const killed = new Promise<void>((resolve) => {
      out.acknowledged = () => {
        if (out.turns.length < 30 || out.tasks.length < 30) return;
        out.acknowledged = undefined;
        first.child.kill('SIGKILL');
        resolve();
      };
    });
    await Promise.race([killed, sleep(30_000).then(() => assert.fail('not enough work acknowledged within 30 s'))]);
    await new Promise<void>((resolve) =>
      first.child.exitCode !== null || first.child.signalCode !== null ? resolve() : first.child.once('exit', () => resolve()),
    );
  } finally {
    load = false;
    if (first.child.exitCode === null && first.child.signalCode === null) await kill9(first.child);
  }
  await Promise.all(clients);
  const second = await spawnFw(env);
  try {
    await waitFor('the restarted process ready', async () => (await fetch(`${second.base}/fw/ready`)).status === 200, 15_000);
    const result = await audit(store, out);
    assert.deepEqual(result.turns, [], 'every acknowledged chat turn stored exactly once');
    assert.deepEqual(result.tasks, [], 'every acknowledged task stored completed');
    assert.deepEqual(result.runs, [], 'the run of every acknowledged task recorded completed, not interrupted');
    for (const e of out.errors) assert.doesNotMatch(e, /127\.0\.0\.1|ECONNREFUSED|postgres:\/\//, `no address in a client's error: ${e}`);
  } finally {
    await kill9(second.child);
  }
  return `acknowledged ${out.turns.length} turns and ${out.tasks.length} tasks before the kill; ${out.unanswered.length} requests cut`;
}

test('kill -9 under load on the embedded SQLite store: every acknowledged turn and task is there after the restart', {
  timeout: 60_000,
}, async (t) => {
  const data = mkdtempSync(join(dir, 'sqlite-'));
  t.diagnostic(await killUnderLoad({ FW_CHILD_DATA_DIR: data }, { file: join(data, 'fw.db') }));
});

test('kill -9 under load on PostgreSQL: every acknowledged turn and task is there after the restart', { timeout: 60_000 }, async (t) => {
  server = await startPostgres(PORT);
  if (!server) return t.skip('no PostgreSQL binaries under /usr/lib/postgresql');
  t.diagnostic(await killUnderLoad({ FW_CHILD_POSTGRES_URL: server.url }, { postgresUrl: server.url }));
});
