import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import WebSocket from 'ws';
import { Framework } from '@fw/runtime';
import { admin } from '../dist/index.js';

interface Ev {
  type: string;
  timestamp: string;
  [k: string]: unknown;
}

async function startFw(props: Record<string, unknown> = {}): Promise<{ fw: Framework; base: string; ws: string }> {
  const fw = new Framework({ configFile: false, 'fw.admin.mcp-tools': false, 'fw.heartbeat.interval': 0, ...props });
  await fw.use(admin());
  fw.handle('/chat/{room}', {});
  const { port } = await fw.listen(0, '127.0.0.1');
  return { fw, base: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${port}` };
}

/** A plain WebSocket client that collects the JSON frames it receives. */
async function consumer(
  url: string,
  headers?: Record<string, string>,
): Promise<{ socket: WebSocket; events: Ev[]; waitFor(pred: (e: Ev) => boolean): Promise<Ev> }> {
  const socket = new WebSocket(url, { headers });
  const events: Ev[] = [];
  const waiters: { pred: (e: Ev) => boolean; resolve: (e: Ev) => void }[] = [];
  socket.on('message', (data) => {
    const e = JSON.parse(String(data)) as Ev;
    events.push(e);
    for (const w of [...waiters])
      if (w.pred(e)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(e);
      }
  });
  await once(socket, 'open');
  return {
    socket,
    events,
    waitFor: (pred) => {
      const seen = events.find(pred);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ pred, resolve }));
    },
  };
}

async function refusedStatus(url: string, headers?: Record<string, string>): Promise<number> {
  const socket = new WebSocket(url, { headers });
  socket.on('error', () => undefined); // the refused handshake also surfaces as an error
  const [, res] = (await once(socket, 'unexpected-response')) as [unknown, { statusCode: number; resume(): void }];
  res.resume();
  socket.terminate();
  return res.statusCode;
}

test("a plain WebSocket client sees runtime and control events as JSON, never the admin broadcaster's own traffic", async () => {
  const { fw, base, ws } = await startFw();
  try {
    const admin = await consumer(`${ws}/fw/admin/events`);
    const chat = new WebSocket(`${ws}/fw/chat/lobby`);
    const chatMessages: string[] = [];
    chat.on('message', (d) => chatMessages.push(String(d)));
    await once(chat, 'open');
    const connected = await admin.waitFor((e) => e.type === 'ResourceConnected' && e.broadcaster === '/fw/chat/lobby');
    assert.equal(connected.transport, 'websocket');
    assert.ok(!Number.isNaN(Date.parse(connected.timestamp)));
    await admin.waitFor((e) => e.type === 'BroadcasterCreated' && e.id === '/fw/chat/lobby');

    const res = await fetch(`${base}/api/admin/broadcasters/broadcast`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ broadcasterId: '/fw/chat/lobby', message: 'hi all' }),
    });
    assert.deepEqual(await res.json(), { broadcasterId: '/fw/chat/lobby', delivered: 1 });
    const mb = await admin.waitFor((e) => e.type === 'MessageBroadcast');
    assert.equal(mb.broadcasterId, '/fw/chat/lobby');
    assert.equal(mb.resourceCount, 1);
    const cae = await admin.waitFor((e) => e.type === 'ControlActionExecuted');
    assert.deepEqual([cae.action, cae.target, cae.success, cae.principal], ['broadcast', '/fw/chat/lobby', true, null]);
    assert.deepEqual(chatMessages, ['hi all']);

    const uuid = String(connected.uuid);
    const closed = once(chat, 'close');
    await fetch(`${base}/api/admin/resources/${uuid}?reason=kicked`, { method: 'DELETE' });
    const [code, reason] = (await closed) as [number, Buffer];
    assert.equal(code, 4000);
    assert.equal(String(reason), 'kicked');
    const gone = await admin.waitFor((e) => e.type === 'ResourceDisconnected' && e.uuid === uuid);
    assert.equal(gone.reason, 'kicked');
    await admin.waitFor((e) => e.type === 'BroadcasterDestroyed' && e.id === '/fw/chat/lobby');

    const service = fw.services.get('admin')!;
    assert.ok(admin.events.every((e) => !(e.type === 'MessageBroadcast' && e.broadcasterId === service.events.broadcasterId)));
    assert.equal(service.events.stats().consumers, 1);
    const recent = (await (await fetch(`${base}/api/admin/events/recent`)).json()) as Ev[];
    assert.ok(recent.some((e) => e.type === 'ControlActionExecuted'));
    admin.socket.close();
    await once(admin.socket, 'close');
  } finally {
    await fw.close();
  }
});

test('the event stream requires the token (header or ?access_token=) and checks Origin', async () => {
  const { fw, ws } = await startFw({ 'fw.admin.auth.token': 'admin-token-0123456789' });
  try {
    assert.equal(await refusedStatus(`${ws}/fw/admin/events`), 401);
    assert.equal(await refusedStatus(`${ws}/fw/admin/events?access_token=nope`), 401);
    assert.equal(await refusedStatus(`${ws}/fw/admin/events?access_token=admin-token-0123456789`, { origin: 'https://evil.example' }), 403);
    const byQuery = await consumer(`${ws}/fw/admin/events?access_token=admin-token-0123456789`);
    const byHeader = await consumer(`${ws}/fw/admin/events`, { authorization: 'Bearer admin-token-0123456789' });
    byQuery.socket.close();
    byHeader.socket.close();
    await Promise.all([once(byQuery.socket, 'close'), once(byHeader.socket, 'close')]);
  } finally {
    await fw.close();
  }
});

test('a stalled consumer never blocks the emitter: the bounded queue drops and counts', async () => {
  const { fw, ws } = await startFw({ 'fw.admin.events.max-queue': 10 });
  try {
    const c = await consumer(`${ws}/fw/admin/events`);
    const service = fw.services.get('admin')!;
    // 50 events in one synchronous burst: the queue keeps the newest 10 until the next flush.
    for (let i = 0; i < 50; i++) fw.events.emit('BroadcasterCreated', { id: `/burst/${i}` });
    assert.equal(service.events.stats().queueDropped, 40);
    await c.waitFor((e) => e.id === '/burst/49');
    const burst = c.events.filter((e) => String(e.id).startsWith('/burst/'));
    assert.deepEqual(
      burst.map((e) => e.id),
      Array.from({ length: 10 }, (_, i) => `/burst/${40 + i}`),
    );
    const metrics = service.events.stats();
    assert.equal(metrics.queued, 0);
    c.socket.close();
    await once(c.socket, 'close');
  } finally {
    await fw.close();
  }
});
