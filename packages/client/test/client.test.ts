/**
 * Client behaviour that needs a misbehaving server (silence, refusal, a dead port): a tiny fake
 * speaking just enough of the protocol over real loopback sockets. Everything the real runtime
 * can show is tested against it in runtime-*.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { connect, type ClientError } from '../dist/node.js';
import { until, within } from './helpers.js';
import { waitFor } from '@fw/testing';

interface Fake {
  url: string;
  upgrades: URL[];
  sockets: WebSocket[];
  close(): Promise<void>;
}

const UUID = '00000000-0000-4000-8000-000000000001';

/** A WebSocket endpoint that handshakes with `heartbeat` and then does what `onSocket` says. */
async function fakeServer(heartbeat: number, onSocket: (ws: WebSocket, n: number) => void = () => {}): Promise<Fake> {
  const http: Server = createServer((_req, res) => res.writeHead(503).end());
  const wss = new WebSocketServer({ server: http });
  const fake: Fake = { url: '', upgrades: [], sockets: [], close: async () => {} };
  wss.on('connection', (ws, req) => {
    fake.upgrades.push(new URL(req.url ?? '/', 'http://x'));
    fake.sockets.push(ws);
    ws.send(JSON.stringify({ t: 'hs', uuid: UUID, transport: 'websocket', heartbeat, resumed: fake.upgrades.length > 1 }));
    onSocket(ws, fake.upgrades.length);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/fw/x`;
  fake.close = async () => {
    for (const ws of fake.sockets) ws.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
    await new Promise<void>((r) => http.close(() => r()));
  };
  return fake;
}

async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

test('a silent connection is declared dead after heartbeatTimeout and resumed with tracking + last', async () => {
  const fake = await fakeServer(40, (ws, n) => {
    if (n === 1) ws.send(JSON.stringify({ t: 'm', id: 1, d: 'one' }));
    // then: silence, no heartbeats
  });
  const client = connect(fake.url, { transports: ['websocket'], reconnect: { minDelay: 5, maxDelay: 10 } });
  const errors: string[] = [];
  client.onError((e) => errors.push(e.code));
  const got: string[] = [];
  client.onMessage((d) => got.push(d));
  await until(client, 'open');
  await until(client, 'reconnecting');
  assert.deepEqual(errors, ['heartbeat_timeout']);
  await until(client, 'open');
  assert.equal(fake.upgrades.length, 2);
  assert.equal(fake.upgrades[0]!.searchParams.get('fw'), '1');
  assert.equal(fake.upgrades[0]!.searchParams.get('tracking'), null);
  assert.equal(fake.upgrades[1]!.searchParams.get('tracking'), UUID);
  assert.equal(fake.upgrades[1]!.searchParams.get('last'), '1');
  assert.deepEqual(got, ['one']);
  client.close();
  await fake.close();
});

test('the client sends heartbeats when it has nothing else to send, and a close code 4000 ends it for good', async () => {
  const inbound: string[] = [];
  const fake = await fakeServer(30, (ws) => {
    ws.on('message', (m) => {
      inbound.push(String(m));
      if (inbound.length === 2) ws.close(4000, 'kicked by admin');
    });
  });
  // The fake never sends heartbeats itself: no silence watch here, this test is about ours.
  const client = connect(fake.url, { transports: ['websocket'], heartbeatTimeout: 60_000, reconnect: { minDelay: 1, maxDelay: 2 } });
  const closed = within<string>(10_000, 'close', (r) => client.onClose(r));
  assert.equal(await closed, 'kicked by admin');
  assert.equal(client.state, 'closed');
  assert.deepEqual(inbound, ['{"t":"hb"}', '{"t":"hb"}']);
  assert.throws(
    () => client.send('late'),
    (e: ClientError) => e.code === 'client_closed',
  );
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(fake.upgrades.length, 1, 'no reconnect after a server close');
  await fake.close();
});

test('messages sent while connecting are queued up to maxQueue and flushed in order', async () => {
  const inbound: string[] = [];
  const fake = await fakeServer(0, (ws) => ws.on('message', (m) => inbound.push(String(m))));
  const client = connect(fake.url, { transports: ['websocket'], maxQueue: 2 });
  const sent = [client.send('a'), client.send({ b: 1 })];
  assert.throws(
    () => client.send('c'),
    (e: ClientError) => e.code === 'send_queue_full',
  );
  await until(client, 'open');
  await waitFor('two messages', () => inbound.length === 2);
  // Numbered (`s`) for deduplication; a server whose handshake has no `ack` (an older one)
  // sends no acknowledgements, so the promises resolve once the frames are handed to the socket.
  assert.deepEqual(inbound, ['{"t":"m","d":"a","s":1}', '{"t":"m","d":"{\\"b\\":1}","s":2}']);
  await Promise.all(sent);
  client.close();
  await fake.close();
});

test('every transport of every endpoint is tried per round; rounds back off; maxAttempts gives up', async () => {
  const port = await deadPort();
  const client = connect(`http://127.0.0.1:${port}/fw/x`, { reconnect: { minDelay: 1, maxDelay: 4, maxAttempts: 2 } });
  const errors: string[] = [];
  client.onError((e) => errors.push(e.code));
  const reason = await within<string>(10_000, 'give up', (r) => client.onClose(r));
  assert.equal(reason, 'gave up after 3 failed attempts');
  assert.equal(errors.length, 9, `3 rounds × 3 transports: ${errors.join(', ')}`);
  assert.ok(errors.every((c) => c === 'connection_lost'));
  assert.equal(client.state, 'closed');
});

test('failover: the next endpoint is used when the first is down', async () => {
  const fake = await fakeServer(0);
  const client = connect([`http://127.0.0.1:${await deadPort()}/fw/x`, fake.url], { transports: ['websocket'] });
  await until(client, 'open');
  assert.equal(client.url, fake.url);
  assert.equal(client.uuid, UUID);
  client.close();
  await fake.close();
});

test('a registered tool answers tool-call frames with tool-response frames; look-alike messages reach onMessage', async () => {
  const inbound: string[] = [];
  const lookAlike = JSON.stringify({ type: 'tool-call', id: 'k3', toolName: 'sum', arguments: { a: 1, b: 1 } });
  const fake = await fakeServer(0, (ws) => {
    ws.on('message', (m) => inbound.push(String(m)));
    ws.send(
      JSON.stringify({
        t: 'tool-call',
        id: 1,
        d: JSON.stringify({ type: 'tool-call', id: 'k1', toolName: 'sum', arguments: { a: 2, b: 40 } }),
      }),
    );
    ws.send(JSON.stringify({ t: 'tool-call', id: 2, d: JSON.stringify({ type: 'tool-call', id: 'k2', toolName: 'nope', arguments: {} }) }));
    ws.send(JSON.stringify({ t: 'm', id: 3, d: lookAlike }));
    // A replayed call (an id already seen) is not answered twice.
    ws.send(
      JSON.stringify({
        t: 'tool-call',
        id: 1,
        d: JSON.stringify({ type: 'tool-call', id: 'k1', toolName: 'sum', arguments: { a: 2, b: 40 } }),
      }),
    );
    ws.send(JSON.stringify({ t: 'm', id: 4, d: 'plain' }));
  });
  const client = connect(fake.url, { transports: ['websocket'] });
  client.registerTool('sum', (args) => Number(args.a) + Number(args.b));
  assert.throws(
    () => client.registerTool('sum', () => 0),
    (e: ClientError) => e.code === 'duplicate_tool',
  );
  const got: string[] = [];
  client.onMessage((d) => got.push(d));
  await waitFor('two answers and two messages', () => inbound.length === 2 && got.length === 2);
  const frames = inbound.map((f) => JSON.parse(f) as { t: string; d: string });
  assert.deepEqual(
    frames.map((f) => f.t),
    ['tool-response', 'tool-response'],
  );
  const answers = frames.map((f) => JSON.parse(f.d) as { id: string });
  assert.deepEqual(
    answers.sort((x, y) => x.id.localeCompare(y.id)),
    [
      { type: 'tool-response', id: 'k1', result: '42' },
      { type: 'tool-response', id: 'k2', error: "no handler registered for tool 'nope'" },
    ],
  );
  assert.deepEqual(got, [lookAlike, 'plain']);
  client.close();
  await fake.close();
});

test('no handshake within connectTimeout: the candidate is abandoned and the next one tried', async () => {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  const sockets: WebSocket[] = [];
  wss.on('connection', (ws) => sockets.push(ws)); // accepts, then says nothing
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/fw/x`;
  const client = connect(url, { transports: ['websocket'], connectTimeout: 100, reconnect: { minDelay: 1, maxDelay: 1, maxAttempts: 1 } });
  const errors: string[] = [];
  client.onError((e) => errors.push(e.code));
  const reason = await within<string>(10_000, 'give up', (r) => client.onClose(r));
  assert.equal(reason, 'gave up after 2 failed attempts');
  assert.deepEqual(errors, ['handshake_timeout', 'handshake_timeout']);
  assert.equal(client.uuid, undefined);
  await waitFor('abandoned sockets to close', () => sockets.every((s) => s.readyState === s.CLOSED));
  await new Promise<void>((r) => wss.close(() => r()));
  await new Promise<void>((r) => http.close(() => r()));
});

test('a frame that is not fw protocol drops the connection (protocol_error) and the client resumes', async () => {
  const fake = await fakeServer(0, (ws, n) => {
    if (n === 1) ws.send('<html>not a frame</html>');
    else ws.send(JSON.stringify({ t: 'm', id: 1, d: 'after' }));
  });
  const client = connect(fake.url, { transports: ['websocket'], reconnect: { minDelay: 1, maxDelay: 2 } });
  const errors: string[] = [];
  client.onError((e) => errors.push(e.code));
  const got = within<string>(10_000, 'a message', (r) => client.onMessage(r));
  assert.equal(await got, 'after');
  assert.deepEqual(errors, ['protocol_error']);
  assert.equal(fake.upgrades[1]?.searchParams.get('tracking'), UUID);
  client.close();
  await fake.close();
});

test('a server that refuses the resume parameters (400 invalid_query) gets a fresh connection instead', async () => {
  const requests: URL[] = [];
  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url);
    if (url.searchParams.has('tracking')) {
      res.writeHead(400, { 'content-type': 'application/problem+json' });
      return res.end(
        JSON.stringify({ status: 400, code: 'invalid_query', title: 'Bad Request', detail: "query parameter 'last' is ahead" }),
      );
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify({ t: 'hs', uuid: UUID, transport: 'sse', heartbeat: 0, resumed: false })}\n\n`);
    res.write(`id: 1\ndata: ${JSON.stringify({ t: 'm', id: 1, d: `hello ${requests.length}` })}\n\n`);
    if (requests.length === 1) res.end(); // a dropped stream: the client will try to resume
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const client = connect(`http://127.0.0.1:${(http.address() as AddressInfo).port}/fw/x`, {
    transports: ['sse'],
    reconnect: { minDelay: 1, maxDelay: 2 },
  });
  const errors: string[] = [];
  client.onError((e) => errors.push(`${e.code}${e.status ? ` ${e.status}` : ''}`));
  const got: string[] = [];
  await within(10_000, 'two messages', (resolve) => client.onMessage((d) => got.push(d) === 2 && resolve()));
  assert.deepEqual(got, ['hello 1', 'hello 3']);
  assert.deepEqual(errors, ['connection_lost', 'http_error 400']);
  assert.equal(requests[1]?.searchParams.get('tracking'), UUID);
  assert.equal(requests[2]?.searchParams.get('tracking'), null);
  client.close();
  http.closeAllConnections();
  await new Promise<void>((r) => http.close(() => r()));
});
