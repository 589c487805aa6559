import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { Framework } from '../../dist/index.js';
import { connectWs, openStream } from '../helpers.js';

function newFw(): Framework {
  const fw = new Framework({ configFile: false, env: {} });
  fw.handle('/chat/{room}', {});
  return fw;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** The app's own route answers; fw's WebSocket and SSE endpoints work beside it; close drains. */
async function exercise(port: number, fw: Framework, appPath: string, appBody: string): Promise<void> {
  const base = `http://127.0.0.1:${port}`;
  assert.equal(await (await fetch(`${base}${appPath}`)).text(), appBody);
  const ws = await connectWs(`ws://127.0.0.1:${port}/fw/chat/a?fw=1`);
  assert.equal((JSON.parse(await ws.messages.next()) as { t: string }).t, 'hs');
  const sse = await openStream(`${base}/fw/chat/a`, true);
  while (fw.runtime.stats().connections < 2) await new Promise((r) => setTimeout(r, 5));
  assert.equal(fw.runtime.broadcast('/fw/chat/a', 'hi'), 2);
  assert.equal((JSON.parse(await ws.messages.next()) as { d: string }).d, 'hi');
  assert.equal((await sse.events.next()).data, 'hi');
  assert.equal(await (await fetch(`${base}${appPath}`)).text(), appBody);
  await fw.close();
  // Graceful close: the socket ends with 1012 and no close frame (for an fw client a shutdown is a
  // drop it reconnects from, not a goodbye); the app keeps serving.
  const closed = await ws.closed;
  assert.equal(closed.code, 1012);
  assert.equal(ws.messages.buffered(), 0, 'no close frame on shutdown');
  await sse.ended;
  assert.equal(fw.runtime.stats().connections, 0);
  assert.equal(await (await fetch(`${base}${appPath}`)).text(), appBody);
}

test('attach to a plain node:http server: its own routes keep working', async () => {
  const server = createServer((req, res) => res.end(`app ${req.url}`));
  const fw = newFw();
  fw.attach(server);
  const port = await listen(server);
  try {
    await exercise(port, fw, '/hello', 'app /hello');
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test('attach to an Express 5 app', async () => {
  const app = express();
  app.get('/api/items', (_req, res) => {
    res.json({ items: [1, 2] });
  });
  const server = createServer(app);
  const fw = newFw();
  fw.attach(server);
  const port = await listen(server);
  try {
    await exercise(port, fw, '/api/items', '{"items":[1,2]}');
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test('attach to a Fastify 5 app (app.server after ready)', async () => {
  const app = Fastify();
  app.get('/status', async () => ({ ok: true }));
  await app.ready();
  const fw = newFw();
  fw.attach(app.server);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  try {
    await exercise(port, fw, '/status', '{"ok":true}');
  } finally {
    app.server.closeAllConnections();
    await app.close();
  }
});
