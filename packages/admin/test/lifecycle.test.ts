/**
 * Closing with clients connected, on the three servers fw attaches to: fw.close() (the Fastify
 * plugin runs it in preClose) ends every resource as a drop — WebSockets close with 1001, SSE
 * streams end — refuses new connections meanwhile, and the server closes within the drain timeout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import WebSocket from 'ws';
import { Framework } from '@fw/runtime';
import { fwAdminPlugin } from '../src/fastify.js';

const DRAIN = 1000;
/** Far above the drain timeout, far below the minutes an undrained SSE client would hold a close. */
const CLOSE_BOUND = DRAIN + 8000;

function framework(): Framework {
  const fw = new Framework({ configFile: false, env: {}, 'fw.data-dir': '', 'fw.admin.mcp-tools': false, 'fw.close.drain-timeout': DRAIN });
  fw.handle('/chat/{room}', {});
  return fw;
}

interface Clients {
  wsClosed: Promise<number>;
  sseEnded: Promise<void>;
}

async function connectClients(base: string): Promise<Clients> {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/fw/chat/lobby`);
  await once(ws, 'open');
  const wsClosed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  const sse = await fetch(`${base}/fw/chat/lobby?transport=sse`);
  assert.equal(sse.status, 200);
  const reader = sse.body!.getReader();
  const sseEnded = (async () => {
    try {
      while (!(await reader.read()).done) { /* drain until the server ends the stream */ }
    } catch {
      // a reset also ends it
    }
  })();
  return { wsClosed, sseEnded };
}

async function closesInTime(what: string, close: () => Promise<void>, clients: Clients, refusedWhileDraining: () => Promise<number>): Promise<void> {
  const started = Date.now();
  let done = false;
  const closing = close().then(() => (done = true));
  // While draining, a new connection is refused (or the port is already gone).
  const refused = await refusedWhileDraining();
  assert.ok(refused === 503 || refused === 0, `${what}: a new connection while draining got ${refused}`);
  await closing;
  const took = Date.now() - started;
  assert.ok(done);
  assert.ok(took < CLOSE_BOUND, `${what}: close took ${took} ms with clients connected`);
  assert.equal(await clients.wsClosed, 1001, `${what}: the WebSocket client was told the server is going away`);
  await clients.sseEnded;
}

const tryConnect = (base: string) => async (): Promise<number> => {
  try {
    return (await fetch(`${base}/fw/chat/other?transport=sse`)).status;
  } catch {
    return 0;
  }
};

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('node:http: fw.close() then server.close() finish within the drain timeout with WebSocket and SSE clients connected', { timeout: 30_000 }, async () => {
  const fw = framework();
  const server = createServer((_req, res) => res.end('app'));
  fw.attach(server);
  const base = await listen(server);
  const clients = await connectClients(base);
  await closesInTime('node:http', async () => {
    await fw.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }, clients, tryConnect(base));
});

test('Express 5: the same', { timeout: 30_000 }, async () => {
  const fw = framework();
  const app = express();
  app.get('/hello', (_req, res) => void res.send('express'));
  const server = createServer(app);
  fw.attach(server);
  const base = await listen(server);
  const clients = await connectClients(base);
  await closesInTime('express', async () => {
    await fw.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }, clients, tryConnect(base));
});

test('Fastify 5: app.close() drains fw in preClose, so it does not wait for the clients to leave', { timeout: 30_000 }, async () => {
  const fw = framework();
  const app = Fastify();
  await app.register(fwAdminPlugin, { fw, closeFramework: true });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const clients = await connectClients(base);
  await closesInTime('fastify', () => app.close(), clients, tryConnect(base));
  assert.equal(fw.phase, 'closed');
});
