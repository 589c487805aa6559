/**
 * Issue 25, chaos: PostgreSQL (a server of the test's own) stopped for ~5 s and started again under
 * a load of chat turns and A2A tasks. The process survives, `/fw/ready` is 503 within 5 s of the
 * stop and 200 again after the restart, and the audit holds: every chat turn answered `done` and
 * every A2A task answered `completed` is in the database exactly once; every other request got an
 * error (an error frame, a JSON-RPC error or a 503), none went unanswered.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import pg from 'pg';
import WebSocket from 'ws';
import { waitFor } from '@fw/testing';
import { Agent } from '../../dist/index.js';
import { ProbeRuntime, startApp, type TestApp } from '../helpers.js';
import { startPostgres, type PostgresServer } from './postgres-server.js';

@Agent({ name: 'keeper', description: 'echoes' })
class Keeper {}

const PORT = 20_431;
let server: PostgresServer | undefined;
before(async () => {
  server = await startPostgres(PORT);
});
after(async () => {
  await server?.destroy();
});

interface Frame {
  type: string;
  id?: string;
  code?: string;
  message?: string;
}

/** One chat client sending prompts one after the other until told to stop. */
async function chatLoop(app: TestApp, name: string, running: () => boolean, out: Outcomes): Promise<void> {
  const ws = new WebSocket(`${app.base.replace('http', 'ws')}/fw/agent/keeper`);
  const frames: Frame[] = [];
  let closed = false;
  ws.on('message', (d) => frames.push(JSON.parse(String(d)) as Frame));
  ws.on('close', () => (closed = true));
  ws.on('error', () => {});
  const session = await waitFor('the session frame', () => frames.find((f) => f.type === 'session')?.id, 10_000);
  for (let n = 0; running() && !closed; n++) {
    const text = `${name}-${n}`;
    const start = frames.length;
    ws.send(text);
    const answer = await waitFor(
      `an answer to ${text}`,
      () => frames.slice(start).find((f) => f.type === 'done' || f.type === 'error') ?? (closed ? null : undefined),
      20_000,
    );
    if (answer?.type === 'done') out.turns.push({ session, text });
    else if (answer?.type === 'error') out.errors.push(`chat ${answer.code}: ${answer.message}`);
    else out.unanswered.push(text);
    if (answer?.type !== 'done') await sleep(50); // refused: a client pauses before trying again
  }
  ws.close();
}

/** One A2A client sending messages (JSON-RPC SendMessage, blocking) until told to stop. */
async function a2aLoop(app: TestApp, running: () => boolean, out: Outcomes): Promise<void> {
  while (running()) {
    const text = `task-${randomUUID()}`;
    let res: Response;
    try {
      res = await fetch(`${app.base}/fw/agent/keeper/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } },
        }),
        signal: AbortSignal.timeout(20_000),
      });
    } catch {
      out.unanswered.push(text);
      continue;
    }
    const body = await res.text();
    if (res.status !== 200) {
      out.errors.push(`a2a ${res.status}: ${body}`);
      await sleep(50);
      continue;
    }
    const json = JSON.parse(body) as { result?: { task?: { id: string; status?: { state?: string } } }; error?: { message: string } };
    const task = json.result?.task;
    if (task?.status?.state === 'TASK_STATE_COMPLETED') out.tasks.push(task.id);
    else {
      out.errors.push(`a2a ${json.error ? `error ${json.error.message}` : `state ${task?.status?.state}`}`);
      await sleep(50);
    }
  }
}

interface Outcomes {
  turns: { session: string; text: string }[];
  tasks: string[];
  errors: string[];
  unanswered: string[];
}

async function ready(app: TestApp): Promise<number> {
  return (await fetch(`${app.base}/fw/ready`)).status;
}

test('PostgreSQL stopped ~5 s and restarted under chat and A2A load: no crash, readiness follows, every acknowledged record stored once', {
  timeout: 60_000,
}, async (t) => {
  if (!server) return t.skip('no PostgreSQL binaries under /usr/lib/postgresql');
  const db = server;
  const app = await startApp(
    (m) => m.mount(Keeper),
    {
      'fw.store.postgres-url': db.url,
      'fw.store.retry-budget': '1500ms',
      'fw.store.probe-interval': '250ms',
      'fw.store.probe-timeout': '1s',
      'fw.agent.prompts.per-minute': 100_000,
      'fw.agent.prompts.burst': 100_000,
      // Evicting a finished task deletes its row: the audit needs every acknowledged one kept.
      'fw.agent.tasks.max': 1_000_000,
    },
    [new ProbeRuntime()],
  );
  const out: Outcomes = { turns: [], tasks: [], errors: [], unanswered: [] };
  let load = true;
  const running = () => load;
  try {
    assert.equal(await ready(app), 200);
    const clients = [
      ...Array.from({ length: 8 }, (_, i) => chatLoop(app, `chat${i}`, running, out)),
      ...Array.from({ length: 8 }, () => a2aLoop(app, running, out)),
    ];
    await sleep(1500);
    const before = { turns: out.turns.length, tasks: out.tasks.length };
    assert.ok(before.turns > 0 && before.tasks > 0, 'the load is acknowledged while the store is up');

    await db.stop();
    const stopped = Date.now();
    await waitFor('/fw/ready 503 after the store went away', async () => (await ready(app)) === 503, 5000);
    const notReadyAfter = Date.now() - stopped;
    const report = (await (await fetch(`${app.base}/fw/ready`)).json()) as { checks: Record<string, { ready: boolean; detail?: string }> };
    assert.equal(report.checks.store?.ready, false);
    assert.doesNotMatch(JSON.stringify(report), /127\.0\.0\.1|postgres:\/\//, 'readiness names no address');
    await sleep(Math.max(0, 5000 - (Date.now() - stopped)));
    const errorsWhileDown = out.errors.length;
    await db.start();
    await waitFor('/fw/ready 200 after the store is back', async () => (await ready(app)) === 200, 15_000);
    const after = { turns: out.turns.length, tasks: out.tasks.length };
    await waitFor(
      'acknowledged work again after the recovery',
      () => out.turns.length > after.turns && out.tasks.length > after.tasks,
      15_000,
    );
    load = false;
    await Promise.all(clients);

    assert.ok(notReadyAfter <= 5000, `not ready ${notReadyAfter} ms after the stop`);
    assert.ok(errorsWhileDown > 0, 'work that could not be stored while the server was down was refused');
    assert.deepEqual(out.unanswered, [], 'every request got an answer');
    for (const e of out.errors) {
      assert.match(e, /store_unavailable|unavailable/, `a refusal says the store is unavailable: ${e}`);
      assert.doesNotMatch(e, /127\.0\.0\.1|ECONNREFUSED|postgres:\/\//, `no address in a client's error: ${e}`);
    }

    // The audit, straight from the database.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const messages = await client.query<{ session_id: string; content: string; n: string }>(
        "select session_id, content, count(*) as n from fw_agent_session_messages where role = 'user' group by session_id, content",
      );
      const stored = new Map(messages.rows.map((r) => [`${r.session_id}/${r.content}`, Number(r.n)]));
      const missing = out.turns.filter((t) => stored.get(`${t.session}/${t.text}`) !== 1);
      assert.deepEqual(missing, [], `every acknowledged chat turn stored exactly once (${out.turns.length} acknowledged)`);
      const answers = await client.query<{ n: string }>("select count(*) as n from fw_agent_session_messages where role = 'assistant'");
      assert.ok(Number(answers.rows[0]?.n) >= out.turns.length, 'every acknowledged answer stored');
      const tasks = await client.query<{ id: string; state: string }>('select id, state from fw_a2a_tasks');
      const states = new Map(tasks.rows.map((r) => [r.id, r.state]));
      const lost = out.tasks.filter((id) => states.get(id) !== 'completed');
      assert.deepEqual(lost, [], `every acknowledged task stored completed (${out.tasks.length} acknowledged)`);
    } finally {
      await client.end();
    }
    t.diagnostic(
      `acknowledged ${out.turns.length} turns and ${out.tasks.length} tasks, ${out.errors.length} refused; not ready after ${notReadyAfter} ms`,
    );
  } finally {
    load = false;
    await app.close();
  }
});
