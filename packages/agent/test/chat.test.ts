import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { Agent, AgentTool } from '../dist/index.js';
import { ProbeRuntime, startApp, type TestApp } from './helpers.js';
import { waitFor } from '@fw/testing';

@Agent({ name: 'chatty', description: 'Talks' })
class Chatty {
  @AgentTool({ description: 'Tells the time' })
  clock(): string {
    return 'noon';
  }
}

@Agent({ name: 'quiet', headless: true })
class Quiet {}

interface Frame {
  type: string;
  delta?: string;
  text?: string;
  code?: string;
}

class ChatClient {
  readonly frames: Frame[] = [];
  closed = false;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => this.frames.push(JSON.parse(String(d)) as Frame));
    ws.on('close', () => (this.closed = true));
  }

  static connect(app: TestApp, agent: string): Promise<ChatClient> {
    const ws = new WebSocket(`${app.base.replace('http', 'ws')}/fw/agent/${agent}`);
    const c = new ChatClient(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(c));
      ws.once('error', reject);
    });
  }

  /** Sends a prompt and waits for its `done` (or `error`) frame; returns the streamed tokens and the final frame. */
  async ask(text: string): Promise<{ tokens: string; last: Frame }> {
    const start = this.frames.length;
    this.ws.send(text);
    await waitFor("this.frames.slice(start).some((f) => f.type === 'done' || f.type === 'error')", () =>
      this.frames.slice(start).some((f) => f.type === 'done' || f.type === 'error'),
    );
    const mine = this.frames.slice(start);
    return {
      tokens: mine
        .filter((f) => f.type === 'token')
        .map((f) => f.delta)
        .join(''),
      last: mine.find((f) => f.type === 'done' || f.type === 'error')!,
    };
  }

  async close(): Promise<void> {
    this.ws.close();
    await waitFor('the socket to close', () => this.closed);
  }
}

test('N chat clients → N sessions with their message counts; each ends with duration and count', async () => {
  const app = await startApp((m) => [Chatty, Quiet].forEach((c) => m.mount(c)), { 'fw.agent.max-message-chars': 100 });
  const clients: ChatClient[] = [];
  try {
    for (let i = 0; i < 3; i++) clients.push(await ChatClient.connect(app, 'chatty'));
    await waitFor("app.module.view.sessions('chatty').length === 3", () => app.module.view.sessions('chatty').length === 3);
    assert.equal(app.module.view.agent('chatty')?.activeSessions, 3);
    const started = app.events.filter((e) => e.type === 'AgentSessionStarted');
    assert.equal(started.length, 3);
    assert.ok(started.every((e) => e.type === 'AgentSessionStarted' && e.agentName === 'chatty'));

    for (let i = 0; i < clients.length; i++) {
      for (let n = 0; n <= i; n++) {
        const { tokens, last } = await clients[i]!.ask(`message ${n} from ${i}`);
        assert.equal(last.type, 'done');
        assert.equal(last.text, `You said: message ${n} from ${i}`);
        assert.equal(tokens, last.text);
      }
    }
    // Tools work over the chat session too; JSON prompts are accepted.
    assert.equal((await clients[0]!.ask(JSON.stringify({ text: '/clock' }))).last.text, 'Tool clock returned: noon');
    // Bad input: a clear error frame, not counted, and the session goes on.
    assert.equal((await clients[1]!.ask('{"text": 5}')).last.code, 'bad_request');
    assert.equal((await clients[1]!.ask('x'.repeat(101))).last.code, 'limit_exceeded');
    assert.equal((await clients[1]!.ask('x'.repeat(100))).last.type, 'done');

    const counts = app.module.view
      .sessions('chatty')
      .map((s) => s.messageCount)
      .sort();
    assert.deepEqual(counts, [2, 3, 3]);
    const byId = new Map(app.module.view.sessions('chatty').map((s) => [s.id, s]));
    for (const s of byId.values()) assert.ok(Date.parse(s.lastActivityAt) >= Date.parse(s.startedAt));

    for (const c of clients) await c.close();
    await waitFor(
      "app.events.filter((e) => e.type === 'AgentSessionEnded').length === 3",
      () => app.events.filter((e) => e.type === 'AgentSessionEnded').length === 3,
    );
    const ended = app.events.filter((e) => e.type === 'AgentSessionEnded');
    for (const e of ended) {
      if (e.type !== 'AgentSessionEnded') continue;
      assert.equal(e.agentName, 'chatty');
      assert.equal(e.messageCount, byId.get(e.sessionId)?.messageCount);
      assert.ok(e.durationMs >= 0);
    }
    assert.equal(app.module.view.sessions().length, 0);
    // Headless agents have no chat endpoint.
    await assert.rejects(ChatClient.connect(app, 'quiet'));
  } finally {
    for (const c of clients) c.ws.terminate();
    await app.close();
  }
});

test('the session cap refuses the connection past fw.agent.sessions.max and leaks nothing', async () => {
  const app = await startApp((m) => m.mount(Chatty), { 'fw.agent.sessions.max': 2 });
  const clients: ChatClient[] = [];
  try {
    for (let i = 0; i < 2; i++) clients.push(await ChatClient.connect(app, 'chatty'));
    await waitFor('app.module.view.sessions().length === 2', () => app.module.view.sessions().length === 2);
    const third = await ChatClient.connect(app, 'chatty');
    clients.push(third);
    await waitFor('third.closed', () => third.closed);
    assert.equal(app.module.view.sessions().length, 2);
    assert.equal(app.events.filter((e) => e.type === 'AgentSessionStarted').length, 2);
    await clients[0]!.close();
    await waitFor('app.module.view.sessions().length === 1', () => app.module.view.sessions().length === 1);
    const fourth = await ChatClient.connect(app, 'chatty');
    clients.push(fourth);
    assert.equal((await fourth.ask('hi')).last.text, 'You said: hi');
  } finally {
    for (const c of clients) c.ws.terminate();
    await app.close();
  }
});

test('a session sends its last fw.agent.sessions.history messages to the model', async () => {
  const probe = new ProbeRuntime();
  const app = await startApp((m) => m.mount(Chatty), { 'fw.agent.sessions.history': 2 }, [probe]);
  const client = await ChatClient.connect(app, 'chatty');
  try {
    for (const text of ['one', 'two', 'three']) assert.equal((await client.ask(text)).last.text, `echo: ${text}`);
    const last = probe.requests.at(-1)!.messages.map((m) => `${m.role}:${m.content}`);
    assert.deepEqual(last, ['user:two', 'assistant:echo: two', 'user:three']);
    assert.deepEqual(
      probe.requests[1]!.messages.map((m) => m.content),
      ['one', 'echo: one', 'two'],
    );
  } finally {
    client.ws.terminate();
    await app.close();
  }
});
