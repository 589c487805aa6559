/**
 * Issue 16, acceptance 1: nothing an agent did is forgotten on restart. A child process runs an
 * app with agents and the admin plane on a store (the embedded SQLite default in a data directory,
 * and PostgreSQL on 127.0.0.1:5432 in a database made for the run); the test talks to it with the
 * official A2A SDK client, a chat WebSocket and the admin REST API, stops it (SIGTERM: graceful;
 * SIGKILL: a crash), starts it again on the same store and checks what is still there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { Role, TaskState, type Message, type SendMessageRequest, type Task } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { createTestDatabase } from '@fw/testing';

const AUDITED_TARGET = '/fw/restart/audited';
const FIXTURE = fileURLToPath(new URL('./fixtures/restart-app.js', import.meta.url));

interface App {
  child: ChildProcess;
  base: string;
  recovered: { tasks: string[]; runs: string[]; sessions: string[] };
}

async function startApp(config: Record<string, unknown>): Promise<App> {
  const child = spawn(process.execPath, [FIXTURE], {
    env: { ...process.env, FW_RESTART_CONFIG: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const ready = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the app did not start: ${out}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += String(d);
      const line = /READY (\d+) (.*)\n/.exec(out);
      if (line) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the app exited with ${code}: ${out}`));
    });
  });
  const [, port, recovered] = /READY (\d+) (.*)\n/.exec(ready)!;
  return { child, base: `http://127.0.0.1:${port}`, recovered: JSON.parse(recovered!) as App['recovered'] };
}

async function stop(app: App, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  const exited = once(app.child, 'exit');
  app.child.kill(signal);
  await exited;
}

function send(text: string, contextId = ''): SendMessageRequest {
  const message: Message = {
    messageId: randomUUID(),
    contextId,
    taskId: '',
    role: Role.ROLE_USER,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  };
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

const text = (t: Task | undefined): string =>
  t?.status?.message?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('') ?? '';

/** A chat connection to an agent: resolves its `session` frame; `ask` sends a prompt and resolves the answer. */
async function chat(
  base: string,
  agent: string,
  session?: string,
): Promise<{
  frame: { id: string; resumed: boolean; history: { role: string; content: string }[] };
  ask(t: string): Promise<string>;
  close(): void;
}> {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/fw/agent/${agent}${session ? `?session=${session}` : ''}`);
  const frames: { type: string; [k: string]: unknown }[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (d) => {
    frames.push(JSON.parse(String(d)) as { type: string });
    for (const w of waiters.splice(0)) w();
  });
  const next = async (type: string, from: number): Promise<{ type: string; [k: string]: unknown }> => {
    for (let i = 0; i < 1000; i++) {
      const f = frames.slice(from).find((x) => x.type === type || x.type === 'error');
      if (f) return f;
      await new Promise<void>((r) => waiters.push(r));
    }
    throw new Error(`no ${type} frame`);
  };
  const frame = (await next('session', 0)) as unknown as { id: string; resumed: boolean; history: { role: string; content: string }[] };
  return {
    frame,
    ask: async (t) => {
      const from = frames.length;
      ws.send(t);
      const done = await next('done', from);
      assert.equal(done.type, 'done', JSON.stringify(done));
      return String(done.text);
    },
    close: () => ws.close(),
  };
}

async function api<T>(base: string, path: string): Promise<T> {
  const res = await fetch(`${base}/api/admin${path}`);
  assert.equal(res.status, 200, `${path}: ${res.status}`);
  return (await res.json()) as T;
}

async function scenario(config: Record<string, unknown>, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  // --- before ---------------------------------------------------------------------------------
  const first = await startApp(config);
  let echoTask: Task;
  let leadTask: Task;
  let slowId = '';
  let sessionId: string;
  try {
    const echo: Client = await new ClientFactory().createFromUrl(`${first.base}/fw/agent/echo/a2a`);
    echoTask = (await echo.sendMessage(send('hello'))) as Task;
    assert.equal(echoTask.status?.state, TaskState.TASK_STATE_COMPLETED);
    const lead: Client = await new ClientFactory().createFromUrl(`${first.base}/fw/agent/lead/a2a`);
    leadTask = (await lead.sendMessage(send('plan'))) as Task;
    assert.equal(text(leadTask), 'echo(1): plan');

    const c = await chat(first.base, 'echo');
    sessionId = c.frame.id;
    assert.equal(await c.ask('hi there'), 'echo(1): hi there');

    // In flight when the process stops: a streaming task that has started answering.
    const stream = echo.sendMessageStream(send('slow please'));
    for await (const ev of stream) {
      if (ev.payload?.$case === 'task') slowId = ev.payload.value.id;
      if (ev.payload?.$case === 'artifactUpdate') break;
    }
    assert.ok(slowId);
    assert.equal((await api<{ state: string }>(first.base, `/tasks/${slowId}`)).state, 'working');
    c.close();

    // An admin write: audited (allowed, then failed: there is no such broadcaster) before the stop.
    const write = await fetch(`${first.base}/api/admin/broadcasters/broadcast`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ broadcasterId: AUDITED_TARGET, message: 'audited' }),
    });
    assert.equal(write.status, 404);
  } finally {
    await stop(first, signal);
  }

  // --- after ----------------------------------------------------------------------------------
  const second = await startApp(config);
  try {
    if (signal === 'SIGKILL') {
      assert.deepEqual(second.recovered.tasks, [slowId], 'the crashed process left exactly the slow task in flight');
      assert.equal(second.recovered.runs.length, 1);
    } else {
      assert.deepEqual(second.recovered, { tasks: [], runs: [], sessions: [] }, 'a graceful stop leaves nothing to recover');
    }
    const echo: Client = await new ClientFactory().createFromUrl(`${second.base}/fw/agent/echo/a2a`);
    const before = await echo.getTask({ tenant: '', id: echoTask.id, historyLength: undefined });
    assert.equal(before.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(text(before), 'echo(1): hello');
    assert.ok(
      before.history.some((m) => m.parts.some((p) => p.content?.$case === 'text' && p.content.value === 'hello')),
      'the history survives',
    );
    assert.ok(before.artifacts.length > 0, 'the artifacts survive');

    const slow = await echo.getTask({ tenant: '', id: slowId, historyLength: undefined });
    assert.equal(slow.status?.state, TaskState.TASK_STATE_FAILED, 'never left working');
    assert.match(text(slow), signal === 'SIGKILL' ? /interrupted: the server stopped/ : /the framework is closing/);

    // The admin plane's Tasks view lists the tasks from before.
    const tasks = await api<{ id: string; state: string }[]>(second.base, '/tasks');
    for (const id of [echoTask.id, leadTask.id, slowId])
      assert.ok(
        tasks.some((t) => t.id === id),
        `admin lists ${id}`,
      );
    assert.equal(tasks.find((t) => t.id === slowId)?.state, 'failed');

    // The journal: the coordination from before, and (after a crash) the interruption.
    const journal = await api<{ kind: string; agent: string; coordinator: string }[]>(second.base, '/journal?agent=lead');
    assert.deepEqual(
      journal.filter((e) => e.coordinator === 'lead').map((e) => e.kind),
      ['dispatch', 'completion'],
    );
    const interrupted = await api<{ kind: string; ref?: string; protocol?: string }[]>(second.base, '/journal?kind=interrupted');
    assert.deepEqual(
      interrupted.map((e) => [e.ref, e.protocol]),
      signal === 'SIGKILL' ? [[slowId, 'a2a']] : [],
    );

    // The chat session, with its history: the reconnecting client continues the conversation.
    const c = await chat(second.base, 'echo', sessionId);
    assert.equal(c.frame.resumed, true);
    assert.equal(c.frame.id, sessionId);
    assert.deepEqual(c.frame.history, [
      { role: 'user', content: 'hi there' },
      { role: 'assistant', content: 'echo(1): hi there' },
    ]);
    assert.equal(await c.ask('and now?'), 'echo(2): and now?', 'the earlier turn reached the runtime');
    const sessions = await api<{ id: string; messageCount: number }[]>(second.base, '/agents/echo/sessions');
    assert.equal(sessions.find((s) => s.id === sessionId)?.messageCount, 2);
    c.close();

    // The audit log from before the restart: in PostgreSQL when the store is there, else in the file.
    const session = await api<{ audit: { sink: string; available: boolean } }>(second.base, '/session');
    assert.match(session.audit.sink, config['fw.store.postgres-url'] ? /^store postgres / : /^file .*audit\.jsonl$/);
    assert.equal(session.audit.available, true);
    const audit = await api<{ action: string; target: string; outcome: string }[]>(second.base, `/audit?action=broadcast`);
    assert.deepEqual(
      audit.filter((e) => e.target === AUDITED_TARGET).map((e) => e.outcome),
      ['failed', 'allowed'],
    );
  } finally {
    await stop(second, 'SIGTERM');
  }
}

for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
  const mode = signal === 'SIGTERM' ? 'graceful restart' : 'kill -9';
  test(`${mode} on the embedded store: tasks, admin Tasks view, journal, sessions and the audit log are there; in-flight work is interrupted`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-restart-'));
    try {
      await scenario({ 'fw.data-dir': join(dir, 'data') }, signal);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test(`${mode} on PostgreSQL: tasks, admin Tasks view, journal, sessions and the audit log are there; in-flight work is interrupted`, async () => {
    const db = await createTestDatabase('fw_restart');
    try {
      await scenario({ 'fw.store.postgres-url': db.url }, signal);
    } finally {
      await db.drop();
    }
  });
}
