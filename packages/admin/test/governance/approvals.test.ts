/**
 * Issue 26 item 5 over real sockets: a tool that needs a human's approval pauses its run on every
 * surface (chat frame, A2A input-required with the official client, AG-UI interrupt event), an
 * operator approves (the tool runs, the run goes on) or denies (the model is told, the tool does
 * not run), an approval expires to a denial (audited as system), an approval survives a restart
 * (same SQLite file, new Framework) and still expires; a policy rule can require approval; the
 * REST shapes, 400/404/409, the viewer refused, audit and events; and `fw.admin.mcp-approval`:
 * an AI operator's dangerous admin MCP call waits for a human, runs when approved over REST.
 * The model is fw's offline runtime, which calls a tool for a prompt `/<tool> <json>`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientFactory } from '@a2a-js/sdk/client';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Framework, type FrameworkModule } from '@fw/runtime';
import { mcp } from '@fw/mcp';
import { Agent, AgentModule, AgentTool } from '@fw/agent';
import { waitFor } from '@fw/testing';
import { admin, type Approval, type AuditEntry } from '../../dist/index.js';
import { adminEvents, API, AUTH_TOKENS, bearer, chat, TOKENS } from './apps.js';

/** What each tool really did (a denied call must not run). */
const ran: string[] = [];

@Agent({ name: 'banker', description: 'moves money' })
class Banker {
  @AgentTool({
    description: 'Moves money',
    input: { type: 'object', properties: { amount: { type: 'number' } } },
    approval: { reason: 'money leaves the bank' },
  })
  transfer(input: { amount: number }): string {
    ran.push(`transfer ${input.amount}`);
    return `sent ${input.amount}`;
  }
  @AgentTool({
    description: 'Deletes a file',
    input: { type: 'object', properties: { path: { type: 'string' } } },
    approval: { timeoutMs: 400 },
  })
  remove(input: { path: string }): string {
    ran.push(`remove ${input.path}`);
    return `removed ${input.path}`;
  }
  @AgentTool({ description: 'Looks a word up', input: { type: 'object', properties: { word: { type: 'string' } } } })
  lookup(input: { word: string }): string {
    ran.push(`lookup ${input.word}`);
    return `definition of ${input.word}`;
  }
}

interface App {
  fw: Framework;
  base: string;
  ws: string;
  post(path: string, body?: unknown, token?: string): Promise<Response>;
  get(path: string, token?: string): Promise<Response>;
  close(): Promise<void>;
}

async function start(props: Record<string, unknown> = {}, first: FrameworkModule[] = []): Promise<App> {
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': '',
    'fw.ai.auto': false,
    'fw.heartbeat.interval': 0,
    'fw.auth.tokens': AUTH_TOKENS,
    'fw.agent.auth': 'none',
    'fw.admin.mcp-tools': false,
    ...props,
  });
  for (const m of first) await fw.use(m);
  // fw's offline runtime: `/<tool> <json>` calls the tool, then it answers `Tool <tool> returned: <output>`.
  const agents = new AgentModule();
  await fw.use(agents);
  agents.mount(Banker);
  await fw.use(admin());
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  // The store opens with the agent module; approvals can be kept once it is there.
  await waitFor('the approvals store', () => fw.services.get('admin')?.governance.approvals.available, 10_000);
  return {
    fw,
    base,
    ws: `ws://127.0.0.1:${port}`,
    post: (p, body, token = TOKENS.operator) =>
      fetch(base + p, {
        method: 'POST',
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...bearer(token) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    get: (p, token = TOKENS.viewer) => fetch(base + p, { headers: bearer(token) }),
    close: () => fw.close(),
  };
}

async function approvals(app: App, query = '', token: string = TOKENS.operator): Promise<Approval[]> {
  const res = await app.get(`${API}/approvals${query}`, token);
  assert.equal(res.status, 200);
  return ((await res.json()) as { approvals: Approval[] }).approvals;
}

const pendingOf = (app: App, tool: string) =>
  waitFor(`a pending approval of ${tool}`, async () => (await approvals(app, '?status=pending')).find((a) => a.tool === tool), 5000);

async function audit(app: App, action: string): Promise<AuditEntry[]> {
  const res = await app.get(`${API}/audit?limit=1000&action=${encodeURIComponent(action)}`);
  assert.equal(res.status, 200);
  return (await res.json()) as AuditEntry[];
}

test('chat: the run pauses with an approval frame, a viewer is refused, an operator approves, the tool runs and the run goes on; audited and evented', async () => {
  const app = await start();
  const events = await adminEvents(app);
  const client = await chat(app, 'banker');
  try {
    const from = client.frames.length;
    client.prompt('/transfer {"amount": 40}');
    const asked = await client.next('approval', from);
    assert.equal(asked.status, 'pending');
    assert.equal(asked.tool, 'transfer');
    assert.equal(asked.reason, 'money leaves the bank');
    assert.match(String(asked.message), /awaits a human's approval/);
    assert.ok(!ran.includes('transfer 40'), 'the tool waits');

    // The list: an operator reads the arguments (content), a viewer does not.
    const pending = await pendingOf(app, 'transfer');
    assert.equal(pending.id, asked.id);
    assert.deepEqual(pending.arguments, { amount: 40 });
    assert.equal(pending.agent, 'banker');
    assert.equal(pending.surface, 'chat');
    assert.equal(pending.status, 'pending');
    assert.equal(typeof pending.runId, 'string');
    assert.equal(pending.decidedAt, null);
    assert.ok(Date.parse(pending.expiresAt) - Date.parse(pending.requestedAt) === 900_000, 'the default timeout: 15 min');
    const seen = (await approvals(app, '?status=pending', TOKENS.viewer)).find((a) => a.id === pending.id);
    assert.equal(seen?.arguments, null);

    // A viewer may read but not decide.
    const refused = await app.post(`${API}/approvals/${pending.id}`, { approve: true }, TOKENS.viewer);
    assert.equal(refused.status, 403);
    assert.ok(!ran.includes('transfer 40'));

    const res = await app.post(`${API}/approvals/${pending.id}`, { approve: true, reason: 'checked with the customer' });
    assert.equal(res.status, 200);
    const decided = (await res.json()) as Approval;
    assert.equal(decided.status, 'approved');
    assert.equal(decided.decidedBy, 'otto');
    assert.equal(decided.reason, 'checked with the customer');
    const done = await client.next('done', from);
    assert.equal(done.text, 'Tool transfer returned: sent 40');
    assert.ok(ran.includes('transfer 40'));
    assert.ok(client.frames.slice(from).some((f) => f.type === 'approval' && f.status === 'approved'));

    // The same decision again is answered as it is (200); the other one is a conflict (409).
    const again = await app.post(`${API}/approvals/${pending.id}`, { approve: true });
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as Approval).decidedBy, 'otto');
    const conflict = await app.post(`${API}/approvals/${pending.id}`, { approve: false });
    assert.equal(conflict.status, 409);
    assert.equal(((await conflict.json()) as { code: string }).code, 'approval_decided');

    const records = await audit(app, 'approval.decide');
    assert.ok(records.some((e) => e.target === pending.id && e.outcome === 'refused' && e.principal === 'vera'));
    assert.ok(records.some((e) => e.target === pending.id && e.outcome === 'allowed' && e.principal === 'otto'));
    await waitFor(
      'ApprovalRequested and ApprovalDecided on the event stream',
      () =>
        events.events.some((e) => e.type === 'ApprovalRequested' && e.id === pending.id && e.tool === 'transfer') &&
        events.events.some((e) => e.type === 'ApprovalDecided' && e.id === pending.id && e.status === 'approved' && e.decidedBy === 'otto'),
      5000,
    );
  } finally {
    await client.close();
    await events.close();
    await app.close();
  }
});

test('deny: the tool does not run, the model is told; 404 unknown, 400 bad bodies', async () => {
  const app = await start();
  const client = await chat(app, 'banker');
  try {
    const from = client.frames.length;
    client.prompt('/transfer {"amount": 99}');
    await client.next('approval', from);
    const pending = await pendingOf(app, 'transfer');
    for (const body of [{}, { approve: 'yes' }, { approve: true, reason: '' }, { approve: true, extra: 1 }]) {
      const res = await app.post(`${API}/approvals/${pending.id}`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const problem = (await res.json()) as { code: string; detail?: string; stack?: unknown };
      assert.equal(problem.code, 'bad_request');
      assert.equal(problem.stack, undefined);
    }
    assert.equal((await app.get(`${API}/approvals?status=maybe`)).status, 400);
    assert.equal((await app.get(`${API}/approvals?limit=0`)).status, 400);
    assert.equal((await app.get(`${API}/approvals?limit=1001`)).status, 400);
    assert.equal((await app.post(`${API}/approvals/${randomUUID()}`, { approve: true })).status, 404);

    const res = await app.post(`${API}/approvals/${pending.id}`, { approve: false, reason: 'too much' });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as Approval).status, 'denied');
    const done = await client.next('done', from);
    assert.match(String(done.text), /Tool transfer returned: error: refused: approval .* of 'transfer' was denied by otto \(too much\)/);
    assert.ok(!ran.includes('transfer 99'), 'a denied call never runs');
    assert.equal((await approvals(app, '?status=denied')).find((a) => a.id === pending.id)?.reason, 'too much');
  } finally {
    await client.close();
    await app.close();
  }
});

test('expiry: an approval nobody decides is denied at its timeout, audited as system and evented', async () => {
  const app = await start();
  const events = await adminEvents(app);
  const client = await chat(app, 'banker');
  try {
    const from = client.frames.length;
    client.prompt('/remove {"path": "/etc/passwd"}');
    const asked = await client.next('approval', from);
    const done = await client.next('done', from);
    assert.match(String(done.text), /refused: approval .* of 'remove' was expired \(expired: no decision within 0 s\)/);
    assert.ok(!ran.includes('remove /etc/passwd'));
    assert.ok(client.frames.slice(from).some((f) => f.type === 'approval' && f.status === 'expired'));
    const expired = (await approvals(app, '?status=expired')).find((a) => a.id === asked.id);
    assert.equal(expired?.decidedBy, null);
    // A late decision is a conflict: the expiry decided.
    assert.equal((await app.post(`${API}/approvals/${asked.id}`, { approve: true })).status, 409);
    const records = await audit(app, 'approval.expire');
    assert.ok(records.some((e) => e.target === asked.id && e.principal === 'system' && e.source === 'system' && e.outcome === 'allowed'));
    await waitFor(
      'ApprovalDecided expired',
      () => events.events.some((e) => e.type === 'ApprovalDecided' && e.id === asked.id && e.status === 'expired'),
      5000,
    );
  } finally {
    await client.close();
    await events.close();
    await app.close();
  }
});

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
const statusText = (t: Task | undefined) =>
  (t?.status?.message?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

test('A2A (official client): the task goes input-required with the approval, then completes once approved', async () => {
  const app = await start();
  try {
    const client = await new ClientFactory().createFromUrl(`${app.base}/fw/agent/banker/a2a`);
    const states: TaskState[] = [];
    let inputRequired = '';
    let taskId = '';
    const stream = (async () => {
      for await (const ev of client.sendMessageStream({
        tenant: '',
        message: userMessage('/transfer {"amount": 7}'),
        configuration: undefined,
        metadata: undefined,
      })) {
        if (ev.payload?.$case === 'task') taskId = ev.payload.value.id;
        if (ev.payload?.$case === 'statusUpdate') {
          const state = ev.payload.value.status?.state as TaskState;
          states.push(state);
          if (state === TaskState.TASK_STATE_INPUT_REQUIRED)
            inputRequired = (ev.payload.value.status?.message?.parts ?? [])
              .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
              .join('');
        }
      }
    })();
    const pending = await pendingOf(app, 'transfer');
    assert.equal(pending.surface, 'a2a');
    await waitFor('the input-required status', () => (inputRequired ? true : undefined), 5000);
    assert.match(inputRequired, new RegExp(`awaiting approval ${pending.id}`));
    // input-required interrupts the task: the SDK ends the stream there (A2A: the client is needed
    // elsewhere); the run goes on in the server, and the client reads the outcome with tasks/get.
    await stream;
    assert.equal(states.at(-1), TaskState.TASK_STATE_INPUT_REQUIRED);
    const waiting = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
    assert.equal(waiting.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    assert.ok(!ran.includes('transfer 7'));
    assert.equal((await app.post(`${API}/approvals/${pending.id}`, { approve: true })).status, 200);
    const task = await waitFor(
      'the task completed',
      async () => {
        const t = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
        return t.status?.state === TaskState.TASK_STATE_COMPLETED ? t : undefined;
      },
      5000,
    );
    assert.equal(statusText(task), 'Tool transfer returned: sent 7');
    assert.ok(ran.includes('transfer 7'));
  } finally {
    await app.close();
  }
});

/** An AG-UI run's SSE events as they arrive. */
async function aguiRun(app: App, text: string): Promise<{ events: Record<string, unknown>[]; done: Promise<void> }> {
  const res = await fetch(`${app.base}/fw/agent/banker/agui`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      threadId: randomUUID(),
      runId: randomUUID(),
      state: {},
      messages: [{ id: randomUUID(), role: 'user', content: text }],
      tools: [],
      context: [],
      forwardedProps: {},
    }),
  });
  assert.equal(res.status, 200);
  const events: Record<string, unknown>[] = [];
  const done = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let at = buffer.indexOf('\n\n');
      while (at >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        if (line.startsWith('data: ')) events.push(JSON.parse(line.slice(6)) as Record<string, unknown>);
        at = buffer.indexOf('\n\n');
      }
    }
  })();
  return { events, done };
}

test('AG-UI: an interrupt (CUSTOM fw.interrupt, an AG-UI Interrupt) while it waits, its resolution, then the run finishes', async () => {
  const app = await start();
  try {
    const run = await aguiRun(app, '/transfer {"amount": 3}');
    const interrupt = await waitFor(
      'the interrupt event',
      () => run.events.find((e) => e.type === 'CUSTOM' && e.name === 'fw.interrupt')?.value as Record<string, unknown> | undefined,
      5000,
    );
    const pending = await pendingOf(app, 'transfer');
    assert.equal(pending.surface, 'agui');
    assert.equal(interrupt.id, pending.id);
    assert.equal(interrupt.reason, 'tool_approval');
    assert.equal(interrupt.expiresAt, pending.expiresAt);
    assert.equal(typeof interrupt.toolCallId, 'string');
    assert.ok(!run.events.some((e) => e.type === 'RUN_FINISHED'), 'the run waits');
    assert.equal((await app.post(`${API}/approvals/${pending.id}`, { approve: true })).status, 200);
    await run.done;
    const resolved = run.events.find((e) => e.type === 'CUSTOM' && e.name === 'fw.interrupt.resolved')?.value as Record<string, unknown>;
    assert.deepEqual(
      { interruptId: resolved.interruptId, status: resolved.status },
      {
        interruptId: pending.id,
        status: 'resolved',
      },
    );
    assert.ok(run.events.some((e) => e.type === 'TOOL_CALL_RESULT' && e.content === 'sent 3'));
    assert.equal(run.events.at(-1)?.type, 'RUN_FINISHED');
  } finally {
    await app.close();
  }
});

test('a policy rule requires approval (require-approval), for the agents and tools it names', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-approval-policy-'));
  const file = join(dir, 'policies.json');
  writeFileSync(
    file,
    JSON.stringify({
      policies: [
        { name: 'ask-first', agents: ['banker'], rules: [{ type: 'require-approval', tools: ['look*'], reason: 'lookups are costly' }] },
      ],
    }),
  );
  const app = await start({ 'fw.admin.governance.policy-file': file });
  const client = await chat(app, 'banker');
  try {
    const from = client.frames.length;
    client.prompt('/lookup {"word": "ledger"}');
    const asked = await client.next('approval', from);
    assert.equal(asked.reason, 'lookups are costly');
    assert.ok(!ran.includes('lookup ledger'));
    assert.equal((await app.post(`${API}/approvals/${asked.id}`, { approve: true })).status, 200);
    assert.equal((await client.next('done', from)).text, 'Tool lookup returned: definition of ledger');
  } finally {
    await client.close();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad require-approval rule stops the start (fail closed), naming what is wrong', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-approval-bad-'));
  const file = join(dir, 'policies.json');
  writeFileSync(
    file,
    JSON.stringify({ policies: [{ name: 'ask', rules: [{ type: 'require-approval', tools: ['x'], timeout_seconds: 0 }] }] }),
  );
  const fw = new Framework({ configFile: false, env: {}, 'fw.data-dir': '', 'fw.ai.auto': false, 'fw.admin.governance.policy-file': file });
  try {
    await fw.use(new AgentModule());
    await assert.rejects(fw.use(admin()), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'invalid_policy_file');
      assert.match(err.message, /\/policies\/0\/rules\/0\/timeout_seconds: must be > 0/);
      return true;
    });
  } finally {
    await fw.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('durable: an approval pending across a restart (same SQLite file, new Framework) stays pending, can be decided, and still expires to a denial', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-approvals-'));
  const props = { 'fw.data-dir': dir, 'fw.governance.approval-timeout': 3000, 'fw.governance.approval-sweep-interval': 100 };
  try {
    const first = await start(props);
    const client = await chat(first, 'banker');
    let decidedLater: Approval;
    let expiresLater: Approval;
    try {
      const from = client.frames.length;
      client.prompt('/transfer {"amount": 5}');
      await client.next('approval', from);
      decidedLater = await pendingOf(first, 'transfer');
    } finally {
      await client.close();
    }
    // A second one that nobody decides, requested by a tool on the agent's MCP endpoint is not needed: the chat again.
    const second = await chat(first, 'banker');
    try {
      const from = second.frames.length;
      second.prompt('/transfer {"amount": 6}');
      await second.next('approval', from);
      expiresLater = await waitFor(
        'the second pending approval',
        async () => (await approvals(first, '?status=pending')).find((a) => a.id !== decidedLater.id),
        5000,
      );
    } finally {
      await second.close();
    }
    await first.close();

    const again = await start(props);
    const events = await adminEvents(again);
    try {
      const pending = await approvals(again, '?status=pending');
      assert.deepEqual(pending.map((a) => a.id).sort(), [decidedLater.id, expiresLater.id].sort());
      assert.deepEqual(pending.find((a) => a.id === decidedLater.id)?.arguments, { amount: 5 });
      // A decision after the restart is recorded; the run it was for died with the process, so nothing runs.
      const res = await again.post(`${API}/approvals/${decidedLater.id}`, { approve: true });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as Approval).status, 'approved');
      assert.ok(!ran.includes('transfer 5'));
      // The other one expires at its time on the new node (its sweep), denied, evented, audited as system.
      const expired = await waitFor(
        'the expiry after the restart',
        async () => (await approvals(again, '?status=expired')).find((a) => a.id === expiresLater.id),
        10_000,
      );
      assert.ok(Date.parse(expired.decidedAt ?? '') >= Date.parse(expiresLater.expiresAt));
      await waitFor(
        'ApprovalDecided expired',
        () => events.events.some((e) => e.type === 'ApprovalDecided' && e.id === expiresLater.id && e.status === 'expired'),
        5000,
      );
      assert.ok((await audit(again, 'approval.expire')).some((e) => e.target === expiresLater.id && e.principal === 'system'));
      assert.ok(!ran.includes('transfer 6'));
    } finally {
      await events.close();
      await again.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('fw.admin.mcp-approval: an AI operator kill-switch arm over MCP waits for a human, runs when approved over REST (audited with both principals)', async () => {
  const app = await start({ 'fw.admin.mcp-tools': true, 'fw.admin.mcp-write-tools': true, 'fw.admin.mcp-approval': true }, [mcp()]);
  const textOf = (r: unknown): string => ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;
  const connect = async (token: string): Promise<Client> => {
    const client = new Client({ name: 'approval-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.base}/fw/admin/mcp`), { requestInit: { headers: bearer(token) } }),
    );
    return client;
  };
  const ai = await connect(TOKENS.operator);
  const viewer = await connect(TOKENS.viewer);
  try {
    // A viewer cannot even ask: it lacks the action's role (refused, audited), no approval is created.
    const refused = await viewer.callTool({ name: 'fw_kill_switch_arm', arguments: { reason: 'viewer tries' } });
    assert.equal(refused.isError, true);
    assert.equal((await approvals(app, '?status=pending')).length, 0);

    const asked = await ai.callTool({ name: 'fw_kill_switch_arm', arguments: { reason: 'the model looks runaway' } });
    assert.notEqual(asked.isError, true, textOf(asked));
    const id = /^pending approval ([0-9a-f-]{36})/.exec(textOf(asked))?.[1];
    assert.ok(id, textOf(asked));
    const health = async () => (await (await app.get(`${API}/governance/health`)).json()) as { armed: boolean; operator: string | null };
    assert.equal((await health()).armed, false, 'nothing runs before a human approves');
    const [pending] = await approvals(app, '?status=pending');
    assert.equal(pending?.id, id);
    assert.equal(pending?.agent, 'fw-admin');
    assert.equal(pending?.tool, 'fw_kill_switch_arm');
    assert.equal(pending?.surface, 'admin-mcp');
    assert.equal(pending?.principal, 'otto');
    assert.deepEqual(pending?.arguments, { reason: 'the model looks runaway' });

    // The AI may list approvals but not approve its own (a human does, over REST).
    const listed = JSON.parse(textOf(await viewer.callTool({ name: 'fw_list_approvals', arguments: { status: 'pending' } }))) as {
      approvals: Approval[];
    };
    assert.equal(listed.approvals[0]?.id, id);
    assert.equal(listed.approvals[0]?.arguments, null, 'a viewer does not read arguments');
    const self = await ai.callTool({ name: 'fw_decide_approval', arguments: { id, approve: true } });
    assert.equal(self.isError, true);
    assert.match(textOf(self), /approved by a human over REST/);

    const res = await app.post(`${API}/approvals/${id}`, { approve: true, reason: 'confirmed' }, TOKENS.admin);
    assert.equal(res.status, 200);
    const decided = (await res.json()) as Approval & { result?: { armed: boolean }; error?: string };
    assert.equal(decided.status, 'approved');
    assert.equal(decided.decidedBy, 'ada');
    assert.equal(decided.result?.armed, true, decided.error);
    const now = await health();
    assert.equal(now.armed, true);
    assert.equal(now.operator, 'ada');
    const arms = await audit(app, 'kill-switch.arm');
    assert.ok(
      arms.some(
        (e) =>
          e.outcome === 'refused' &&
          e.principal === 'otto' &&
          e.source === 'mcp' &&
          e.reason === `awaiting a human's approval (approval ${id})`,
      ),
      "the AI's own call is audited as held for approval",
    );
    const arm = arms.find((e) => e.outcome === 'allowed');
    assert.equal(arm?.principal, 'ada');
    assert.match(String(arm?.reason), new RegExp(`approval ${id}: requested by otto over /fw/admin/mcp, approved by ada`));

    // Deny works over MCP; the action never runs.
    const second = await ai.callTool({ name: 'fw_kill_switch_disarm', arguments: { reason: 'all good' } });
    const secondId = /^pending approval ([0-9a-f-]{36})/.exec(textOf(second))?.[1];
    assert.ok(secondId, textOf(second));
    const denied = await ai.callTool({ name: 'fw_decide_approval', arguments: { id: secondId, approve: false, reason: 'not yet' } });
    assert.notEqual(denied.isError, true, textOf(denied));
    assert.equal((JSON.parse(textOf(denied)) as Approval).status, 'denied');
    assert.equal((await health()).armed, true);

    // An action runs as its approver: an operator cannot approve what needs the admin role (it stays pending), but may deny it.
    const admin = await connect(TOKENS.admin);
    try {
      const destroy = await admin.callTool({ name: 'fw_destroy_broadcaster', arguments: { broadcasterId: '/fw/chat/lobby' } });
      const destroyId = /^pending approval ([0-9a-f-]{36})/.exec(textOf(destroy))?.[1];
      assert.ok(destroyId, textOf(destroy));
      const notAllowed = await app.post(`${API}/approvals/${destroyId}`, { approve: true }, TOKENS.operator);
      assert.equal(notAllowed.status, 403);
      assert.match(((await notAllowed.json()) as { detail: string }).detail, /needs the right to 'destroy'/);
      assert.equal((await approvals(app, '?status=pending')).find((a) => a.id === destroyId)?.status, 'pending');
      const deny = await app.post(`${API}/approvals/${destroyId}`, { approve: false, reason: 'keep the lobby' }, TOKENS.operator);
      assert.equal(deny.status, 200);
    } finally {
      await admin.close();
    }
  } finally {
    await ai.close();
    await viewer.close();
    await app.close();
  }
});

test('retention: decided approvals older than fw.governance.approval-retention are pruned by the sweep, pending ones stay', async () => {
  const app = await start({ 'fw.governance.approval-retention': 300, 'fw.governance.approval-sweep-interval': 50 });
  const client = await chat(app, 'banker');
  try {
    const from = client.frames.length;
    client.prompt('/transfer {"amount": 11}');
    const first = await client.next('approval', from);
    assert.equal((await app.post(`${API}/approvals/${first.id}`, { approve: false })).status, 200);
    await client.next('done', from);
    const next = client.frames.length;
    client.prompt('/transfer {"amount": 12}');
    const second = await client.next('approval', next);
    // Decided 300 ms ago or less: kept; past it: deleted. The pending one is never pruned.
    assert.ok((await approvals(app)).some((a) => a.id === first.id));
    await waitFor(
      'the decided approval pruned',
      async () => ((await approvals(app)).some((a) => a.id === first.id) ? undefined : true),
      5000,
    );
    await new Promise((r) => setTimeout(r, 400));
    assert.deepEqual(
      (await approvals(app)).map((a) => [a.id, a.status]),
      [[second.id, 'pending']],
    );
  } finally {
    await client.close();
    await app.close();
  }
});

test('two nodes on one database: a decision made on the other node reaches the run waiting here (its sweep)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-approvals-nodes-'));
  const props = { 'fw.data-dir': dir, 'fw.governance.approval-sweep-interval': 100 };
  const a = await start(props);
  const b = await start(props);
  const client = await chat(a, 'banker');
  try {
    const from = client.frames.length;
    client.prompt('/transfer {"amount": 21}');
    const asked = await client.next('approval', from);
    const seen = await pendingOf(b, 'transfer');
    assert.equal(seen.id, asked.id);
    assert.equal((await b.post(`${API}/approvals/${asked.id}`, { approve: true })).status, 200);
    const done = await client.next('done', from);
    assert.equal(done.text, 'Tool transfer returned: sent 21');
    assert.equal((await a.post(`${API}/approvals/${asked.id}`, { approve: false })).status, 409, 'decided once, for both nodes');
  } finally {
    await client.close();
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
