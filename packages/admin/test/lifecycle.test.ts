/**
 * Closing with clients connected, on the three servers fw attaches to: fw.close() (the Fastify
 * plugin runs it in preClose) ends every resource as a drop — WebSockets close with 1012 (service
 * restart), SSE streams and held long-polls end with a `reconnect` frame — refuses new
 * connections meanwhile, cancels the agent runs in flight and records them cancelled in the store,
 * and the server closes within the drain timeout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import Fastify from 'fastify';
import WebSocket from 'ws';
import { Framework, MemoryLogger } from '@fw/runtime';
import { Agent, AgentModule, type AiRequest, type ModelProvider, type AiStreamPart } from '@fw/agent';
import { admin } from '../dist/index.js';
import { fwAdminPlugin } from '../dist/fastify.js';

const DRAIN = 1000;
/** Far above the drain timeout, far below the minutes an undrained SSE client would hold a close. */
const CLOSE_BOUND = DRAIN + 8000;

/** Streams a token every 20 ms until its signal aborts: a run that is in flight when close() comes. */
class Endless implements ModelProvider {
  readonly name = 'endless';
  readonly priority = 5;
  readonly capabilities = ['streaming'];
  readonly models = ['endless-1'];
  isAvailable(): boolean {
    return true;
  }
  async *stream(_r: AiRequest, signal: AbortSignal): AsyncIterable<AiStreamPart> {
    for (let i = 0; i < 100_000; i++) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, 20);
        signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
      });
      yield { type: 'text', delta: `t${i} ` };
    }
  }
}

class Writer {}
Agent({ name: 'writer', headless: true })(Writer);

async function framework(dataDir: string): Promise<Framework> {
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.admin.mcp-tools': false,
    'fw.close.drain-timeout': DRAIN,
    'fw.data-dir': dataDir,
    'fw.ai.auto': false,
    logger: new MemoryLogger(),
  });
  fw.handle('/chat/{room}', {});
  const agents = new AgentModule({ providers: [new Endless()] });
  await fw.use(agents);
  agents.mount(Writer);
  return fw;
}

interface Clients {
  wsClosed: Promise<number>;
  sseText: Promise<string>;
  pollAnswer: Promise<{ t: string }[]>;
  runText: Promise<string>;
}

async function readAll(
  body: ReadableStream<Uint8Array>,
  until?: (text: string) => boolean,
): Promise<{ text: string; rest: Promise<string> }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const more = async (stop?: (t: string) => boolean): Promise<string> => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (stop?.(text)) break;
      }
    } catch {
      // a reset also ends it
    }
    return text;
  };
  await more(until);
  return { text, rest: more() };
}

async function connectClients(fw: Framework, base: string): Promise<Clients> {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/fw/chat/lobby`);
  await once(ws, 'open');
  const wsClosed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));

  const sse = await fetch(`${base}/fw/chat/lobby?transport=sse&fw=1`);
  assert.equal(sse.status, 200);
  const sseText = (await readAll(sse.body!, (t) => t.includes('"t":"hs"'))).rest;

  // Long-polling: the first poll answers the handshake, the next one is held by the server.
  const first = (await (await fetch(`${base}/fw/chat/lobby?transport=long-polling&fw=1`)).json()) as { t: string; uuid?: string }[];
  const uuid = first.find((f) => f.t === 'hs')?.uuid;
  assert.ok(uuid, 'long-polling handshake');
  const pollAnswer = fetch(`${base}/fw/chat/lobby?transport=long-polling&fw=1&tracking=${uuid}&last=0`).then(async (r) => {
    assert.equal(r.status, 200, 'the held poll is answered, not refused');
    return (await r.json()) as { t: string }[];
  });
  for (let i = 0; i < 500 && fw.runtime.resources.get(uuid)?.connection === undefined; i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(fw.runtime.resources.get(uuid)?.connection, 'the server holds the poll');

  // An AG-UI agent run, in flight (streaming) when close() comes.
  const run = await fetch(`${base}/fw/agent/writer/agui`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      threadId: 'th-1',
      runId: 'run-1',
      messages: [{ id: 'u1', role: 'user', content: 'write forever' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    }),
  });
  assert.equal(run.status, 200);
  const runText = (await readAll(run.body!, (t) => t.includes('TEXT_MESSAGE_CONTENT'))).rest;
  return { wsClosed, sseText, pollAnswer, runText };
}

async function closesInTime(
  what: string,
  close: () => Promise<void>,
  clients: Clients,
  refusedWhileDraining: () => Promise<number>,
): Promise<void> {
  const started = Date.now();
  let done = false;
  const closing = close().then(() => (done = true));
  // While draining (refused from the moment close() begins, the port still open), a new connection gets 503.
  const refused = await refusedWhileDraining();
  assert.equal(refused, 503, `${what}: a new connection while draining got ${refused}`);
  await closing;
  const took = Date.now() - started;
  assert.ok(done);
  assert.ok(took < CLOSE_BOUND, `${what}: close took ${took} ms with clients connected`);
  assert.equal(await clients.wsClosed, 1012, `${what}: the WebSocket client was told the service restarts`);
  assert.match(
    await clients.sseText,
    /data: \{"t":"reconnect","reason":"server shutting down"\}\n\n$/,
    `${what}: the SSE stream ends with a reconnect frame`,
  );
  assert.deepEqual(
    (await clients.pollAnswer).map((f) => f.t),
    ['reconnect'],
    `${what}: the held poll is answered with a reconnect frame`,
  );
  assert.match(await clients.runText, /"type":"RUN_(FINISHED|ERROR)"/, `${what}: the agent run's stream ends`);
}

const tryConnect = (base: string) => async (): Promise<number> => {
  try {
    return (await fetch(`${base}/fw/chat/other?transport=sse`)).status;
  } catch {
    return 0;
  }
};

/** Opens the store the closed framework wrote, in a new framework, and reads the runs through the admin API. */
async function recordedRuns(dataDir: string): Promise<[string, string][]> {
  const fw = await framework(dataDir);
  await fw.use(admin());
  const { port } = await fw.listen(0, '127.0.0.1');
  try {
    const runs = (await (await fetch(`http://127.0.0.1:${port}/api/admin/runs?protocol=agui`)).json()) as { ref: string; state: string }[];
    return runs.map((r) => [r.ref, r.state]);
  } finally {
    await fw.close();
  }
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function withDataDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-lifecycle-'));
  try {
    await fn(dir);
    // Recorded by the closing process as cancelled, not left 'running' for the next start to mark 'interrupted'.
    assert.deepEqual(await recordedRuns(dir), [['run-1', 'cancelled']], 'the agent run in flight is recorded cancelled');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test(
  'node:http: fw.close() then server.close() finish within the drain timeout with WebSocket, SSE, long-polling clients and an agent run',
  { timeout: 60_000 },
  () =>
    withDataDir(async (dir) => {
      const fw = await framework(dir);
      const server = createServer((_req, res) => res.end('app'));
      fw.attach(server);
      const base = await listen(server);
      const clients = await connectClients(fw, base);
      await closesInTime(
        'node:http',
        async () => {
          await fw.close();
          await new Promise<void>((resolve) => server.close(() => resolve()));
        },
        clients,
        tryConnect(base),
      );
    }),
);

test('Express 5: the same', { timeout: 60_000 }, () =>
  withDataDir(async (dir) => {
    const fw = await framework(dir);
    const app = express();
    app.get('/hello', (_req, res) => void res.send('express'));
    const server = createServer(app);
    fw.attach(server);
    const base = await listen(server);
    const clients = await connectClients(fw, base);
    await closesInTime(
      'express',
      async () => {
        await fw.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
      clients,
      tryConnect(base),
    );
  }),
);

test('Fastify 5: app.close() drains fw in preClose, so it does not wait for the clients to leave', { timeout: 60_000 }, () =>
  withDataDir(async (dir) => {
    const fw = await framework(dir);
    const app = Fastify();
    await app.register(fwAdminPlugin, { fw, closeFramework: true });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const clients = await connectClients(fw, base);
    await closesInTime('fastify', () => app.close(), clients, tryConnect(base));
    assert.equal(fw.phase, 'closed');
  }),
);
