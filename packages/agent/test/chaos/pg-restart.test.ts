/**
 * Issue 25, chaos: PostgreSQL (a server of the test's own) stopped for ~5 s and started again under
 * a load of chat turns and A2A tasks. The process survives, `/fw/ready` is 503 within 5 s of the
 * stop and 200 again after the restart, and the audit holds: every chat turn answered `done` and
 * every A2A task answered `completed` is in the database exactly once; every other request got an
 * error (an error frame, a JSON-RPC error or a 503), none went unanswered.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { waitFor } from '@fw/testing';
import { Agent } from '../../dist/index.js';
import { ProbeRuntime, startApp, type TestApp } from '../helpers.js';
import { a2aLoop, chatLoop, outcomes } from './load.js';
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
  const out = outcomes();
  let load = true;
  const running = () => load;
  try {
    assert.equal(await ready(app), 200);
    const clients = [
      ...Array.from({ length: 8 }, (_, i) => chatLoop(app.base, `chat${i}`, running, out)),
      ...Array.from({ length: 8 }, () => a2aLoop(app.base, running, out)),
    ];
    // However slow the machine: the load is acknowledged while the store is up.
    await waitFor('acknowledged turns and tasks before the stop', () => out.turns.length >= 10 && out.tasks.length >= 10, 20_000);

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
    assert.ok(
      out.errors.some((e) => /^a2a error /.test(e)) && out.errors.some((e) => /^chat store_unavailable: /.test(e)),
      'refusals of both kinds: A2A as JSON-RPC errors, chat as error frames',
    );
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
    const kinds = new Map<string, number>();
    for (const e of out.errors) kinds.set(e.slice(0, 60), (kinds.get(e.slice(0, 60)) ?? 0) + 1);
    t.diagnostic(`refusals: ${JSON.stringify(Object.fromEntries(kinds))}`);
    t.diagnostic(
      `acknowledged ${out.turns.length} turns and ${out.tasks.length} tasks, ${out.errors.length} refused; not ready after ${notReadyAfter} ms`,
    );
  } finally {
    load = false;
    await app.close();
  }
});
