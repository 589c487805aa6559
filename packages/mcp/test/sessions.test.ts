import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { JSON_HEADERS, initBody, openSse, sleep, startEdge } from './helpers.js';

/** Keep-alive POST/DELETE over a small pool of sockets: fast enough for 10 000 cycles. */
function client(port: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const send = (method: string, headers: Record<string, string>, body?: string) =>
    new Promise<{ status: number; session: string | undefined; text: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method, path: '/t', agent, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, session: res.headers['mcp-session-id'] as string | undefined, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
}

function timers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

async function pool<T>(n: number, width: number, fn: (i: number) => Promise<T>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

// 10 000 real HTTP cycles: ~20 s alone, over 50 s with the whole suite on two shared cores; the
// budget is the suite's own per-test cap, not a speed claim.
test('10 000 initialize/DELETE cycles leave no sessions, streams or timers', { timeout: 170_000 }, async () => {
  const baseline = timers();
  const { fw, port, mounted } = await startEdge({ 'fw.mcp.keep-alive-interval': 1000 });
  const c = client(port);
  try {
    let streamsSeen = 0;
    await pool(10_000, 16, async (i) => {
      const init = await c.send('POST', JSON_HEADERS, initBody());
      assert.equal(init.status, 200);
      const id = init.session as string;
      if (i % 500 === 0) {
        // Some sessions also hold a GET stream when they are deleted.
        const s = await openSse(port, '/t', { accept: 'text/event-stream', 'mcp-session-id': id });
        assert.equal(s.status, 200);
        streamsSeen++;
        const del = await c.send('DELETE', { 'mcp-session-id': id });
        assert.equal(del.status, 204);
        await s.ended;
        return;
      }
      const del = await c.send('DELETE', { 'mcp-session-id': id });
      assert.equal(del.status, 204);
    });
    assert.equal(streamsSeen, 20);
    assert.deepEqual(mounted.endpoint.stats(), {
      sessions: 0,
      addresses: 0,
      evicted: { unfinished: 0, idle: 0 },
      streams: 0,
      subscriptions: 0,
      reaperRunning: false,
      keepAliveRunning: false,
      pendingClientRequests: 0,
      inflightRequests: 0,
    });
    assert.ok(timers() <= baseline, `timers: ${timers()} > ${baseline}`);
  } finally {
    c.close();
    await fw.close();
  }
});

test('10 000 abandoned sessions are reaped after fw.mcp.session-idle-timeout; then no timer is left', { timeout: 170_000 }, async () => {
  const baseline = timers();
  const { fw, port, mounted } = await startEdge({
    'fw.mcp.session-idle-timeout': 300,
    'fw.mcp.max-sessions': 10_000,
    'fw.mcp.max-sessions-per-address': 0,
  });
  const c = client(port);
  try {
    let peak = 0;
    await pool(10_000, 16, async () => {
      assert.equal((await c.send('POST', JSON_HEADERS, initBody())).status, 200);
      peak = Math.max(peak, mounted.endpoint.stats().sessions);
    });
    assert.ok(peak > 100, `peak ${peak}`);
    assert.equal(mounted.endpoint.stats().reaperRunning, true);
    for (let i = 0; i < 100 && mounted.endpoint.stats().sessions > 0; i++) await sleep(50);
    assert.deepEqual(mounted.endpoint.stats(), {
      sessions: 0,
      addresses: 0,
      evicted: { unfinished: 0, idle: 0 },
      streams: 0,
      subscriptions: 0,
      reaperRunning: false,
      keepAliveRunning: false,
      pendingClientRequests: 0,
      inflightRequests: 0,
    });
    assert.ok(timers() <= baseline, `timers: ${timers()} > ${baseline}`);
  } finally {
    c.close();
    await fw.close();
  }
});

test('fw.mcp.max-sessions with fw.mcp.evict-when-full=false: the session past the cap is refused with 503 mcp_session_limit (HTTP and WebSocket)', async () => {
  const { fw, port } = await startEdge({ 'fw.mcp.max-sessions': 3, 'fw.mcp.evict-when-full': false });
  const c = client(port);
  try {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await c.send('POST', JSON_HEADERS, initBody());
      assert.equal(r.status, 200);
      ids.push(r.session as string);
    }
    const refused = await c.send('POST', JSON_HEADERS, initBody());
    assert.equal(refused.status, 503);
    const body = JSON.parse(refused.text) as { code: string; detail: string; error: { code: number } };
    assert.equal(body.code, 'mcp_session_limit');
    assert.match(body.detail, /maximum of 3 MCP sessions, all in use \(fw\.mcp\.max-sessions\)/);
    const { WebSocket } = await import('ws');
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/t`, 'mcp');
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => undefined);
    });
    assert.equal(status, 503);
    assert.equal((await c.send('DELETE', { 'mcp-session-id': ids[0] as string })).status, 204);
    assert.equal((await c.send('POST', JSON_HEADERS, initBody())).status, 200);
  } finally {
    c.close();
    await fw.close();
  }
});

test('a session with an open GET stream is not idle; it is reaped once the stream closes', async () => {
  const { fw, port, mounted } = await startEdge({ 'fw.mcp.session-idle-timeout': 100 });
  try {
    const init = await (await import('./helpers.js')).http(port, 'POST', '/t', JSON_HEADERS, initBody());
    const id = String(init.headers['mcp-session-id']);
    const s = await openSse(port, '/t', { accept: 'text/event-stream', 'mcp-session-id': id });
    await sleep(300);
    assert.equal(mounted.endpoint.stats().sessions, 1);
    s.close();
    for (let i = 0; i < 40 && mounted.endpoint.stats().sessions > 0; i++) await sleep(25);
    assert.equal(mounted.endpoint.stats().sessions, 0);
  } finally {
    await fw.close();
  }
});
