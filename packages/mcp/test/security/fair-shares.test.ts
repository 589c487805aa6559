/**
 * Issue #24: one client took a whole global MCP limit (all 1,000 `subscriptions/listen` streams
 * from one loopback client; the next client got 503). Every MCP cap is now shared out: an
 * authenticated principal holds at most `<cap>-per-principal`, anonymous callers of one address
 * group (an IPv4 address, an IPv6 /64) at most `<cap>-per-address`, and past its share a caller
 * gets 429 naming the key while everyone else is still served. Distinct client addresses come
 * from binding the client socket to 127.0.0.x, or from a trusted proxy's X-Forwarded-For.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type ClientRequest } from 'node:http';
import { connect } from '@fw/client/node';
import { Framework, frameworkAuthenticator, type Resource } from '@fw/runtime';
import { waitFor } from '@fw/testing';
import { BiDirectionalToolBridge, BridgeLimitError } from '../../dist/index.js';
import {
  ALICE,
  BOB,
  bearer,
  CONFIGS,
  JSON_HEADERS,
  legacySession,
  MODERN,
  modernMeta,
  modernPost,
  openSocket,
  send,
  startServer,
  TASKS_EXTENSION,
  TOKENS,
} from './support.js';

interface Listen {
  status: number;
  body: string;
  req: ClientRequest;
}

/** Opens a `subscriptions/listen` stream; resolves once its status (and, for a refusal, its body) is in. */
function listen(port: number, token: string | undefined, from: string, headers: Record<string, string> = {}): Promise<Listen> {
  return new Promise((resolve, reject) => {
    const params = { notifications: { toolsListChanged: true }, _meta: modernMeta() };
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/mcp',
        localAddress: from,
        agent: false,
        headers: {
          host: `127.0.0.1:${port}`,
          ...JSON_HEADERS,
          'mcp-protocol-version': MODERN,
          'mcp-method': 'subscriptions/listen',
          ...bearer(token),
          ...headers,
        },
      },
      (res) => {
        if (res.statusCode === 200) {
          res.once('data', () => resolve({ status: 200, body: '', req }));
          return;
        }
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, req }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 'l', method: 'subscriptions/listen', params }));
  });
}

for (const config of CONFIGS) {
  const authenticated = config.tokens.alice !== undefined;
  const share = authenticated ? 'principal' : 'address';
  test(`${config.name}: subscriptions/listen with the defaults: one client holds its 100 streams (fw.mcp.max-subscriptions-per-${share}), the 101st is 429; another client still listens`, async () => {
    const server = await startServer(config.options);
    const open: Listen[] = [];
    try {
      for (let i = 0; i < 100; i++) {
        const l = await listen(server.port, config.tokens.alice, '127.0.0.1');
        assert.equal(l.status, 200, `stream ${i + 1}`);
        open.push(l);
      }
      const refused = await listen(server.port, config.tokens.alice, '127.0.0.1');
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.req.getHeader('retry-after') ?? 1) >= 0);
      const body = JSON.parse(refused.body) as { error: { code: number; message: string; data: Record<string, unknown> } };
      assert.equal(body.error.code, -32000);
      assert.match(
        body.error.message,
        new RegExp(
          `fw\\.mcp\\.max-subscriptions: this ${authenticated ? 'principal' : 'client address'} already holds its share \\(100\\)`,
        ),
      );
      assert.equal(body.error.data.limit, `fw.mcp.max-subscriptions-per-${share}`);
      assert.equal(body.error.data.status, 429);
      // Another client (bob; anonymous: another address) is served.
      const other = await listen(server.port, config.tokens.bob, authenticated ? '127.0.0.1' : '127.0.0.2');
      assert.equal(other.status, 200);
      open.push(other);
      // On a WebSocket the same share applies, as a JSON-RPC error.
      const socket = await openSocket(server.port, config.tokens.alice);
      const ws = await socket.ask({
        jsonrpc: '2.0',
        id: 'l',
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true }, _meta: modernMeta() },
      });
      assert.equal(ws.error?.code, -32000);
      assert.equal(ws.error?.data?.limit, `fw.mcp.max-subscriptions-per-${share}`);
      socket.close();
      // A stream that ends gives its place back.
      open.shift()!.req.destroy();
      await waitFor('the stream was given back', () => server.mounted.endpoint.stats().subscriptions === 100, 10_000);
      const again = await listen(server.port, config.tokens.alice, '127.0.0.1');
      assert.equal(again.status, 200);
      open.push(again);
    } finally {
      for (const l of open) l.req.destroy();
      await server.close();
    }
  });
}

test('the listen shares at their edges, and the whole cap: at the share passes, one over is 429; at fw.mcp.max-subscriptions everyone gets 503', async () => {
  const server = await startServer({
    'fw.auth.tokens': TOKENS,
    'fw.mcp.auth': 'none',
    'fw.mcp.max-subscriptions': 5,
    'fw.mcp.max-subscriptions-per-principal': 2,
    'fw.mcp.max-subscriptions-per-address': 2,
  });
  const open: Listen[] = [];
  try {
    const statuses = async (token: string | undefined, from: string, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const l = await listen(server.port, token, from);
        out.push(l.status);
        if (l.status === 200) open.push(l);
      }
      return out;
    };
    assert.deepEqual(await statuses(ALICE, '127.0.0.1', 3), [200, 200, 429], 'alice: her share of 2');
    assert.deepEqual(
      await statuses(undefined, '127.0.0.1', 3),
      [200, 200, 429],
      "anonymous 127.0.0.1: its share of 2 (alice's do not count)",
    );
    assert.deepEqual(await statuses(BOB, '127.0.0.1', 1), [200], 'bob: the fifth');
    const full = await listen(server.port, BOB, '127.0.0.1');
    assert.equal(full.status, 503, 'fw.mcp.max-subscriptions = 5');
    assert.match(JSON.parse(full.body).error.message, /fw\.mcp\.max-subscriptions: all 5 are in use/);
  } finally {
    for (const l of open) l.req.destroy();
    await server.close();
  }
});

test('anonymous IPv6 clients count by /64: rotating the address within one /64 buys no second share', async () => {
  // Behind a trusted proxy (127.0.0.9) the forwarded address is the client's.
  const server = await startServer({
    'fw.security.trusted-proxies': '127.0.0.9',
    'fw.mcp.max-subscriptions-per-address': 2,
    'fw.mcp.max-sessions-per-address': 2,
    'fw.mcp.evict-when-full': false,
  });
  const open: Listen[] = [];
  try {
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    for (const ip of ['2001:db8:1:2::1', '2001:db8:1:2::2']) {
      const l = await listen(server.port, undefined, '127.0.0.9', from(ip));
      assert.equal(l.status, 200, ip);
      open.push(l);
    }
    const rotated = await listen(server.port, undefined, '127.0.0.9', from('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    assert.equal(rotated.status, 429, 'the same /64');
    const otherPrefix = await listen(server.port, undefined, '127.0.0.9', from('2001:db8:1:3::1'));
    assert.equal(otherPrefix.status, 200, 'another /64 is another client');
    open.push(otherPrefix);
    // Sessions follow the same rule.
    const init = (ip: string) =>
      send(
        server.port,
        'POST',
        { ...JSON_HEADERS, ...from(ip) },
        JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'v6', version: '0' } },
        }),
        '127.0.0.9',
      );
    assert.equal((await init('2001:db8:1:2::a')).status, 200);
    assert.equal((await init('2001:db8:1:2::b')).status, 200);
    const third = await init('2001:db8:1:2::c');
    assert.equal(third.status, 429);
    assert.equal(JSON.parse(third.text).code, 'mcp_address_session_limit');
    assert.equal((await init('2001:db8:1:3::a')).status, 200);
    assert.equal(server.mounted.endpoint.stats().addresses, 2, 'two /64s hold sessions');
  } finally {
    for (const l of open) l.req.destroy();
    await server.close();
  }
});

test('fw.mcp.max-sessions-per-principal: a principal whose sessions are all in use gets 429 mcp_principal_session_limit at its share; its idle one gives way first; another principal is unaffected', async () => {
  const server = await startServer({
    'fw.auth.tokens': TOKENS,
    'fw.mcp.max-sessions-per-principal': 2,
    'fw.mcp.max-sessions-per-address': 0,
  });
  const streams: ClientRequest[] = [];
  try {
    const idle = await legacySession(server.port, ALICE);
    const busy = await legacySession(server.port, ALICE);
    // The third gets room: alice's own idle session gives way (no one else's).
    const third = await legacySession(server.port, ALICE);
    const bobs = await legacySession(server.port, BOB);
    assert.equal((await send(server.port, 'DELETE', { 'mcp-session-id': idle, ...bearer(ALICE) })).status, 404, 'the idle one went');
    // Now both of alice's are in use (a GET stream each): the next is refused, naming the key.
    for (const id of [busy, third]) {
      const get = request({
        host: '127.0.0.1',
        port: server.port,
        path: '/mcp',
        agent: false,
        headers: { host: `127.0.0.1:${server.port}`, accept: 'text/event-stream', 'mcp-session-id': id, ...bearer(ALICE) },
      });
      get.on('error', () => undefined);
      get.end();
      streams.push(get);
    }
    await waitFor('both streams open', () => server.mounted.endpoint.stats().streams === 2, 10_000);
    const refused = await send(
      server.port,
      'POST',
      { ...JSON_HEADERS, ...bearer(ALICE) },
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '0' } },
      }),
    );
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '5');
    const body = JSON.parse(refused.text) as { code: string; detail: string; error: { code: number } };
    assert.equal(body.code, 'mcp_principal_session_limit');
    assert.match(body.detail, /this principal already holds 2 MCP sessions in use \(fw\.mcp\.max-sessions-per-principal\)/);
    assert.equal(body.error.code, -32000);
    // bob (same address) is unaffected, and so is his session.
    assert.ok(await legacySession(server.port, BOB));
    assert.equal((await send(server.port, 'DELETE', { 'mcp-session-id': bobs, ...bearer(BOB) })).status, 204);
  } finally {
    for (const s of streams) s.destroy();
    await server.close();
  }
});

for (const config of CONFIGS) {
  const authenticated = config.tokens.alice !== undefined;
  const share = authenticated ? 'principal' : 'address';
  test(`${config.name}: tasks: one caller holds at most fw.mcp.max-tasks-per-${share} (at it passes, one over is -32000 naming the key); another caller still gets tasks`, async () => {
    const server = await startServer({ ...config.options, [`fw.mcp.max-tasks-per-${share}`]: 3 });
    try {
      const task = (token: string | undefined, from: string) =>
        modernPost(
          server.port,
          'tools/call',
          { name: 'wait', arguments: {} },
          { token, from, capabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        );
      for (let i = 0; i < 3; i++) assert.equal((await task(config.tokens.alice, '127.0.0.1')).json().result?.resultType, 'task');
      const refused = await task(config.tokens.alice, '127.0.0.1');
      assert.equal(refused.json().error?.code, -32000);
      assert.equal(refused.json().error?.data?.limit, `fw.mcp.max-tasks-per-${share}`);
      assert.match(String(refused.json().error?.message), new RegExp(`fw\\.mcp\\.max-tasks-per-${share}`));
      const other = await task(config.tokens.bob, authenticated ? '127.0.0.1' : '127.0.0.2');
      assert.equal(other.json().result?.resultType, 'task', 'another caller is served');
    } finally {
      await server.close();
    }
  });
}

test("the bridge (real fw clients): the clients of one principal hold at most their share of the pending calls (fw.mcp.bridge.max-pending-per-principal, from the framework's configuration); calls to other clients go on", async () => {
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.auth.tokens': TOKENS,
    'fw.mcp.bridge.max-pending': 20,
    'fw.mcp.bridge.max-pending-per-principal': 5,
    'fw.mcp.bridge.max-pending-per-address': 3,
  });
  const resources = new Map<string, Resource>();
  // The app authenticates its connections (a browser sends `?access_token=` on a socket).
  const authenticate = frameworkAuthenticator(fw);
  fw.handle(
    '/assistant',
    {
      open(resource) {
        resources.set(resource.principal?.id ?? `anonymous ${resource.remoteAddress}`, resource);
      },
    },
    {
      interceptors: [
        {
          name: 'auth',
          connect: async (ctx) => {
            ctx.principal = await authenticate?.(ctx.req, ctx.url, { socket: true });
          },
        },
      ],
    },
  );
  const { port } = await fw.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}/fw/assistant`;
  // alice's client never answers: her calls stay pending until they time out.
  const alice = connect(`${url}?access_token=${ALICE}`, { transports: ['websocket'] });
  alice.registerTool('slow', () => new Promise(() => undefined));
  const bob = connect(`${url}?access_token=${BOB}`, { transports: ['websocket'] });
  bob.registerTool('slow', () => 'bob answers');
  try {
    await waitFor('both clients connected', () => resources.size === 2, 10_000);
    const bridge = new BiDirectionalToolBridge({ timeout: 30_000, framework: fw });
    assert.deepEqual([bridge.maxPending, bridge.maxPendingPerPrincipal, bridge.maxPendingPerAddress], [20, 5, 3]);
    const held = Array.from({ length: 5 }, () => bridge.callClientTool(resources.get('alice')!, 'slow').catch((e: Error) => e));
    await assert.rejects(
      bridge.callClientTool(resources.get('alice')!, 'slow'),
      (e: unknown) =>
        e instanceof BridgeLimitError && e.share === 'principal' && /fw\.mcp\.bridge\.max-pending-per-principal/.test(e.message),
    );
    assert.equal(await bridge.callClientTool(resources.get('bob')!, 'slow'), 'bob answers');
    bridge.close('test over');
    for (const h of held) assert.ok((await h) instanceof Error);
    assert.equal(bridge.pendingCount(), 0);
  } finally {
    alice.close();
    bob.close();
    await fw.close();
  }
});
