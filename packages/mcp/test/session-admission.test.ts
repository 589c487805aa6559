/**
 * MCP sessions under attack (issue 11 item 9): at `fw.mcp.max-sessions` and at
 * `fw.mcp.max-sessions-per-address`, sessions that never finished initialization give way first,
 * then idle ones; sessions in use are never evicted, and the refusal at each edge is a clear
 * error. Real sockets; distinct client addresses come from binding the client socket to other
 * loopback addresses (127.0.0.2, …), or from a trusted proxy's forwarded address.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';
import { JSON_HEADERS, initBody, openSse, rpc, startEdge, type SseHandle } from './helpers.js';

interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
}

/** One request from `from` (a loopback address the client socket is bound to). */
function send(port: number, from: string, method: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path: '/t', localAddress: from, agent: false, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function initialize(
  port: number,
  from: string,
  finish: boolean,
  extra: Record<string, string> = {},
): Promise<Reply & { id: string }> {
  const r = await send(port, from, 'POST', { ...JSON_HEADERS, ...extra }, initBody());
  const id = String(r.headers['mcp-session-id'] ?? '');
  if (r.status === 200 && finish) {
    const done = await send(
      port,
      from,
      'POST',
      { ...JSON_HEADERS, ...extra, 'mcp-session-id': id },
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    );
    assert.equal(done.status, 202);
  }
  return { ...r, id };
}

async function alive(port: number, from: string, id: string, extra: Record<string, string> = {}): Promise<number> {
  return (
    await send(port, from, 'POST', { ...JSON_HEADERS, ...extra, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }, rpc('ping'))
  ).status;
}

function stream(port: number, id: string): Promise<SseHandle> {
  return openSse(port, '/t', { accept: 'text/event-stream', 'mcp-session-id': id });
}

function problem(r: Reply): { code: string; detail: string; jsonrpc: string; error: { code: number; message: string } } {
  return JSON.parse(r.text) as never;
}

test('max-sessions: an unfinished session gives way first, then the longest-idle one; sessions in use never', async () => {
  const { fw, port, mounted } = await startEdge({ 'fw.mcp.max-sessions': 3, 'fw.mcp.max-sessions-per-address': 0 });
  const streams: SseHandle[] = [];
  try {
    const a = await initialize(port, '127.0.0.1', true);
    const b = await initialize(port, '127.0.0.1', true);
    const unfinished = await initialize(port, '127.0.0.1', false);
    assert.equal(unfinished.status, 200);
    // Touch a after b: b is now the longest idle.
    assert.equal(await alive(port, '127.0.0.1', a.id), 200);

    const c = await initialize(port, '127.0.0.2', true);
    assert.equal(c.status, 200, 'room was made');
    assert.equal(await alive(port, '127.0.0.1', unfinished.id), 404, 'the unfinished session went first');
    assert.equal(await alive(port, '127.0.0.1', b.id), 200, 'the finished ones stayed');
    assert.deepEqual(mounted.endpoint.stats().evicted, { unfinished: 1, idle: 0 });

    // Now all three are finished: the longest idle (a; b and c were just used) gives way.
    assert.equal(await alive(port, '127.0.0.2', c.id), 200);
    const d = await initialize(port, '127.0.0.3', true);
    assert.equal(d.status, 200);
    assert.equal(await alive(port, '127.0.0.1', a.id), 404, 'the longest-idle session went');
    assert.deepEqual(mounted.endpoint.stats().evicted, { unfinished: 1, idle: 1 });

    // In use (a GET stream open on each): nothing gives way; 503 with a JSON-RPC error body.
    for (const id of [b.id, c.id, d.id]) streams.push(await stream(port, id));
    const refused = await initialize(port, '127.0.0.4', true);
    assert.equal(refused.status, 503);
    assert.equal(refused.headers['retry-after'], '5');
    const body = problem(refused);
    assert.equal(body.code, 'mcp_session_limit');
    assert.match(body.detail, /maximum of 3 MCP sessions, all in use \(fw\.mcp\.max-sessions\)/);
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.error.code, -32000);
    const upgrade = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/t`, 'mcp', { localAddress: '127.0.0.4' });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => undefined);
    });
    assert.equal(upgrade, 503);
    assert.equal(mounted.endpoint.stats().sessions, 3);
  } finally {
    for (const s of streams) s.close();
    await fw.close();
  }
  assert.equal(mounted.endpoint.stats().sessions, 0);
  assert.equal(mounted.endpoint.stats().addresses, 0);
});

test('max-sessions-per-address: at the cap the address gives way itself; all in use is 429 mcp_address_session_limit; others are unaffected', async () => {
  const { fw, port, mounted } = await startEdge({ 'fw.mcp.max-sessions-per-address': 2 });
  const streams: SseHandle[] = [];
  try {
    const first = await initialize(port, '127.0.0.1', false);
    const second = await initialize(port, '127.0.0.1', true);
    const third = await initialize(port, '127.0.0.1', true);
    assert.equal(third.status, 200);
    assert.equal(await alive(port, '127.0.0.1', first.id), 404, "the address's own unfinished session gave way");
    assert.equal(await alive(port, '127.0.0.1', second.id), 200);
    streams.push(await stream(port, second.id), await stream(port, third.id));

    const refused = await initialize(port, '127.0.0.1', true);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '5');
    const body = problem(refused);
    assert.equal(body.code, 'mcp_address_session_limit');
    assert.match(body.detail, /already holds 2 MCP sessions in use \(fw\.mcp\.max-sessions-per-address\)/);
    assert.equal(body.error.code, -32000);

    const ws = await new Promise<number>((resolve) => {
      const s = new WebSocket(`ws://127.0.0.1:${port}/t`, 'mcp', { localAddress: '127.0.0.1' });
      s.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      s.on('open', () => resolve(101));
      s.on('error', () => undefined);
    });
    assert.equal(ws, 429, 'WebSocket sessions count against the same cap');

    const other = await initialize(port, '127.0.0.2', true);
    assert.equal(other.status, 200, 'another address is not affected');

    // A stream closes: that session is idle now and gives way.
    streams.shift()!.close();
    await new Promise<void>((resolve) => {
      const check = (): void => (mounted.endpoint.stats().streams === 1 ? resolve() : void setTimeout(check, 5));
      check();
    });
    const again = await initialize(port, '127.0.0.1', true);
    assert.equal(again.status, 200);
    assert.equal(await alive(port, '127.0.0.1', second.id), 404);
    assert.equal(await alive(port, '127.0.0.1', third.id), 200);
  } finally {
    for (const s of streams) s.close();
    await fw.close();
  }
  assert.deepEqual(
    { sessions: mounted.endpoint.stats().sessions, addresses: mounted.endpoint.stats().addresses },
    { sessions: 0, addresses: 0 },
  );
});

test("per-address cap uses the runtime's client address: a trusted proxy's forwarded address counts, the proxy's own does not", async () => {
  // fw.security.trusted-proxies: X-Forwarded-For is believed only from 127.0.0.9.
  const { fw, port } = await startEdge({
    'fw.mcp.max-sessions-per-address': 1,
    'fw.mcp.evict-when-full': false,
    'fw.security.trusted-proxies': '127.0.0.9',
  });
  try {
    const viaProxyA = await initialize(port, '127.0.0.9', true, { 'x-forwarded-for': '203.0.113.1' });
    const viaProxyB = await initialize(port, '127.0.0.9', true, { 'x-forwarded-for': '203.0.113.2' });
    assert.equal(viaProxyA.status, 200);
    assert.equal(viaProxyB.status, 200, 'two clients behind one proxy are two addresses');
    const againA = await initialize(port, '127.0.0.9', true, { 'x-forwarded-for': '203.0.113.1' });
    assert.equal(againA.status, 429, 'the forwarded address is capped');
    // A client that is not the proxy cannot choose its address by sending the header.
    const direct = await initialize(port, '127.0.0.3', true, { 'x-forwarded-for': '203.0.113.77' });
    assert.equal(direct.status, 200);
    const directAgain = await initialize(port, '127.0.0.3', true, { 'x-forwarded-for': '203.0.113.78' });
    assert.equal(directAgain.status, 429, 'the spoofed header does not buy a fresh address');
  } finally {
    await fw.close();
  }
});

test('an unfinished WebSocket session gives way too: its socket is closed', async () => {
  const { fw, port, mounted } = await startEdge({ 'fw.mcp.max-sessions': 1, 'fw.mcp.max-sessions-per-address': 0 });
  try {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/t`, 'mcp');
    await new Promise((r) => ws.once('open', r));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    const http = await initialize(port, '127.0.0.2', true);
    assert.equal(http.status, 200);
    assert.equal(await closed, 1001);
    assert.equal(mounted.endpoint.stats().sessions, 1);
  } finally {
    await fw.close();
  }
});
