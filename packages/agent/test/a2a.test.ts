import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport, isLegacyAgentCard, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { Agent, OnPrompt, type AgentContext } from '../dist/index.js';
import { ProbeRuntime, startApp, type TestApp } from './helpers.js';
import { waitFor } from '@fw/testing';
import { FwError, MemoryLogger } from '@fw/runtime';

@Agent({ name: 'echo', description: 'Echoes through the model', headless: true })
class EchoAgent {}

@Agent({ name: 'broken', headless: true })
class BrokenAgent {
  @OnPrompt()
  prompt(_m: string, _ctx: AgentContext): string {
    throw new Error('tool chain failed: boom');
  }
}

@Agent({ name: 'polite', headless: true })
class PoliteAgent {
  @OnPrompt()
  prompt(_m: string, _ctx: AgentContext): string {
    throw new FwError('refused', 'I cannot help with that', 422);
  }
}

const probe = new ProbeRuntime();
const logger = new MemoryLogger();
let app: TestApp;

before(async () => {
  app = await startApp(
    (m) => {
      m.mount(EchoAgent);
      m.mount(BrokenAgent);
      m.mount(PoliteAgent);
    },
    { logger },
    [probe],
  );
});
after(() => app.close());

function userMessage(text: string): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  };
}
const send = (text: string) => ({ tenant: '', message: userMessage(text), configuration: undefined, metadata: undefined });
const statusText = (t: Task) => (t.status?.message?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

test('A2A 1.0 with the official client: card, send, stream, get, list, cancel (abort reaches the runtime)', async () => {
  const client = await new ClientFactory().createFromUrl(`${app.base}/fw/agent/echo/a2a`);
  const card = await client.getAgentCard();
  assert.equal(card.name, 'echo');
  assert.equal(card.capabilities?.streaming, true);
  assert.deepEqual(
    card.supportedInterfaces.map((i) => i.protocolVersion),
    ['1.0', '0.3'],
  );
  assert.equal(card.supportedInterfaces[0]!.url, `${app.base}/fw/agent/echo/a2a`);

  const sent = (await client.sendMessage(send('hello'))) as Task;
  assert.equal(sent.status?.state, TaskState.TASK_STATE_COMPLETED);
  assert.equal(statusText(sent), 'echo: hello');

  const kinds: string[] = [];
  let streamedText = '';
  let taskId = '';
  for await (const ev of client.sendMessageStream(send('streamed'))) {
    kinds.push(ev.payload?.$case ?? '?');
    if (ev.payload?.$case === 'task') taskId = ev.payload.value.id;
    if (ev.payload?.$case === 'artifactUpdate')
      streamedText += ev.payload.value.artifact?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('') ?? '';
  }
  assert.equal(kinds[0], 'task');
  assert.ok(kinds.includes('artifactUpdate'));
  assert.equal(kinds[kinds.length - 1], 'statusUpdate');
  assert.equal(streamedText, 'echo: streamed');

  const got = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
  assert.equal(got.status?.state, TaskState.TASK_STATE_COMPLETED);

  // An anonymous client lists the tasks of a context it names (its capability; see security/).
  const listed = await client.listTasks({
    tenant: '',
    contextId: got.contextId,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: 10,
    pageToken: '',
    historyLength: undefined,
    statusTimestampAfter: undefined,
    includeArtifacts: false,
  });
  assert.ok(listed.tasks.some((t) => t.id === taskId));

  // A long-running task: cancel it while it streams.
  const aborted = probe.aborted();
  const abortsBefore = probe.aborts;
  const stream = client.sendMessageStream(send('slow please'));
  let slowId = '';
  let finalState: TaskState | undefined;
  for await (const ev of stream) {
    if (ev.payload?.$case === 'task') slowId = ev.payload.value.id;
    if (ev.payload?.$case === 'artifactUpdate' && slowId) {
      const canceled = await client.cancelTask({ tenant: '', id: slowId, metadata: undefined });
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
    }
    if (ev.payload?.$case === 'statusUpdate') finalState = ev.payload.value.status?.state;
  }
  await aborted;
  assert.equal(probe.aborts, abortsBefore + 1);
  assert.equal(finalState, TaskState.TASK_STATE_CANCELED);
  assert.equal((await client.getTask({ tenant: '', id: slowId, historyLength: undefined })).status?.state, TaskState.TASK_STATE_CANCELED);

  const transitions = app.events
    .filter((e) => e.type === 'TaskStateChanged' && e.taskId === slowId)
    .map((e) => e.type === 'TaskStateChanged' && `${e.oldState}->${e.newState}`);
  assert.deepEqual(transitions, ['null->submitted', 'submitted->working', 'working->canceled']);
});

test('A2A 0.3 without the version header: legacy card, message/send, message/stream, tasks/get, tasks/cancel', async () => {
  const seen: { method: string; version: string | null }[] = [];
  const spy: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method: string }) : { method: '' };
    seen.push({ method: body.method, version: headers.get('a2a-version') });
    return fetch(input, init);
  };
  const raw = await (await fetch(`${app.base}/fw/agent/echo/a2a/.well-known/agent-card.json`)).json();
  assert.equal(isLegacyAgentCard(raw), true);
  assert.equal((raw as { protocolVersion: string }).protocolVersion, '0.3.0');
  const card = parseLegacyAgentCard(raw);
  assert.equal(card.name, 'echo');
  const t = new LegacyJsonRpcTransport({ endpoint: (raw as { url: string }).url, fetchImpl: spy });

  const sent = (await t.sendMessage(send('old'))) as Task;
  assert.equal(sent.status?.state, TaskState.TASK_STATE_COMPLETED);
  assert.equal(statusText(sent), 'echo: old');

  let streamed = '';
  for await (const ev of t.sendMessageStream(send('old stream'))) {
    if (ev.payload?.$case === 'artifactUpdate')
      streamed += ev.payload.value.artifact?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
  }
  assert.equal(streamed, 'echo: old stream');
  assert.equal((await t.getTask({ tenant: '', id: sent.id, historyLength: undefined })).id, sent.id);

  const aborted = probe.aborted();
  let slowId = '';
  let final: TaskState | undefined;
  let cancelled = false;
  for await (const ev of t.sendMessageStream(send('slow old'))) {
    if (ev.payload?.$case === 'task') slowId = ev.payload.value.id;
    if (ev.payload?.$case === 'statusUpdate') final = ev.payload.value.status?.state;
    if (ev.payload?.$case === 'artifactUpdate' && slowId && !cancelled) {
      cancelled = true;
      const c = await t.cancelTask({ tenant: '', id: slowId, metadata: undefined });
      assert.equal(c.status?.state, TaskState.TASK_STATE_CANCELED);
    }
  }
  await aborted;
  assert.equal(final, TaskState.TASK_STATE_CANCELED);
  assert.deepEqual([...new Set(seen.map((s) => s.method))].sort(), ['message/send', 'message/stream', 'tasks/cancel', 'tasks/get']);
  assert.ok(seen.every((s) => s.version === null));
});

async function rpc(
  body: string,
  headers: Record<string, string> = {},
): Promise<{ error?: { code: number; message: string }; result?: unknown }> {
  const res = await fetch(`${app.base}/fw/agent/echo/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return (await res.json()) as { error?: { code: number; message: string } };
}

test('malformed JSON-RPC gets the right codes', async () => {
  const v1 = { 'A2A-Version': '1.0' };
  assert.equal((await rpc('{not json', v1)).error?.code, -32700);
  assert.equal((await rpc('[]', v1)).error?.code, -32600);
  assert.equal((await rpc(JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'GetTask' }), v1)).error?.code, -32600);
  assert.equal((await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'Nope', params: {} }), v1)).error?.code, -32601);
  // 1.0 names without the header are 0.3 requests, where they do not exist.
  assert.equal((await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }))).error?.code, -32601);
  assert.equal((await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: [1] }), v1)).error?.code, -32602);
  assert.equal((await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }), v1)).error?.code, -32602);
  assert.equal((await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nope' } }), v1)).error?.code, -32001);
  assert.equal((await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'nope' } }))).error?.code, -32001);
  const finished = await rpc(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'x' }] } },
    }),
  );
  const done = finished.result as { id: string; status: { state: string } };
  assert.equal(done.status.state, 'completed');
  assert.equal(
    (await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: done.id } }), v1)).error?.code,
    -32002,
  );
  assert.equal((await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/cancel', params: { id: done.id } }))).error?.code, -32002);
  assert.equal(
    (await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: {} }), { 'A2A-Version': '9.9' })).error?.code,
    -32009,
  );
});

test('a runtime error fails the task with a logged reference, not its message; the admin cancel path refuses finished tasks', async () => {
  const client = await new ClientFactory().createFromUrl(`${app.base}/fw/agent/broken/a2a`);
  const task = (await client.sendMessage(send('hi'))) as Task;
  assert.equal(task.status?.state, TaskState.TASK_STATE_FAILED);
  // A plain Error can carry addresses and paths: the client reads a reference, the log the cause.
  const ref = /^internal error \(ref ([0-9a-f]{12})\)/.exec(statusText(task))?.[1];
  assert.ok(ref, statusText(task));
  const line = logger.entries.find((e) => e.fields.ref === ref);
  assert.equal((line?.fields.error as { message?: string } | undefined)?.message, 'tool chain failed: boom');
  const echo = await new ClientFactory().createFromUrl(`${app.base}/fw/agent/echo/a2a`);
  const exploded = (await echo.sendMessage(send('explode'))) as Task;
  assert.equal(exploded.status?.state, TaskState.TASK_STATE_FAILED);
  assert.match(statusText(exploded), /^internal error \(ref [0-9a-f]{12}\)/);
  assert.ok(!statusText(exploded).includes('exploded'));
  // An FwError is thrown on purpose: its message is for the client.
  const polite = await new ClientFactory().createFromUrl(`${app.base}/fw/agent/polite/a2a`);
  const refused = (await polite.sendMessage(send('hi'))) as Task;
  assert.equal(statusText(refused), 'I cannot help with that');

  const view = app.module.view;
  assert.equal(view.task(task.id)?.state, 'failed');
  assert.equal(view.task(task.id)?.agentName, 'broken');
  await assert.rejects(
    view.cancelTask(task.id),
    (e: { code?: string; status?: number }) => e.code === 'task_not_cancelable' && e.status === 409,
  );
  await assert.rejects(view.cancelTask('missing'), (e: { code?: string }) => e.code === 'not_found');
});

test('admin cancel is the protocol cancel: aborts the runtime and the task ends canceled', async () => {
  const client = await new ClientFactory().createFromUrl(`${app.base}/fw/agent/echo/a2a`);
  const aborted = probe.aborted();
  const it = client.sendMessageStream(send('slow admin'))[Symbol.asyncIterator]();
  const first = await it.next();
  assert.equal(first.value?.payload?.$case, 'task');
  const id = (first.value!.payload as { value: Task }).value.id;
  await waitFor("app.module.view.task(id)?.state === 'working'", () => app.module.view.task(id)?.state === 'working');
  const info = await app.module.view.cancelTask(id, 'stopped by the operator');
  assert.equal(info.state, 'canceled');
  assert.equal(info.message, 'stopped by the operator');
  await aborted;
  for (let r = await it.next(); !r.done; r = await it.next()) {
    /* drain */
  }
  assert.equal(app.module.view.task(id)?.state, 'canceled');
});
