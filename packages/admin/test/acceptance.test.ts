/**
 * The admin plane against a running app with the real runtime, `@fw/mcp` and `@fw/agent`, and
 * real clients: raw WebSocket, the fw client over sse / long-polling / streaming, the A2A SDK
 * client, the MCP SDK client and a chat session.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { Role, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Framework } from '@fw/runtime';
import { connect as fwConnect, type FwClient } from '@fw/client/node';
import { mcp as mcpModule, BiDirectionalToolBridge } from '@fw/mcp';
import {
  Agent,
  AgentModule,
  Coordinator,
  OnPrompt,
  type AiRequest,
  type ModelProvider,
  type AiStreamPart,
  type CoordinatorContext,
} from '@fw/agent';
import { admin } from '../dist/index.js';
import { waitFor } from '@fw/testing';

/** A model the test steers: `slow` streams until aborted (and counts the abort); anything else is echoed. */
class SteeredRuntime implements ModelProvider {
  readonly name = 'steered';
  readonly priority = 5;
  readonly capabilities = ['streaming'];
  readonly models = ['steered-1'];
  aborts = 0;
  isAvailable(): boolean {
    return true;
  }
  async *stream(request: AiRequest, signal: AbortSignal): AsyncIterable<AiStreamPart> {
    const text = String(request.messages[request.messages.length - 1]?.content ?? '');
    if (text.includes('slow')) {
      signal.addEventListener('abort', () => this.aborts++, { once: true });
      for (let i = 0; !signal.aborted; i++) {
        yield { type: 'text', delta: `t${i} ` };
        await new Promise((r) => setTimeout(r, 20));
      }
      return;
    }
    yield { type: 'text', delta: `echo: ${text}` };
    yield { type: 'finish', reason: 'stop' };
  }
}

@Agent({ name: 'echo', version: '1.2.0', description: 'Echoes', headless: true })
class EchoAgent {}

@Agent({ name: 'chatty', description: 'Talks' })
class ChattyAgent {}

@Coordinator({ name: 'lead', version: '1.0.0', fleet: ['echo'] })
class LeadCoordinator {
  @OnPrompt()
  async prompt(message: string, ctx: CoordinatorContext): Promise<string> {
    return (await ctx.dispatch('echo', message, { skill: 'echo' })).text;
  }
}

interface Ev {
  type: string;
  [k: string]: unknown;
}

async function startApp() {
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': '',
    'fw.ai.auto': false,
    'fw.heartbeat.interval': 0,
    'fw.admin.mcp-write-tools': true,
  });
  await fw.use(mcpModule());
  const model = new SteeredRuntime();
  const agents = new AgentModule({ providers: [model] });
  await fw.use(agents);
  for (const cls of [EchoAgent, ChattyAgent, LeadCoordinator]) agents.mount(cls);
  await fw.use(admin());
  fw.handle('/chat/{room}', {});
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  const api = async <T = unknown>(path: string, init?: RequestInit): Promise<{ status: number; body: T; total: number; type: string }> => {
    const res = await fetch(`${base}/api/admin${path}`, init);
    const type = res.headers.get('content-type') ?? '';
    const body = (type.includes('json') ? await res.json() : await res.text()) as T;
    return { status: res.status, body, total: Number(res.headers.get('x-total-count')), type };
  };
  return { fw, model, base, ws: base.replace('http', 'ws'), api };
}

function a2aSend(text: string) {
  const message: Message = {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  };
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

async function rawSocket(url: string): Promise<{ socket: WebSocket; frames: string[] }> {
  const socket = new WebSocket(url);
  const frames: string[] = [];
  socket.on('message', (d) => frames.push(String(d)));
  await once(socket, 'open');
  return { socket, frames };
}

async function fwClient(url: string, transport: 'sse' | 'long-polling' | 'streaming'): Promise<{ client: FwClient; got: string[] }> {
  const client = fwConnect(url, { transports: [transport], reconnect: false });
  const got: string[] = [];
  client.onMessage((d) => got.push(d));
  await new Promise<void>((resolve, reject) => {
    const off = client.onStateChange((s) => {
      if (s === 'open') {
        off();
        resolve();
      }
      if (s === 'closed') {
        off();
        reject(new Error(`${transport} did not open`));
      }
    });
  });
  return { client, got };
}

test('every endpoint against the running app: values match reality, writes take effect', async () => {
  const app = await startApp();
  const { api } = app;
  const opened: { close(): void }[] = [];
  try {
    // one client per transport on the same room
    const raw = await rawSocket(`${app.ws}/fw/chat/lobby`);
    const clients = await Promise.all((['sse', 'long-polling', 'streaming'] as const).map((t) => fwClient(`${app.base}/fw/chat/lobby`, t)));
    opened.push(...clients.map((c) => c.client));
    const ov1 = await api<Record<string, unknown>>('/overview');
    assert.equal(ov1.body.status, 'UP');
    assert.equal(ov1.body.connections, 4);
    assert.equal(ov1.body.agentCount, 2);
    assert.equal(ov1.body.coordinatorCount, 1);
    assert.equal(ov1.body.taskCount, 0);
    assert.equal(ov1.body.aiRuntime, 'steered');
    assert.equal(ov1.body.handlers, app.fw.runtime.listHandlers().length);

    // resources: one per transport, filterable, with detail
    const res = await api<{ uuid: string; transport: string; broadcaster: string }[]>('/resources');
    assert.equal(res.total, 4);
    assert.deepEqual(res.body.map((r) => r.transport).sort(), ['long-polling', 'sse', 'streaming', 'websocket']);
    for (const t of ['websocket', 'sse', 'long-polling', 'streaming']) assert.equal((await api(`/resources?transport=${t}`)).total, 1, t);
    const rawUuid = res.body.find((r) => r.transport === 'websocket')!.uuid;
    assert.equal((await api<{ broadcaster: string }>(`/resources/${rawUuid}`)).body.broadcaster, '/fw/chat/lobby');
    const lobby = encodeURIComponent('/fw/chat/lobby');
    assert.equal((await api<{ resourceCount: number }>(`/broadcasters/${lobby}`)).body.resourceCount, 4);
    assert.ok((await api<{ id: string }[]>('/broadcasters')).body.some((b) => b.id === '/fw/chat/lobby'));
    assert.ok((await api<{ path: string }[]>('/handlers')).body.some((h) => h.path === '/fw/chat/{room}'));
    assert.ok(
      (await api<{ path: string; interceptors: string[] }[]>('/handlers')).body
        .find((h) => h.path === '/fw/admin/events')
        ?.interceptors.includes('admin-auth'),
    );
    assert.ok((await api<{ name: string }[]>('/interceptors')).body.some((i) => i.name === 'admin-auth'));

    // agents, a chat session, coordinators
    const agents = await api<{ name: string; kind: string; protocols: string[]; headless: boolean }[]>('/agents');
    assert.deepEqual(agents.body.map((a) => `${a.name}:${a.kind}`).sort(), ['chatty:agent', 'echo:agent', 'lead:coordinator']);
    assert.ok(agents.body.find((a) => a.name === 'echo')!.protocols.includes('a2a'));
    assert.equal((await api<{ version: string }>('/agents/echo')).body.version, '1.2.0');
    const chat = await rawSocket(`${app.ws}/fw/agent/chatty`);
    await waitFor('chat session listed', async () => (await api('/agents/chatty/sessions')).total === 1);
    assert.equal((await api<Record<string, number>>('/overview')).body.activeSessions, 1);
    chat.socket.close();
    await waitFor('chat session ended', async () => (await api('/agents/chatty/sessions')).total === 0);
    assert.deepEqual(
      (await api<{ name: string; fleet: { name: string }[] }[]>('/coordinators')).body.map((c) => [c.name, c.fleet.map((f) => f.name)]),
      [['lead', ['echo']]],
    );

    // a coordination → journal, its log and graph
    const lead = await new ClientFactory().createFromUrl(`${app.base}/fw/agent/lead/a2a`);
    await lead.sendMessage(a2aSend('hello fleet'));
    const journal = await api<{ coordinationId: string; kind: string; agent: string }[]>('/journal?agent=echo');
    assert.deepEqual(
      journal.body.map((e) => e.kind),
      ['dispatch', 'completion'],
    );
    const coordinationId = journal.body[0]!.coordinationId;
    assert.equal((await api(`/journal?coordinationId=${coordinationId}`)).total, 2);
    assert.equal((await api(`/journal?coordinationId=${coordinationId}&limit=1`)).total, 2);
    assert.equal((await api<unknown[]>(`/journal?coordinationId=${coordinationId}&limit=1`)).body.length, 1);
    assert.equal((await api(`/journal/${coordinationId}`)).total, 2);
    const log = await api<string>(`/journal/${coordinationId}/log`);
    assert.match(log.type, /^text\/plain/);
    assert.match(log.body, /echo/);
    const graph = await api<{ edges: { from: string; to: string; kind: string }[] }>(`/journal/${coordinationId}/graph`);
    assert.deepEqual(
      graph.body.edges.map((e) => [e.from, e.to, e.kind]),
      [['lead', 'echo', 'dispatch']],
    );

    // a task in flight: taskCount grows; cancel aborts the runtime call
    const tasksBefore = (await api<Record<string, number>>('/overview')).body.taskCount!;
    const echo = await new ClientFactory().createFromUrl(`${app.base}/fw/agent/echo/a2a`);
    const stream = (async () => {
      const states: unknown[] = [];
      for await (const ev of echo.sendMessageStream(a2aSend('slow please'))) states.push(ev.payload?.$case);
      return states;
    })();
    let taskId = '';
    await waitFor('a working task', async () => {
      const working = await api<{ id: string }[]>('/tasks?agent=echo&state=working');
      taskId = working.body[0]?.id ?? '';
      return taskId !== '';
    });
    assert.ok((await api<Record<string, number>>('/overview')).body.taskCount! > tasksBefore);
    assert.equal((await api<{ state: string }>(`/tasks/${taskId}`)).body.state, 'working');
    const canceled = await api<{ id: string; state: string }>(`/tasks/${taskId}/cancel`, { method: 'POST' });
    assert.equal(canceled.status, 200);
    assert.equal(canceled.body.state, 'canceled');
    await stream;
    await waitFor('the runtime call aborted', () => app.model.aborts === 1);
    const completed = (await api<{ id: string }[]>('/tasks?state=completed')).body[0]!;
    const refused = await api<{ code: string }>(`/tasks/${completed.id}/cancel`, { method: 'POST' });
    assert.deepEqual([refused.status, refused.body.code], [409, 'task_not_cancelable']);
    assert.equal((await api(`/tasks/${randomUUID()}/cancel`, { method: 'POST' })).status, 404);

    // runtimes
    const runtimes = await api<{ name: string; active: boolean }[]>('/runtimes');
    assert.deepEqual(
      runtimes.body.filter((r) => r.active).map((r) => r.name),
      ['steered'],
    );
    assert.equal(runtimes.total, app.fw.services.get('agent')!.runtimes().length);
    assert.equal((await api<{ name: string }>('/runtimes/active')).body.name, 'steered');

    // MCP: servers, the admin tools in the registry, a live session, a pending bridge call
    const mcp = new McpClient({ name: 'acceptance', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${app.base}/mcp`)));
    opened.push({ close: () => void mcp.close() });
    assert.ok((await api<{ path: string }[]>('/mcp/servers')).body.some((s) => s.path === '/mcp'));
    assert.ok((await api<{ name: string }[]>('/mcp/tools')).body.some((t) => t.name === 'fw_list_agents'));
    assert.equal((await api('/mcp/resources')).status, 200);
    assert.equal((await api('/mcp/prompts')).status, 200);
    assert.equal((await api<{ clientName: string }[]>('/mcp/sessions')).body.filter((s) => s.clientName === 'acceptance').length, 1);
    const bridge = new BiDirectionalToolBridge({ timeout: 10_000, framework: app.fw });
    const pendingCall = bridge.callClientTool(app.fw.resources.get(rawUuid)!, 'ask_human', { q: 'ok?' }).catch((e: Error) => e);
    const pending = await api<{ toolName: string; resourceUuid: string }[]>('/mcp/bridge/pending');
    assert.deepEqual(
      pending.body.map((p) => [p.toolName, p.resourceUuid]),
      [['ask_human', rawUuid]],
    );

    // writes, each seen by a real client
    const broadcast = await api<{ delivered: number }>('/broadcasters/broadcast', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ broadcasterId: '/fw/chat/lobby', message: 'to everyone' }),
    });
    assert.equal(broadcast.body.delivered, 4);
    await waitFor(
      'the broadcast on every transport',
      () => raw.frames.includes('to everyone') && clients.every((c) => c.got.includes('to everyone')),
    );
    const sseUuid = clients[0]!.client.uuid!;
    assert.deepEqual(
      (
        await api(`/resources/${sseUuid}/message`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message: 'just you' }),
        })
      ).body,
      { uuid: sseUuid, delivered: true },
    );
    await waitFor('the unicast', () => clients[0]!.got.includes('just you'));
    assert.ok(!raw.frames.includes('just you'));

    const rawClosed = once(raw.socket, 'close');
    assert.deepEqual(
      (
        await api(`/resources/${rawUuid}`, {
          method: 'DELETE',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ reason: 'bye now' }),
        })
      ).body,
      { uuid: rawUuid, disconnected: true, reason: 'bye now' },
    );
    const [code, reason] = (await rawClosed) as [number, Buffer];
    assert.deepEqual([code, String(reason)], [4000, 'bye now']);
    assert.ok((await pendingCall) instanceof Error); // the bridge call is rejected at once when its client goes

    const closedReasons: string[] = [];
    for (const c of clients) c.client.onClose((r) => closedReasons.push(String(r)));
    const destroyed = await api<{ disconnected: number }>(`/broadcasters/${lobby}`, { method: 'DELETE' });
    assert.equal(destroyed.body.disconnected, 3);
    await waitFor('every client closed by the destroy', () => closedReasons.length === 3);
    await waitFor('no connections left', async () => (await api<Record<string, number>>('/overview')).body.connections === 0);
    assert.equal((await api(`/broadcasters/${lobby}`)).status, 404);

    // read-only views of the admin plane itself
    const audit = await api<{ action: string; outcome: string }[]>('/audit');
    assert.deepEqual(
      audit.body.map((e) => `${e.action}:${e.outcome}`),
      [
        'destroy:allowed',
        'disconnect:allowed',
        'unicast:allowed',
        'broadcast:allowed',
        'cancel:failed',
        'cancel:allowed',
        'cancel:failed',
        'cancel:allowed',
        'cancel:allowed',
      ],
    );
    assert.equal((await api('/audit?outcome=failed')).total, 2);
    assert.equal((await api<{ runtime: { connections: number } }>('/metrics')).body.runtime.connections, 0);
    assert.match((await api<string>('/metrics/prometheus')).body, /^fw_connections\{transport="websocket"\} 0$/m);
    assert.ok((await api<Ev[]>('/events/recent')).body.some((e) => e.type === 'TaskStateChanged'));
    assert.equal((await api<{ authRequired: boolean }>('/session')).body.authRequired, false);
    assert.equal((await api<{ version: string }[]>('/nodes')).body[0]?.version, ov1.body.version);
  } finally {
    for (const o of opened) o.close();
    await app.fw.close();
  }
});

test("a plain WebSocket client on /fw/admin/events sees all eleven event types, never its own broadcaster's traffic", async () => {
  const app = await startApp();
  const stream = await rawSocket(`${app.ws}/fw/admin/events`);
  const events = (): Ev[] => stream.frames.map((f) => JSON.parse(f) as Ev);
  const has = (type: string) => () => events().some((e) => e.type === type);
  try {
    const room = await rawSocket(`${app.ws}/fw/chat/room1`); // ResourceConnected, BroadcasterCreated
    await app.api('/broadcasters/broadcast', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ broadcasterId: '/fw/chat/room1', message: 'x' }),
    }); // MessageBroadcast, ControlActionExecuted
    const chat = await rawSocket(`${app.ws}/fw/agent/chatty`); // AgentSessionStarted
    await waitFor('AgentSessionStarted', has('AgentSessionStarted'));
    chat.socket.close(); // AgentSessionEnded
    const lead = await new ClientFactory().createFromUrl(`${app.base}/fw/agent/lead/a2a`);
    (await lead.sendMessage(a2aSend('hi'))) as Task; // TaskStateChanged, AgentDispatched, AgentCompleted
    room.socket.close(); // ResourceDisconnected, BroadcasterDestroyed (the room's broadcaster goes when empty)
    const all = [
      'ResourceConnected',
      'ResourceDisconnected',
      'BroadcasterCreated',
      'BroadcasterDestroyed',
      'MessageBroadcast',
      'AgentSessionStarted',
      'AgentSessionEnded',
      'TaskStateChanged',
      'AgentDispatched',
      'AgentCompleted',
      'ControlActionExecuted',
    ];
    await waitFor(`all eleven types (missing: ${all.filter((t) => !has(t)()).join(', ')})`, () => all.every((t) => has(t)()));
    for (const e of events()) {
      assert.equal(typeof e.type, 'string');
      assert.ok(!Number.isNaN(Date.parse(String(e.timestamp))), 'timestamp');
    }
    const ended = events().find((e) => e.type === 'AgentSessionEnded')!;
    assert.equal(ended.agentName, 'chatty');
    assert.equal(typeof ended.durationMs, 'number');
    const dispatched = events().find((e) => e.type === 'AgentDispatched')!;
    assert.deepEqual([dispatched.agent, dispatched.skill], ['echo', 'echo']);
    assert.ok(
      events()
        .filter((e) => e.type === 'MessageBroadcast')
        .every((e) => e.broadcasterId === '/fw/chat/room1'),
    );
    assert.ok(!events().some((e) => JSON.stringify(e).includes('"broadcasterId":"/fw/admin/events"')));
  } finally {
    stream.socket.close();
    await app.fw.close();
  }
});
