/**
 * `send()` exactly once (issue #25), step by step: a fake server speaking just enough of the
 * protocol over real loopback WebSockets decides when to acknowledge, drop, resume or restart, so
 * each rule of docs/protocol.md *Client messages exactly once* is seen on its own; the last test
 * uses the real runtime.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { connect, type ClientError, type FwClient } from '../dist/node.js';
import { serve, until } from './helpers.js';
import { waitFor } from '@fw/testing';

const UUID_A = '00000000-0000-4000-8000-00000000000a';
const UUID_B = '00000000-0000-4000-8000-00000000000b';

interface Upstream {
  t: string;
  d: string;
  s?: number;
}

interface Fake {
  url: string;
  /** What each connection received, in order. */
  received: Upstream[][];
  sockets: WebSocket[];
  close(): Promise<void>;
}

/** Connection n (1, 2, …) gets the handshake `hello(n)` returns; `onSocket` drives it. */
async function fake(hello: (n: number) => object, onSocket: (ws: WebSocket, n: number) => void = () => {}): Promise<Fake> {
  const http = createServer((_req, res) => res.writeHead(503).end());
  const wss = new WebSocketServer({ server: http });
  const f: Fake = { url: '', received: [], sockets: [], close: async () => {} };
  wss.on('connection', (ws) => {
    const n = f.sockets.push(ws);
    const got: Upstream[] = [];
    f.received.push(got);
    ws.on('message', (m) => {
      const frame = JSON.parse(String(m)) as Upstream;
      if (frame.t !== 'hb') got.push(frame);
    });
    ws.send(JSON.stringify({ t: 'hs', transport: 'websocket', heartbeat: 0, ...hello(n) }));
    onSocket(ws, n);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  f.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/fw/x`;
  f.close = async () => {
    for (const ws of f.sockets) ws.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
    await new Promise<void>((r) => http.close(() => r()));
  };
  return f;
}

function outcome(p: Promise<void>): { value: string | undefined } {
  const o: { value: string | undefined } = { value: undefined };
  p.then(
    () => (o.value = 'taken'),
    (e: ClientError) => (o.value = e.code),
  );
  return o;
}

function client(url: string): FwClient {
  return connect(url, { transports: ['websocket'], reconnect: { minDelay: 5, maxDelay: 20 } });
}

test('send() resolves when the server acknowledges the message, not when it is written', async (t) => {
  const f = await fake(() => ({ uuid: UUID_A, resumed: false, ack: 0 }));
  const c = client(f.url);
  t.after(async () => {
    c.close();
    await f.close();
  });
  await until(c, 'open');
  const a = outcome(c.send('a'));
  await waitFor('a written', () => f.received[0]?.length === 1);
  assert.deepEqual(f.received[0], [{ t: 'm', d: 'a', s: 1 }]);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(a.value, undefined, 'written is not taken');
  f.sockets[0]!.send('{"t":"ack","s":1}');
  await waitFor('a confirmed', () => a.value === 'taken');
});

test('a resume resends exactly what the handshake does not acknowledge, with the same numbers', async (t) => {
  // Connection 1 takes three messages and dies without acknowledging; the server had taken two.
  const f = await fake(
    (n) => ({ uuid: UUID_A, resumed: n > 1, ack: n > 1 ? 2 : 0 }),
    (ws, n) => {
      if (n === 2) ws.on('message', () => ws.send('{"t":"ack","s":3}'));
    },
  );
  const c = client(f.url);
  t.after(async () => {
    c.close();
    await f.close();
  });
  await until(c, 'open');
  const sent = ['a', 'b', 'c'].map((m) => outcome(c.send(m)));
  await waitFor('three written', () => f.received[0]?.length === 3);
  f.sockets[0]!.terminate();
  await waitFor('all confirmed', () => sent.every((o) => o.value === 'taken'));
  assert.deepEqual(f.received[1], [{ t: 'm', d: 'c', s: 3 }], 'only the one not taken, numbered as before');
});

test('a fresh resource: what was sent unconfirmed is rejected send_unconfirmed, not sent twice; the rest is numbered afresh', async (t) => {
  const f = await fake(
    (n) => ({ uuid: n === 1 ? UUID_A : UUID_B, resumed: false, ack: 0 }),
    (ws, n) => {
      if (n === 2) ws.on('message', () => ws.send('{"t":"ack","s":1}'));
    },
  );
  const c = client(f.url);
  t.after(async () => {
    c.close();
    await f.close();
  });
  await until(c, 'open');
  const a = outcome(c.send('a'));
  await waitFor('a written', () => f.received[0]?.length === 1);
  f.sockets[0]!.terminate();
  await until(c, 'reconnecting');
  const b = outcome(c.send('b'));
  await waitFor('both settled', () => a.value !== undefined && b.value !== undefined);
  assert.deepEqual([a.value, b.value], ['send_unconfirmed', 'taken']);
  assert.deepEqual(f.received[1], [{ t: 'm', d: 'b', s: 1 }]);
});

test('a server that shut down (1012) acknowledged what it took: the rest goes to the next server, nothing is rejected', async (t) => {
  const f = await fake(
    (n) => ({ uuid: n === 1 ? UUID_A : UUID_B, resumed: false, ack: 0 }),
    (ws, n) => {
      if (n === 2) ws.on('message', (m) => ws.send(`{"t":"ack","s":${(JSON.parse(String(m)) as Upstream).s}}`));
    },
  );
  const c = client(f.url);
  t.after(async () => {
    c.close();
    await f.close();
  });
  await until(c, 'open');
  const sent = ['a', 'b', 'c'].map((m) => outcome(c.send(m)));
  await waitFor('three written', () => f.received[0]?.length === 3);
  // Took the first one only: its last word is the ack, then the restart.
  f.sockets[0]!.send('{"t":"ack","s":1}');
  f.sockets[0]!.close(1012, 'server shutting down');
  await waitFor('all confirmed', () => sent.every((o) => o.value !== undefined));
  assert.deepEqual(
    sent.map((o) => o.value),
    ['taken', 'taken', 'taken'],
  );
  assert.deepEqual(f.received[1], [
    { t: 'm', d: 'b', s: 1 },
    { t: 'm', d: 'c', s: 2 },
  ]);
});

test('close() rejects what the server has not taken (client_closed); a message the server refuses (413) rejects with its answer', async (t) => {
  const f = await fake(() => ({ uuid: UUID_A, resumed: false, ack: 0 }));
  const c = client(f.url);
  t.after(() => f.close());
  await until(c, 'open');
  const pending = outcome(c.send('never acknowledged'));
  c.close();
  await waitFor('rejected', () => pending.value !== undefined);
  assert.equal(pending.value, 'client_closed');

  const server = await serve({ 'fw.websocket.max-payload': 16 }, (fw) => fw.handle('/in', {}));
  t.after(() => server.close());
  const http = connect(server.url('/fw/in'), { transports: ['sse'] });
  t.after(() => http.close());
  const errors: string[] = [];
  http.onError((e) => errors.push(`${e.code} ${e.status}`));
  await until(http, 'open');
  await assert.rejects(http.send('x'.repeat(100)), (e: ClientError) => e.code === 'http_error' && e.status === 413);
  assert.deepEqual(errors, ['http_error 413']);
  await http.send('small');
});
