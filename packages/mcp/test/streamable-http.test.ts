import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Framework } from '@fw/runtime';
import { McpRegistry } from '../dist/index.js';
import { EdgeServer, JSON_HEADERS, http, initBody, openSession, openSse, rpc, sleep, startEdge } from './helpers.js';

const withSession = (id: string) => ({ ...JSON_HEADERS, 'mcp-session-id': id });

async function withEdge(options: Record<string, unknown>, fn: (port: number, fw: Framework) => Promise<void>): Promise<void> {
  const { fw, port } = await startEdge(options);
  try {
    await fn(port, fw);
  } finally {
    await fw.close();
  }
}

/** Every refusal is problem+json with fw's code and a JSON-RPC error member. */
function assertProblem(r: Awaited<ReturnType<typeof http>>, status: number, code: string, rpcCode = -32000): void {
  assert.equal(r.status, status, r.text);
  assert.match(String(r.headers['content-type']), /application\/problem\+json/);
  const body = r.json();
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  assert.equal(body.jsonrpc, '2.0');
  assert.equal(body.error?.code, rpcCode);
}

test('initialize issues Mcp-Session-Id and answers JSON with name, version, capabilities', () =>
  withEdge({}, async (port) => {
    const r = await http(port, 'POST', '/t', JSON_HEADERS, initBody('2025-03-26'));
    assert.equal(r.status, 200);
    assert.match(String(r.headers['mcp-session-id']), /^[0-9a-f-]{36}$/);
    const result = r.json().result as { protocolVersion: string; serverInfo: unknown; capabilities: Record<string, unknown> };
    assert.equal(result.protocolVersion, '2025-03-26');
    assert.deepEqual(result.serverInfo, { name: 'edge', version: '2.0.0' });
    assert.ok(result.capabilities.tools && result.capabilities.resources && result.capabilities.prompts && result.capabilities.logging);
  }));

test('version negotiation: a version below the 2025-03-26 floor is offered the newest', () =>
  withEdge({}, async (port) => {
    for (const [asked, got] of [
      ['2024-11-05', '2025-11-25'],
      ['2025-06-18', '2025-06-18'],
      ['2025-11-25', '2025-11-25'],
      ['1999-01-01', '2025-11-25'],
    ]) {
      const r = await http(port, 'POST', '/t', JSON_HEADERS, initBody(asked));
      assert.equal((r.json().result as { protocolVersion: string }).protocolVersion, got);
    }
  }));

test('POST with Accept: text/event-stream only answers as SSE', () =>
  withEdge({}, async (port) => {
    const r = await http(port, 'POST', '/t', { 'content-type': 'application/json', accept: 'text/event-stream' }, initBody());
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /text\/event-stream/);
    assert.match(r.text, /event: message\nid: 1-1\ndata: \{"jsonrpc":"2.0","id":1,"result"/);
  }));

test('auto replies: tools/call streams as SSE when both are accepted, other methods are JSON', () =>
  withEdge({}, async (port) => {
    const id = await openSession(port);
    const call = await http(port, 'POST', '/t', withSession(id), rpc('tools/call', { name: 'echo', arguments: { text: 'hi' } }));
    assert.match(String(call.headers['content-type']), /text\/event-stream/);
    assert.match(call.text, /"text":"hi"/);
    const list = await http(port, 'POST', '/t', withSession(id), rpc('tools/list'));
    assert.match(String(list.headers['content-type']), /application\/json/);
  }));

test('400 for a request without Mcp-Session-Id', () =>
  withEdge({}, async (port) => {
    assertProblem(await http(port, 'POST', '/t', JSON_HEADERS, rpc('tools/list')), 400, 'mcp_missing_session');
  }));

test('404 for an unknown session id', () =>
  withEdge({}, async (port) => {
    assertProblem(
      await http(port, 'POST', '/t', withSession('00000000-0000-0000-0000-000000000000'), rpc('tools/list')),
      404,
      'mcp_unknown_session',
    );
  }));

test('DELETE ends the session (204); the id is 404 afterwards', () =>
  withEdge({}, async (port) => {
    const id = await openSession(port);
    const d = await http(port, 'DELETE', '/t', { 'mcp-session-id': id });
    assert.equal(d.status, 204);
    assertProblem(await http(port, 'POST', '/t', withSession(id), rpc('ping')), 404, 'mcp_unknown_session');
    assertProblem(await http(port, 'DELETE', '/t', { 'mcp-session-id': id }), 404, 'mcp_unknown_session');
  }));

test('405 with Allow for other methods', () =>
  withEdge({}, async (port) => {
    const r = await http(port, 'PUT', '/t', JSON_HEADERS, '{}');
    assertProblem(r, 405, 'method_not_allowed');
    assert.equal(r.headers.allow, 'GET, POST, DELETE, OPTIONS');
  }));

test('406 for a POST whose Accept allows neither JSON nor SSE or is missing, and for a GET without SSE or without Accept', () =>
  withEdge({}, async (port) => {
    assertProblem(
      await http(port, 'POST', '/t', { 'content-type': 'application/json', accept: 'text/html' }, initBody()),
      406,
      'mcp_not_acceptable',
    );
    assertProblem(await http(port, 'POST', '/t', { 'content-type': 'application/json' }, initBody()), 406, 'mcp_not_acceptable');
    const id = await openSession(port);
    assertProblem(
      await http(port, 'POST', '/t', { 'content-type': 'application/json', 'mcp-session-id': id }, rpc('tools/list')),
      406,
      'mcp_not_acceptable',
    );
    assertProblem(await http(port, 'GET', '/t', { accept: 'application/json', 'mcp-session-id': id }), 406, 'mcp_not_acceptable');
    assertProblem(await http(port, 'GET', '/t', { 'mcp-session-id': id }), 406, 'mcp_not_acceptable');
  }));

test('415 for a POST that is not application/json', () =>
  withEdge({}, async (port) => {
    assertProblem(
      await http(port, 'POST', '/t', { 'content-type': 'text/plain', accept: 'application/json' }, initBody()),
      415,
      'mcp_unsupported_media_type',
    );
  }));

test('413 past fw.mcp.max-body, accepted at exactly the limit', () =>
  withEdge({ 'fw.mcp.max-body': 300 }, async (port) => {
    const body = initBody();
    const exact = body + ' '.repeat(300 - Buffer.byteLength(body));
    assert.equal((await http(port, 'POST', '/t', JSON_HEADERS, exact)).status, 200);
    const r = await http(port, 'POST', '/t', JSON_HEADERS, `${exact} `);
    assertProblem(r, 413, 'payload_too_large', -32600);
  }));

test('400 with a JSON-RPC parse error for a body that is not JSON', () =>
  withEdge({}, async (port) => {
    assertProblem(await http(port, 'POST', '/t', JSON_HEADERS, '{"jsonrpc":'), 400, 'mcp_parse_error', -32700);
  }));

/** A refusal by the framework's screening (before the MCP route): problem+json with fw's code. */
function assertRefused(r: Awaited<ReturnType<typeof http>>, status: number, code: string): void {
  assert.equal(r.status, status, r.text);
  assert.match(String(r.headers['content-type']), /application\/problem\+json/);
  assert.equal((r.json() as { code: string }).code, code);
}

test('421 for a foreign Host on a loopback listener and 403 for a foreign Origin (DNS rebinding)', () =>
  withEdge({}, async (port) => {
    assertRefused(await http(port, 'POST', '/t', { ...JSON_HEADERS, host: 'evil.example:80' }, initBody()), 421, 'host_not_allowed');
    assertRefused(
      await http(port, 'POST', '/t', { ...JSON_HEADERS, origin: 'http://evil.example' }, initBody()),
      403,
      'origin_not_allowed',
    );
    // Another loopback origin is another site too (a different port is a different origin).
    assertRefused(
      await http(port, 'POST', '/t', { ...JSON_HEADERS, origin: `http://localhost:${port + 1}` }, initBody()),
      403,
      'origin_not_allowed',
    );
    assert.equal((await http(port, 'POST', '/t', { ...JSON_HEADERS, origin: `http://127.0.0.1:${port}` }, initBody())).status, 200);
    assert.equal(
      (await http(port, 'POST', '/t', { ...JSON_HEADERS, host: `localhost:${port}`, origin: `http://localhost:${port}` }, initBody()))
        .status,
      200,
    );
  }));

test('fw.security.allowed-origins admits an origin; CORS exposes Mcp-Session-Id; OPTIONS preflight is 204', () =>
  withEdge({ 'fw.security.allowed-origins': 'https://app.example' }, async (port) => {
    const r = await http(port, 'POST', '/t', { ...JSON_HEADERS, origin: 'https://app.example' }, initBody());
    assert.equal(r.status, 200);
    assert.equal(r.headers['access-control-allow-origin'], 'https://app.example');
    assert.match(String(r.headers['access-control-expose-headers']), /Mcp-Session-Id/);
    const p = await http(port, 'OPTIONS', '/t', { origin: 'https://app.example', 'access-control-request-method': 'POST' });
    assert.equal(p.status, 204);
    assert.match(String(p.headers['access-control-allow-headers']), /Mcp-Session-Id/);
    assert.match(String(p.headers['access-control-allow-methods']), /DELETE/);
    assertRefused(
      await http(port, 'POST', '/t', { ...JSON_HEADERS, origin: 'https://other.example' }, initBody()),
      403,
      'origin_not_allowed',
    );
    assertRefused(
      await http(port, 'OPTIONS', '/t', { origin: 'https://other.example', 'access-control-request-method': 'POST' }),
      403,
      'origin_not_allowed',
    );
  }));

test('fw.security.allowed-hosts admits a listed Host name besides the loopback names', () =>
  withEdge({ 'fw.security.allowed-hosts': 'mcp.example' }, async (port) => {
    assert.equal((await http(port, 'POST', '/t', { ...JSON_HEADERS, host: 'mcp.example' }, initBody())).status, 200);
    assert.equal((await http(port, 'POST', '/t', JSON_HEADERS, initBody())).status, 200);
    assertRefused(await http(port, 'POST', '/t', { ...JSON_HEADERS, host: 'other.example' }, initBody()), 421, 'host_not_allowed');
  }));

test('a message nested deeper than fw.limits.json-depth is a 400 invalid request (-32600), never a -32603', () =>
  withEdge({}, async (port) => {
    const deep = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
    assertProblem(await http(port, 'POST', '/t', JSON_HEADERS, deep), 400, 'json_too_deep', -32600);
    assertProblem(
      await http(port, 'POST', '/t', { ...JSON_HEADERS, 'content-type': 'text/plain' }, initBody()),
      415,
      'mcp_unsupported_media_type',
    );
  }));

test('202 with no body for notification-only and response-only POSTs', () =>
  withEdge({}, async (port) => {
    const id = await openSession(port);
    const n = await http(port, 'POST', '/t', withSession(id), JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    assert.equal(n.status, 202);
    assert.equal(n.text, '');
    const r = await http(port, 'POST', '/t', withSession(id), JSON.stringify({ jsonrpc: '2.0', id: 'fw-99', result: {} }));
    assert.equal(r.status, 202);
    assert.equal(r.text, '');
  }));

test('400 for an unsupported MCP-Protocol-Version header', () =>
  withEdge({}, async (port) => {
    const id = await openSession(port);
    assertProblem(
      await http(port, 'POST', '/t', { ...withSession(id), 'mcp-protocol-version': '2030-01-01' }, rpc('ping')),
      400,
      'mcp_unsupported_protocol_version',
    );
    assert.equal((await http(port, 'POST', '/t', { ...withSession(id), 'mcp-protocol-version': '2025-06-18' }, rpc('ping'))).status, 200);
  }));

test('batches: answered as an array on 2025-03-26, refused on 2025-06-18, initialize never batched', () =>
  withEdge({}, async (port) => {
    const old = await openSession(port, '2025-03-26');
    const batch = `[${rpc('ping', {}, 1)},${rpc('tools/list', {}, 2)},{"jsonrpc":"2.0","method":"notifications/initialized"}]`;
    const r = await http(port, 'POST', '/t', withSession(old), batch);
    assert.equal(r.status, 200);
    const answers = JSON.parse(r.text) as { id: number }[];
    assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2]);
    const recent = await openSession(port, '2025-06-18');
    assertProblem(await http(port, 'POST', '/t', withSession(recent), batch), 400, 'mcp_batch_not_supported', -32600);
    assertProblem(await http(port, 'POST', '/t', JSON_HEADERS, `[${initBody('2025-03-26')}]`), 400, 'mcp_invalid_request', -32600);
  }));

test('GET opens the server stream: keep-alive comments, list_changed, and a reconnect replaces the stale stream', () =>
  withEdge({ 'fw.mcp.keep-alive-interval': 40 }, async (port, fw) => {
    const id = await openSession(port);
    const first = await openSse(port, '/t', { accept: 'text/event-stream', 'mcp-session-id': id });
    assert.equal(first.status, 200);
    assert.match(String(first.headers['content-type']), /text\/event-stream/);
    await first.waitFor(/: keep-alive\n\n/);
    const off = McpRegistry.of(fw).registerPrompt({ name: 'temp', handler: () => [] });
    off();
    await first.waitFor(/notifications\/prompts\/list_changed/);
    const second = await openSse(port, '/t', { accept: 'text/event-stream', 'mcp-session-id': id });
    await first.ended;
    McpRegistry.of(fw).notifyResourceUpdated('nothing://subscribed');
    McpRegistry.of(fw).registerTool({ name: 'temp_tool', handler: () => 'x' })();
    await second.waitFor(/notifications\/tools\/list_changed/);
    second.close();
  }));

test('GET without a session id is 405 (2026-07-28 has no GET stream), with an unknown one 404', () =>
  withEdge({}, async (port) => {
    assertProblem(await http(port, 'GET', '/t', { accept: 'text/event-stream' }), 405, 'method_not_allowed', -32600);
    assertProblem(await http(port, 'GET', '/t', { accept: 'text/event-stream', 'mcp-session-id': 'nope' }), 404, 'mcp_unknown_session');
  }));

test('notifications/cancelled aborts the running tool; in JSON mode the POST gets a -32800 error, never 202 (a request POST must be answered with JSON or SSE)', () =>
  withEdge({}, async (port) => {
    const id = await openSession(port);
    const before = EdgeServer.aborted;
    const call = http(
      port,
      'POST',
      '/t',
      { 'content-type': 'application/json', accept: 'application/json', 'mcp-session-id': id },
      rpc('tools/call', { name: 'slow', arguments: {} }, 77),
    );
    await sleep(50);
    const c = await http(
      port,
      'POST',
      '/t',
      withSession(id),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 77, reason: 'test' } }),
    );
    assert.equal(c.status, 202);
    const r = await call;
    assert.equal(EdgeServer.aborted, before + 1);
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /application\/json/);
    assert.deepEqual(r.json(), {
      jsonrpc: '2.0',
      id: 77,
      error: { code: -32800, message: 'the client cancelled this request (notifications/cancelled)' },
    });
  }));

test('notifications/cancelled in SSE mode: the stream ends without an answer; resuming it is 405 (nothing follows), not a poll loop', () =>
  withEdge({}, async (port) => {
    const id = await openSession(port, '2025-11-25');
    const s = await openSse(
      port,
      '/t',
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id },
      'POST',
      rpc('tools/call', { name: 'slow', arguments: {} }, 78),
    );
    const primed = await s.waitFor(/id: (\d+-0)\nretry: \d+\ndata: \n\n/);
    const c = await http(
      port,
      'POST',
      '/t',
      withSession(id),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 78 } }),
    );
    assert.equal(c.status, 202);
    await s.ended;
    assert.doesNotMatch(s.text(), /"id":78/);
    const lastId = /id: (\d+-0)/.exec(primed)![1]!;
    const resume = await http(port, 'GET', '/t', { accept: 'text/event-stream', 'mcp-session-id': id, 'last-event-id': lastId });
    assert.equal(resume.status, 405);
    assert.equal((resume.json() as { code: string }).code, 'mcp_stream_finished');
  }));

test('tools/call: a missing required argument and a wrong type are isError results naming the field; an unknown tool is -32602', () =>
  withEdge({}, async (port) => {
    const id = await openSession(port);
    const h = { 'content-type': 'application/json', accept: 'application/json', 'mcp-session-id': id };
    const missing = (await http(port, 'POST', '/t', h, rpc('tools/call', { name: 'echo', arguments: {} }))).json();
    assert.equal(missing.result?.isError, true);
    assert.match(JSON.stringify(missing.result?.content), /argument 'text' is required/);
    const wrong = (await http(port, 'POST', '/t', h, rpc('tools/call', { name: 'echo', arguments: { text: 5 } }))).json();
    assert.equal(wrong.result?.isError, true);
    assert.match(JSON.stringify(wrong.result?.content), /argument 'text' must be string/);
    assert.equal((await http(port, 'POST', '/t', h, rpc('tools/call', { name: 'nope' }))).json().error?.code, -32602);
    assert.equal((await http(port, 'POST', '/t', h, rpc('no/such/method'))).json().error?.code, -32601);
  }));

test('pagination: fw.mcp.page-size pages with opaque cursors; a bad cursor is -32602', () =>
  withEdge({ 'fw.mcp.page-size': 2 }, async (port) => {
    const id = await openSession(port);
    const h = { 'content-type': 'application/json', accept: 'application/json', 'mcp-session-id': id };
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = (await http(port, 'POST', '/t', h, rpc('tools/list', cursor ? { cursor } : {}))).json().result as {
        tools: { name: string }[];
        nextCursor?: string;
      };
      assert.ok(r.tools.length <= 2);
      names.push(...r.tools.map((t) => t.name));
      cursor = r.nextCursor;
      pages++;
    } while (cursor);
    assert.deepEqual(names.sort(), ['ask', 'chatty', 'echo', 'gated', 'slow', 'whoami']);
    assert.equal(pages, 3);
    assert.equal((await http(port, 'POST', '/t', h, rpc('tools/list', { cursor: 'garbage' }))).json().error?.code, -32602);
  }));

test('logging/setLevel filters log notifications; an unknown level is -32602', () =>
  withEdge({}, async (port) => {
    const id = await openSession(port);
    const h = { 'content-type': 'application/json', accept: 'text/event-stream, application/json', 'mcp-session-id': id };
    assert.equal((await http(port, 'POST', '/t', h, rpc('logging/setLevel', { level: 'loud' }))).json().error?.code, -32602);
    const all = await http(port, 'POST', '/t', h, rpc('tools/call', { name: 'chatty', arguments: {} }));
    assert.match(all.text, /an info line/);
    assert.deepEqual((await http(port, 'POST', '/t', h, rpc('logging/setLevel', { level: 'error' }))).json().result, {});
    const some = await http(port, 'POST', '/t', h, rpc('tools/call', { name: 'chatty', arguments: {} }));
    assert.doesNotMatch(some.text, /an info line/);
    assert.match(some.text, /an error line/);
  }));

test('principal: the resolver sets the session principal; another principal cannot use the session; a throwing resolver refuses', async () => {
  const { FwError } = await import('@fw/runtime');
  const { fw, port } = await startEdge(
    {},
    {
      principalResolver: (req) => {
        const auth = req.headers.authorization;
        if (auth === 'Bearer bad') throw new FwError('unauthorized', 'bad token', 401);
        return auth?.startsWith('Bearer ') ? { id: auth.slice(7) } : undefined;
      },
    },
  );
  try {
    const init = await http(port, 'POST', '/t', { ...JSON_HEADERS, authorization: 'Bearer alice' }, initBody());
    const id = String(init.headers['mcp-session-id']);
    const h = { 'content-type': 'application/json', accept: 'application/json', 'mcp-session-id': id };
    const who = (
      await http(port, 'POST', '/t', { ...h, authorization: 'Bearer alice' }, rpc('tools/call', { name: 'whoami', arguments: {} }))
    ).json();
    assert.deepEqual((who.result as { content: unknown }).content, [{ type: 'text', text: 'alice' }]);
    assertProblem(
      await http(port, 'POST', '/t', { ...h, authorization: 'Bearer mallory' }, rpc('ping')),
      403,
      'mcp_session_principal_mismatch',
    );
    const bad = await http(port, 'POST', '/t', { ...JSON_HEADERS, authorization: 'Bearer bad' }, initBody());
    assert.equal(bad.status, 401);
    assert.equal(bad.json().code, 'unauthorized');
  } finally {
    await fw.close();
  }
});
