/**
 * Issue 16 item 4: the A2A gaps, one test each (each failed before the fix). The official
 * @a2a-js/sdk client where it applies, raw JSON-RPC where the wire itself is the point.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { Agent, AgentTool, type AiRequest, type ModelProvider, type AiStreamPart } from '../dist/index.js';
import { ProbeRuntime, startApp, type TestApp } from './helpers.js';

@Agent({ name: 'talker', description: 'Echoes through the model', headless: true })
class Talker {}

@Agent({ name: 'looper', description: 'Has a tool the model keeps calling', headless: true })
class Looper {
  @AgentTool({ description: 'Never enough' })
  again(): string {
    return 'more';
  }
}

/** The probe, except that for the looper's prompt it always calls the tool again. */
class Runtime extends ProbeRuntime {
  override async *stream(request: AiRequest, signal: AbortSignal): AsyncIterable<AiStreamPart> {
    if (request.tools?.some((t) => t.name === 'again')) {
      yield { type: 'tool-call', toolCallId: randomUUID(), toolName: 'again', input: {} };
      return;
    }
    yield* super.stream(request, signal);
  }
}

const probe = new Runtime();
let app: TestApp;
let client: Client;
before(async () => {
  app = await startApp((m) => [Talker, Looper].forEach((c) => m.mount(c)), { 'fw.agent.max-tool-steps': 2 }, [probe as ModelProvider]);
  client = await new ClientFactory().createFromUrl(`${app.base}/fw/agent/talker/a2a`);
});
after(() => app.close());

function message(text: string, contextId = ''): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId: '',
    role: Role.ROLE_USER,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  };
}
const send = (text: string, contextId = '') => ({
  tenant: '',
  message: message(text, contextId),
  configuration: undefined,
  metadata: undefined,
});
const statusText = (t: Task) => (t.status?.message?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

async function rpc(
  agent: string,
  method: string,
  params: unknown,
  version = '1.0',
): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(`${app.base}/fw/agent/${agent}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(version ? { 'a2a-version': version } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

test('contextId carries the conversation: the second message reaches the runtime with the first (official client)', async () => {
  const first = (await client.sendMessage(send('my name is Ada'))) as Task;
  assert.equal(first.status?.state, TaskState.TASK_STATE_COMPLETED);
  const before = probe.requests.length;
  const second = (await client.sendMessage(send('what is my name?', first.contextId))) as Task;
  assert.equal(second.contextId, first.contextId);
  assert.notEqual(second.id, first.id);
  const request = probe.requests.slice(before).at(-1)!;
  assert.deepEqual(
    request.messages.map((m) => [m.role, m.content]),
    [
      ['user', 'my name is Ada'],
      ['assistant', 'echo: my name is Ada'],
      ['user', 'what is my name?'],
    ],
  );
  // Another context does not see it.
  const other = probe.requests.length;
  await client.sendMessage(send('hello'));
  assert.deepEqual(
    probe.requests
      .slice(other)
      .at(-1)!
      .messages.map((m) => m.content),
    ['hello'],
  );
});

test('streaming methods keep the A2A error codes: SubscribeToTask of an unknown task is -32001, of a finished one -32004', async () => {
  const unknown = await rpc('talker', 'SubscribeToTask', { id: 'no-such-task' });
  assert.equal(JSON.parse(unknown.text).error.code, -32001);
  const done = (await client.sendMessage(send('done'))) as Task;
  const finished = await rpc('talker', 'SubscribeToTask', { id: done.id });
  assert.equal(JSON.parse(finished.text).error.code, -32004);
  // 0.3: the same codes, without the 1.0 error details.
  const legacy = await rpc('talker', 'tasks/resubscribe', { id: 'no-such-task' }, '');
  assert.deepEqual(JSON.parse(legacy.text).error.code, -32001);
  // The official client sees the typed error.
  await assert.rejects(
    async () => {
      for await (const _ of client.resubscribeTask({ tenant: '', id: 'no-such-task' })) {
        /* nothing */
      }
    },
    (err: Error) => err.name === 'TaskNotFoundError' || /not found/i.test(err.message),
  );
});

test('ListTasks: statusTimestampAfter, includeArtifacts and historyLength are applied (official client)', async () => {
  const ctx = randomUUID();
  const a = (await client.sendMessage(send('first', ctx))) as Task;
  const cut = new Date().toISOString();
  await new Promise((r) => setTimeout(r, 5));
  const b = (await client.sendMessage(send('second', ctx))) as Task;
  const all = await client.listTasks({
    tenant: '',
    contextId: ctx,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageToken: '',
    statusTimestampAfter: undefined,
  });
  assert.deepEqual(
    all.tasks.map((t) => t.id),
    [b.id, a.id],
  );
  assert.ok(
    all.tasks.every((t) => t.artifacts.length === 0),
    'artifacts only on request',
  );
  const after = await client.listTasks({
    tenant: '',
    contextId: ctx,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageToken: '',
    statusTimestampAfter: cut,
  });
  assert.deepEqual(
    after.tasks.map((t) => t.id),
    [b.id],
  );
  const full = await client.listTasks({
    tenant: '',
    contextId: ctx,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageToken: '',
    statusTimestampAfter: undefined,
    includeArtifacts: true,
    historyLength: 0,
  });
  assert.ok(
    full.tasks.every((t) => t.artifacts.length === 1),
    'artifacts with includeArtifacts',
  );
  assert.ok(
    full.tasks.every((t) => t.history.length === 0),
    'historyLength 0: no history',
  );
  // Pages: the token of one page leads to the next.
  const page1 = await client.listTasks({
    tenant: '',
    contextId: ctx,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageToken: '',
    statusTimestampAfter: undefined,
    pageSize: 1,
  });
  assert.ok(page1.nextPageToken);
  const page2 = await client.listTasks({
    tenant: '',
    contextId: ctx,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageToken: page1.nextPageToken,
    statusTimestampAfter: undefined,
    pageSize: 1,
  });
  assert.deepEqual(
    [...page1.tasks, ...page2.tasks].map((t) => t.id),
    [b.id, a.id],
  );
});

test('ListTasks: a pageToken the server did not issue is InvalidParams (-32602), never the first page again', async () => {
  for (const pageToken of ['garbage', '5', Buffer.from('fw-tasks:x').toString('base64url')]) {
    const res = await rpc('talker', 'ListTasks', { pageToken });
    assert.equal(JSON.parse(res.text).error?.code, -32602, pageToken);
  }
});

test('the last artifact chunk carries lastChunk: true, and only it', async () => {
  const chunks: boolean[] = [];
  let text = '';
  for await (const ev of client.sendMessageStream(send('chunks please'))) {
    if (ev.payload?.$case === 'artifactUpdate') {
      chunks.push(ev.payload.value.lastChunk);
      text += ev.payload.value.artifact?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    }
  }
  assert.equal(text, 'echo: chunks please');
  assert.deepEqual(chunks, [false, true]);
});

test('an empty prompt is InvalidParams (-32602) on 1.0 and 0.3, and creates no task', async () => {
  const before = app.module.store.size;
  for (const parts of [[], [{ text: '   ' }]]) {
    const res = await rpc('talker', 'SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts } });
    assert.equal(JSON.parse(res.text).error?.code, -32602, JSON.stringify(parts));
  }
  const legacy = await rpc(
    'talker',
    'message/send',
    { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: '' }] } },
    '',
  );
  assert.equal(JSON.parse(legacy.text).error?.code, -32602);
  const stream = await rpc('talker', 'SendStreamingMessage', {
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: '' }] },
  });
  assert.equal(JSON.parse(stream.text).error?.code, -32602);
  await assert.rejects(client.sendMessage(send('')), (err: Error) =>
    /-32602|empty prompt|Invalid params/i.test(`${err.name} ${err.message}`),
  );
  assert.equal(app.module.store.size, before);
});

test('the tool-step limit fails the task with the reason', async () => {
  const looper = await new ClientFactory().createFromUrl(`${app.base}/fw/agent/looper/a2a`);
  const task = (await looper.sendMessage(send('go'))) as Task;
  assert.equal(task.status?.state, TaskState.TASK_STATE_FAILED);
  assert.match(statusText(task), /still calling tools after fw\.agent\.max-tool-steps \(2\) turns/);
});
