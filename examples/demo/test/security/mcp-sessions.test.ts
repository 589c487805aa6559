/**
 * Attack (issue 11 item 9): MCP session exhaustion against the demo with its default
 * configuration. One address sends 2000 `initialize`s and never finishes them; a client from
 * another address (the client socket bound to 127.0.0.2) must still get a working session. The
 * per-address cap answers 429 `mcp_address_session_limit` once every session of an address is in
 * use. Nothing leaks: the session count stays bounded, and closing leaves no session or timer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request, type IncomingMessage } from 'node:http';
import { mountedServers } from '@fw/mcp';
import { startDemo } from '../../src/main.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'attack', version: '0' } },
});

interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
}

function send(
  port: number,
  options: { from: string; agent?: Agent },
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method,
        localAddress: options.from,
        agent: options.agent ?? false,
        headers: { host: `127.0.0.1:${port}`, ...headers },
      },
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

/** Opens a GET stream and resolves once its headers arrived; `close()` ends it. */
function hold(port: number, from: string, id: string): Promise<{ status: number; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'GET',
        localAddress: from,
        agent: false,
        headers: { host: `127.0.0.1:${port}`, accept: 'text/event-stream', 'mcp-session-id': id },
      },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
      },
    );
    req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
    req.end();
  });
}

async function finish(port: number, from: string, id: string): Promise<void> {
  const r = await send(
    port,
    { from },
    'POST',
    { ...JSON_HEADERS, 'mcp-session-id': id },
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  );
  assert.equal(r.status, 202);
}

function timers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

test('2000 unfinished initialize from 127.0.0.1 do not lock out 127.0.0.2; the per-address cap answers 429 at its edge; nothing leaks', {
  timeout: 120_000,
}, async () => {
  const baseline = timers();
  const demo = await startDemo({ port: 0, host: '127.0.0.1' });
  const port = Number(new URL(demo.url).port);
  const endpoint = mountedServers(demo.fw).find((m) => m.endpoint.path === '/mcp')!.endpoint;
  const perAddress = demo.fw.config.get('fw.mcp.max-sessions-per-address');
  const maxSessions = demo.fw.config.get('fw.mcp.max-sessions');
  assert.ok(perAddress > 0 && perAddress < maxSessions, 'the defaults under test');
  const attacker = new Agent({ keepAlive: true, maxSockets: 16 });
  const held: { close: () => void }[] = [];
  try {
    let accepted = 0;
    let peak = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < 2000) {
          next++;
          const r = await send(port, { from: '127.0.0.1', agent: attacker }, 'POST', JSON_HEADERS, INIT);
          assert.equal(r.status, 200, r.text);
          accepted++;
          peak = Math.max(peak, endpoint.sessionCount);
        }
      }),
    );
    assert.equal(accepted, 2000);
    assert.ok(peak <= perAddress, `one address never held more than ${perAddress} sessions (peak ${peak})`);

    // The client from another address gets a session that works.
    const init = await send(port, { from: '127.0.0.2' }, 'POST', JSON_HEADERS, INIT);
    assert.equal(init.status, 200, init.text);
    const id = String(init.headers['mcp-session-id']);
    await finish(port, '127.0.0.2', id);
    const tools = await send(
      port,
      { from: '127.0.0.2' },
      'POST',
      { ...JSON_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    assert.equal(tools.status, 200);
    assert.ok((JSON.parse(tools.text) as { result: { tools: unknown[] } }).result.tools.length > 0);

    // The per-address cap at its edge: 127.0.0.3 holds `perAddress` sessions, each in use (a GET
    // stream open); one more is refused with a clear error, while 127.0.0.2 still gets one.
    for (let i = 0; i < perAddress; i++) {
      const r = await send(port, { from: '127.0.0.3' }, 'POST', JSON_HEADERS, INIT);
      assert.equal(r.status, 200, `session ${i + 1} of ${perAddress}`);
      const sid = String(r.headers['mcp-session-id']);
      await finish(port, '127.0.0.3', sid);
      const stream = await hold(port, '127.0.0.3', sid);
      assert.equal(stream.status, 200);
      held.push(stream);
    }
    const refused = await send(port, { from: '127.0.0.3' }, 'POST', JSON_HEADERS, INIT);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '5');
    assert.match(refused.headers['content-type'] ?? '', /^application\/problem\+json/);
    const body = JSON.parse(refused.text) as { code: string; detail: string; error: { code: number; message: string } };
    assert.equal(body.code, 'mcp_address_session_limit');
    assert.match(body.detail, new RegExp(`already holds ${perAddress} MCP sessions in use \\(fw\\.mcp\\.max-sessions-per-address\\)`));
    assert.equal(body.error.code, -32000);
    assert.equal((await send(port, { from: '127.0.0.2' }, 'POST', JSON_HEADERS, INIT)).status, 200);
    assert.ok(endpoint.sessionCount <= 2 * perAddress + 2, `sessions stay bounded (${endpoint.sessionCount})`);
  } finally {
    for (const h of held) h.close();
    attacker.destroy();
    await demo.close();
  }
  assert.equal(endpoint.stats().sessions, 0);
  assert.equal(endpoint.stats().addresses, 0);
  assert.equal(endpoint.stats().reaperRunning, false);
  assert.equal(endpoint.stats().keepAliveRunning, false);
  assert.ok(timers() <= baseline, `timers: ${timers()} > ${baseline}`);
});
