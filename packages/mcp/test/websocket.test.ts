import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as connectRaw } from 'node:net';
import { WebSocket } from 'ws';
import { initBody, notOnBun, onBun, rpc, sleep, startEdge } from './helpers.js';

function connect(
  port: number,
  protocols: string | string[] = 'mcp',
  headers: Record<string, string> = {},
): Promise<{ ws: WebSocket; next(): Promise<Record<string, unknown> | Record<string, unknown>[]> } | { status: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/t`, protocols, { headers });
    const queue: unknown[] = [];
    const waiting: ((v: unknown) => void)[] = [];
    ws.on('message', (d) => {
      const v = JSON.parse(d.toString()) as unknown;
      const w = waiting.shift();
      if (w) w(v);
      else queue.push(v);
    });
    ws.on('open', () =>
      resolve({ ws, next: () => new Promise((r) => (queue.length ? r(queue.shift() as never) : waiting.push(r as never))) }),
    );
    ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0 }));
    ws.on('error', () => undefined);
  });
}

async function open(port: number, headers: Record<string, string> = {}) {
  const c = await connect(port, 'mcp', headers);
  if ('status' in c) throw new Error(`upgrade refused: ${c.status}`);
  return c;
}

test('WebSocket: subprotocol mcp, initialize then calls; a request before initialize is refused', async () => {
  const { fw, port, mounted } = await startEdge();
  try {
    const c = await open(port);
    assert.equal(c.ws.protocol, 'mcp');
    c.ws.send(rpc('tools/list', {}, 1));
    assert.equal(((await c.next()) as { error: { code: number } }).error.code, -32600);
    c.ws.send(initBody('2025-06-18', 2));
    const init = (await c.next()) as { result: { protocolVersion: string; serverInfo: { name: string } } };
    assert.equal(init.result.protocolVersion, '2025-06-18');
    assert.equal(init.result.serverInfo.name, 'edge');
    c.ws.send(initBody('2025-06-18', 3));
    assert.equal(((await c.next()) as { error: { code: number } }).error.code, -32600);
    c.ws.send(rpc('tools/call', { name: 'echo', arguments: { text: 'over ws' } }, 4));
    assert.deepEqual(((await c.next()) as { result: { content: unknown } }).result.content, [{ type: 'text', text: 'over ws' }]);
    c.ws.send('not json');
    assert.equal(((await c.next()) as { error: { code: number } }).error.code, -32700);
    assert.equal(mounted.endpoint.stats().sessions, 1);
    c.ws.close();
    for (let i = 0; i < 40 && mounted.endpoint.stats().sessions > 0; i++) await sleep(10);
    assert.equal(mounted.endpoint.stats().sessions, 0, 'closing the socket ends the session');
  } finally {
    await fw.close();
  }
});

test('WebSocket: batches on 2025-03-26 only', async () => {
  const { fw, port } = await startEdge();
  try {
    const old = await open(port);
    old.ws.send(initBody('2025-03-26', 1));
    await old.next();
    old.ws.send(`[${rpc('ping', {}, 'a')},${rpc('tools/list', {}, 'b')}]`);
    const answers = (await old.next()) as { id: string }[];
    assert.deepEqual(answers.map((a) => a.id).sort(), ['a', 'b']);
    const recent = await open(port);
    recent.ws.send(initBody('2025-11-25', 1));
    await recent.next();
    recent.ws.send(`[${rpc('ping', {}, 'a')}]`);
    assert.equal(((await recent.next()) as { error: { code: number } }).error.code, -32600);
    old.ws.close();
    recent.ws.close();
  } finally {
    await fw.close();
  }
});

test('WebSocket: another subprotocol is refused (400); a foreign Origin is refused (403)', async () => {
  const { fw, port } = await startEdge();
  try {
    assert.deepEqual(await connect(port, 'graphql-ws'), { status: 400 });
    assert.deepEqual(await connect(port, 'mcp', { origin: 'http://evil.example' }), { status: 403 });
  } finally {
    await fw.close();
  }
});

test('WebSocket: a message over fw.mcp.max-body closes the socket with 1009; the session ends', async () => {
  const { fw, port, mounted } = await startEdge({ 'fw.mcp.max-body': 1024 });
  try {
    const c = await open(port);
    c.ws.send(initBody('2025-06-18', 1));
    await c.next();
    const code = new Promise<number>((r) => c.ws.on('close', (cc) => r(cc)));
    c.ws.send(rpc('tools/call', { name: 'echo', arguments: { text: 'x'.repeat(2000) } }, 2));
    assert.equal(await code, 1009);
    for (let i = 0; i < 40 && mounted.endpoint.stats().sessions > 0; i++) await sleep(10);
    assert.equal(mounted.endpoint.stats().sessions, 0);
  } finally {
    await fw.close();
  }
});

test(
  'WebSocket: a message in fw.websocket.max-fragments frames is answered; one frame more closes with 1008',
  notOnBun(
    'Bun reassembles fragmented messages itself, bounded by fw.websocket.max-payload; fw.websocket.max-fragments applies to node:http only',
  ),
  async () => {
    const { fw, port, mounted } = await startEdge({ 'fw.websocket.max-fragments': 4 });
    try {
      const c = await open(port);
      const send = (text: string, frames: number): void => {
        const size = Math.ceil(text.length / frames);
        for (let i = 0; i < frames; i++) c.ws.send(text.slice(i * size, (i + 1) * size), { fin: i === frames - 1 });
      };
      send(initBody('2025-06-18', 1), 4);
      assert.equal(Array.isArray(await c.next()), false);
      const code = new Promise<number>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('the server did not close the socket within 10 s')), 10_000);
        c.ws.on('close', (cc) => {
          clearTimeout(t);
          resolve(cc);
        });
      });
      send(rpc('tools/list', {}, 2), 5);
      assert.equal(await code, 1008);
      for (let i = 0; i < 200 && mounted.endpoint.stats().sessions > 0; i++) await sleep(10);
      assert.equal(mounted.endpoint.stats().sessions, 0);
    } finally {
      await fw.close();
    }
  },
);

test('WebSocket: a message is bounded by the smaller of fw.mcp.max-body and, on Bun.serve, fw.websocket.max-payload', async () => {
  // On node:http the MCP socket has its own limit (fw.mcp.max-body); Bun.serve has one limit for
  // every WebSocket (fw.websocket.max-payload), so there the smaller of the two applies (docs/bun.md).
  const { fw, port, mounted } = await startEdge({ 'fw.mcp.max-body': 4096, 'fw.websocket.max-payload': 2048 });
  try {
    const c = await open(port);
    c.ws.send(initBody('2025-06-18', 1));
    assert.equal(((await c.next()) as { result: { protocolVersion: string } }).result.protocolVersion, '2025-06-18');
    // 3 KB: within fw.mcp.max-body, over fw.websocket.max-payload.
    const closed = new Promise<number>((resolve) => c.ws.on('close', (code) => resolve(code)));
    c.ws.send(rpc('tools/call', { name: 'echo', arguments: { text: 'x'.repeat(3000) } }, 2));
    if (onBun) assert.equal(await closed, 1009);
    else {
      const answer = (await c.next()) as { result: { content: { text: string }[] } };
      assert.equal(answer.result.content[0]?.text.length, 3000);
      c.ws.close();
      await closed;
    }
    for (let i = 0; i < 200 && mounted.endpoint.stats().sessions > 0; i++) await sleep(10);
    assert.equal(mounted.endpoint.stats().sessions, 0, 'the session ends with its socket');
  } finally {
    await fw.close();
  }
});

test('WebSocket: the principal resolver sees the upgrade request', async () => {
  const { fw, port } = await startEdge(
    {},
    { principalResolver: (req) => (req.headers.authorization ? { id: req.headers.authorization.replace('Bearer ', '') } : undefined) },
  );
  try {
    const c = await open(port, { authorization: 'Bearer bob' });
    c.ws.send(initBody('2025-06-18', 1));
    await c.next();
    c.ws.send(rpc('tools/call', { name: 'whoami', arguments: {} }, 2));
    assert.deepEqual(((await c.next()) as { result: { content: unknown } }).result.content, [{ type: 'text', text: 'bob' }]);
    c.ws.close();
  } finally {
    await fw.close();
  }
});

test('WebSocket: a client that leaves while its upgrade is admitted gives its session place back', async () => {
  // At fw.mcp.max-sessions 1, a place kept for a client gone mid-admission would refuse the next one (503).
  const { fw, port, mounted } = await startEdge(
    { 'fw.mcp.max-sessions': 1 },
    { principalResolver: async () => (await sleep(150), undefined) },
  );
  try {
    for (const leaveAfter of [20, 200]) {
      const socket = connectRaw(port, '127.0.0.1').on('error', () => undefined);
      socket.write(
        'GET /t HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: mcp\r\n\r\n',
      );
      await sleep(leaveAfter);
      socket.destroy();
    }
    await sleep(400);
    const c = await open(port);
    c.ws.send(initBody('2025-06-18', 1));
    assert.equal(((await c.next()) as { result: { protocolVersion: string } }).result.protocolVersion, '2025-06-18');
    assert.equal(mounted.endpoint.stats().sessions, 1);
    c.ws.close();
  } finally {
    await fw.close();
  }
});

test('fw.mcp.max-inflight-requests: the request past the limit gets -32000; at the limit they run', async () => {
  const { fw, port } = await startEdge({ 'fw.mcp.max-inflight-requests': 2 });
  try {
    const c = await open(port);
    c.ws.send(initBody('2025-06-18', 1));
    await c.next();
    c.ws.send(rpc('tools/call', { name: 'slow', arguments: {} }, 'slow-1'));
    c.ws.send(rpc('tools/call', { name: 'slow', arguments: {} }, 'slow-2'));
    c.ws.send(rpc('tools/call', { name: 'echo', arguments: { text: 'third' } }, 'third'));
    const refused = (await c.next()) as { id: string; error: { code: number; message: string } };
    assert.equal(refused.id, 'third');
    assert.equal(refused.error.code, -32000);
    assert.match(refused.error.message, /fw\.mcp\.max-inflight-requests = 2/);
    for (const id of ['slow-1', 'slow-2'])
      c.ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } }));
    await sleep(20);
    c.ws.send(rpc('tools/call', { name: 'echo', arguments: { text: 'room again' } }, 'fourth'));
    assert.deepEqual(((await c.next()) as { result: { content: unknown } }).result.content, [{ type: 'text', text: 'room again' }]);
    c.ws.close();
  } finally {
    await fw.close();
  }
});

test('fw.mcp.client-request-timeout: a server-to-client request the client never answers fails the tool with -32001', async () => {
  const { fw, port, mounted } = await startEdge({ 'fw.mcp.client-request-timeout': 150 });
  try {
    const c = await open(port);
    c.ws.send(initBody('2025-06-18', 1));
    await c.next();
    c.ws.send(rpc('tools/call', { name: 'ask', arguments: {} }, 2));
    const asked = (await c.next()) as { id: string; method: string };
    assert.equal(asked.method, 'sampling/createMessage');
    assert.equal(mounted.endpoint.stats().pendingClientRequests, 1);
    const answer = (await c.next()) as { id: number; error: { code: number; message: string } };
    assert.equal(answer.id, 2);
    assert.equal(answer.error.code, -32001);
    assert.match(answer.error.message, /did not answer sampling\/createMessage within 150 ms/);
    assert.equal(mounted.endpoint.stats().pendingClientRequests, 0);
    // Answered in time, the result reaches the tool.
    c.ws.send(rpc('tools/call', { name: 'ask', arguments: {} }, 3));
    const again = (await c.next()) as { id: string };
    c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: again.id, result: { role: 'assistant', content: { type: 'text', text: 'sampled' } } }));
    assert.match(JSON.stringify(await c.next()), /sampled/);
    c.ws.close();
  } finally {
    await fw.close();
  }
});
