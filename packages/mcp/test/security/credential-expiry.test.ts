/**
 * Issue #24: an expired JWT kept acting on open sockets. A WebSocket or SSE stream is
 * authenticated once, when it opens; every MCP socket and stream that stays open (the WebSocket
 * in both eras, the legacy GET stream and POST streams, `subscriptions/listen`, a 2026-07-28
 * response still being worked out) now ends when its token expires (real JWTs against a local
 * JWKS, `exp` a few seconds ahead) or is revoked (`fw.credentials.revoke`), telling the client
 * why; nothing is left watching afterwards.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Framework } from '@fw/runtime';
import { waitFor } from '@fw/testing';
import { mountMcpServer } from '../../dist/index.js';
import {
  ALICE,
  attackRegistry,
  BOB,
  bearer,
  JSON_HEADERS,
  legacySession,
  MODERN,
  modernMeta,
  modernPost,
  openSocket,
  openSocketWith,
  send,
  startJwtIssuer,
  startServer,
  TOKENS,
  type AttackServer,
  within,
} from './support.js';

/** An open HTTP response: what arrived so far, and whether (and when) it ended. */
interface OpenStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text(): string;
  ended: Promise<number>;
  close(): void;
}

function openStream(port: number, method: string, headers: Record<string, string>, body?: string): Promise<OpenStream> {
  return startRequest(port, method, headers, body).response;
}

/** A request whose response may take long to start (a JSON reply still being worked out): `abort` gives up on it. */
function startRequest(
  port: number,
  method: string,
  headers: Record<string, string>,
  body?: string,
): { response: Promise<OpenStream>; abort(): void } {
  let abort = (): void => {};
  const response = new Promise<OpenStream>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path: '/mcp', agent: false, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        const ended = new Promise<number>((done) => {
          res.once('end', () => done(Date.now()));
          res.once('close', () => done(Date.now()));
        });
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: () => text, ended, close: () => req.destroy() });
      },
    );
    abort = () => req.destroy();
    req.on('error', reject);
    req.end(body);
  });
  return { response, abort };
}

const modernHeaders = (method: string, token: string, name?: string) => ({
  ...JSON_HEADERS,
  'mcp-protocol-version': MODERN,
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
  ...bearer(token),
});

const listenBody = (id: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications: { toolsListChanged: true }, _meta: modernMeta() },
  });

const waitBody = (id: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait', arguments: {}, _meta: modernMeta() } });

/** Every long-lived MCP connection a client can hold, opened with `token`. */
async function openEverything(server: AttackServer, token: string) {
  const port = server.port;
  const legacyWs = await openSocket(port, token);
  const init = await legacyWs.ask({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ws', version: '0' } },
  });
  assert.ok(init.result, 'the legacy WebSocket session opened');
  const modernWs = await openSocket(port, token);
  const whoami = await modernWs.ask({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'whoami', arguments: {}, _meta: modernMeta() },
  });
  assert.ok(whoami.result, 'the modern WebSocket serves');
  modernWs.ws.send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 'ws-listen',
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true }, _meta: modernMeta() },
    }),
  );
  const session = await legacySession(port, token);
  const getStream = await openStream(port, 'GET', { accept: 'text/event-stream', 'mcp-session-id': session, ...bearer(token) });
  const postStream = await openStream(
    port,
    'POST',
    { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25', ...bearer(token) },
    JSON.stringify({ jsonrpc: '2.0', id: 'legacy-wait', method: 'tools/call', params: { name: 'wait', arguments: {} } }),
  );
  const listen = await openStream(port, 'POST', modernHeaders('subscriptions/listen', token), listenBody('http-listen'));
  const modernCall = startRequest(port, 'POST', modernHeaders('tools/call', token, 'wait'), waitBody('modern-wait'));
  // A 2026-07-28 answer that became a stream (the tool reported progress).
  const modernStream = await openStream(
    port,
    'POST',
    modernHeaders('tools/call', token, 'tick'),
    JSON.stringify({
      jsonrpc: '2.0',
      id: 'modern-tick',
      method: 'tools/call',
      params: { name: 'tick', arguments: {}, _meta: { ...modernMeta(), progressToken: 'p' } },
    }),
  );
  for (const s of [getStream, postStream, listen, modernStream]) assert.equal(s.status, 200);
  return { legacyWs, modernWs, session, getStream, postStream, listen, modernCall, modernStream };
}

test('a real JWT that expires: every open MCP socket and stream ends when it does, each telling the client why; the session lives on for a fresh token', async () => {
  const issuer = await startJwtIssuer();
  const server = await startServer({
    'fw.auth.jwt.jwks-url': issuer.jwksUrl,
    'fw.auth.jwt.issuer': issuer.issuer,
    'fw.auth.jwt.audience': issuer.audience,
    'fw.auth.jwt.clock-tolerance': '0',
  });
  try {
    const soon = await issuer.sign('alice', 3);
    const other = await issuer.sign('bob', 600);
    const expiresAt = JSON.parse(Buffer.from(soon.split('.')[1]!, 'base64url').toString()).exp * 1000;
    const alice = await openEverything(server, soon);
    const bob = await openSocket(server.port, other); // a long-lived token is not affected
    const ended = (at: number) => assert.ok(at >= expiresAt - 50 && at < expiresAt + 5000, `ended ${at - expiresAt} ms after exp`);

    // WebSocket, both eras: 1008 with the reason (RFC 6455 policy violation).
    assert.deepEqual(await within(alice.legacyWs.closed, 15_000, 'the legacy WebSocket closed'), {
      code: 1008,
      reason: 'access token expired',
    });
    assert.deepEqual(await within(alice.modernWs.closed, 15_000, 'the modern WebSocket closed'), {
      code: 1008,
      reason: 'access token expired',
    });
    ended(Date.now());
    // The modern JSON reply still being worked out: the 401 it would get now, with the challenge.
    const call = await within(alice.modernCall.response, 15_000, 'the modern call was answered');
    ended(await within(call.ended, 5_000, 'the modern call ended'));
    assert.equal(call.status, 401);
    assert.match(String(call.headers['www-authenticate']), /^Bearer error="invalid_token", error_description="access token expired"$/);
    const callBody = JSON.parse(call.text()) as { id: string; error: { code: number; data: Record<string, unknown> } };
    assert.equal(callBody.id, 'modern-wait');
    assert.deepEqual(callBody.error.data, { status: 401, error: 'invalid_token', reason: 'expired' });
    // The modern answer that became a stream: a JSON-RPC error for its request, then the end.
    ended(await within(alice.modernStream.ended, 15_000, 'the modernStream ended'));
    assert.match(alice.modernStream.text(), /notifications\/progress/);
    assert.match(
      alice.modernStream.text(),
      /"id":"modern-tick","error":\{"code":-32000,[^}]*"data":\{"status":401,"error":"invalid_token","reason":"expired"\}/,
    );
    // subscriptions/listen: a JSON-RPC error for the listen request, then the stream ends.
    ended(await within(alice.listen.ended, 15_000, 'the listen ended'));
    assert.match(
      alice.listen.text(),
      /"id":"http-listen","error":\{"code":-32000,"message":"the request's credential ended: access token expired","data":\{"status":401,"error":"invalid_token","reason":"expired"\}\}/,
    );
    // Legacy SSE connections end (with a retry hint); the streams stay resumable.
    ended(await within(alice.getStream.ended, 15_000, 'the getStream ended'));
    ended(await within(alice.postStream.ended, 15_000, 'the postStream ended'));
    assert.match(alice.getStream.text(), /retry: \d+/);

    // The session was not the token's: a fresh token of the same principal resumes the POST's
    // stream (its result included once the tool ends) and uses the session; the expired one is refused.
    const fresh = await issuer.sign('alice', 600);
    const stale = await send(
      server.port,
      'POST',
      { ...JSON_HEADERS, 'mcp-session-id': alice.session, ...bearer(soon) },
      '{"jsonrpc":"2.0","id":9,"method":"ping"}',
    );
    assert.equal(stale.status, 401);
    const ping = await send(
      server.port,
      'POST',
      { ...JSON_HEADERS, 'mcp-session-id': alice.session, ...bearer(fresh) },
      '{"jsonrpc":"2.0","id":9,"method":"ping"}',
    );
    assert.equal(ping.status, 200);
    // bob's socket is untouched.
    const still = await bob.ask({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'whoami', arguments: {}, _meta: modernMeta() },
    });
    assert.deepEqual((still.result as { content: unknown }).content, [{ type: 'text', text: 'bob' }]);
    bob.close();
    await bob.closed;
    const del = await send(server.port, 'DELETE', { 'mcp-session-id': alice.session, ...bearer(fresh) });
    assert.equal(del.status, 204);
    await waitFor('nothing left watching a credential', () => server.fw.credentials.watching === 0, 10_000);
  } finally {
    await server.close();
    await issuer.close();
  }
});

test('fw.credentials.revoke: every open MCP socket and stream of that principal ends at once (its legacy sessions too), another principal is untouched', async () => {
  const server = await startServer({ 'fw.auth.tokens': TOKENS });
  try {
    const alice = await openEverything(server, ALICE);
    const bob = await openEverything(server, BOB);
    const told = server.fw.credentials.revoke('alice');
    assert.ok(told >= 7, `the open sockets and streams were told (${told})`);
    assert.deepEqual(await within(alice.legacyWs.closed, 5_000, 'the legacy WebSocket closed'), {
      code: 1008,
      reason: 'credentials revoked',
    });
    assert.deepEqual(await within(alice.modernWs.closed, 5_000, 'the modern WebSocket closed'), {
      code: 1008,
      reason: 'credentials revoked',
    });
    const call = await within(alice.modernCall.response, 15_000, 'the modern call was answered');
    await within(call.ended, 5_000, 'the modern call ended');
    assert.equal(call.status, 401);
    assert.match(String(call.headers['www-authenticate']), /error_description="credentials revoked"/);
    await within(alice.listen.ended, 5_000, 'the listen ended');
    assert.match(
      alice.listen.text(),
      /"id":"http-listen","error":\{[^}]*"data":\{"status":401,"error":"invalid_token","reason":"revoked"\}/,
    );
    await within(alice.getStream.ended, 5_000, 'the getStream ended');
    await within(alice.postStream.ended, 5_000, 'the postStream ended');
    await within(alice.modernStream.ended, 5_000, 'the modernStream ended');
    assert.match(alice.modernStream.text(), /"id":"modern-tick","error":\{[^}]*"reason":"revoked"\}/);
    // The revoked principal's legacy session is over, and its token is refused everywhere.
    assert.equal(server.mounted.endpoint.session(alice.session), undefined);
    assert.equal((await modernPost(server.port, 'tools/call', { name: 'whoami', arguments: {} }, { token: ALICE })).status, 401);

    // bob: everything still open and working.
    const still = await bob.modernWs.ask({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'whoami', arguments: {}, _meta: modernMeta() },
    });
    assert.deepEqual((still.result as { content: unknown }).content, [{ type: 'text', text: 'bob' }]);
    assert.equal(bob.legacyWs.ws.readyState, bob.legacyWs.ws.OPEN);
    assert.ok(server.mounted.endpoint.session(bob.session));
    assert.equal(server.mounted.endpoint.stats().subscriptions, 2, "bob's two listen streams");
    for (const s of [bob.getStream, bob.postStream, bob.listen, bob.modernStream]) s.close();
    bob.legacyWs.close();
    bob.modernWs.close();
    bob.modernCall.response.catch(() => undefined);
    bob.modernCall.abort();
    await waitFor('nothing left watching a credential', () => server.fw.credentials.watching === 0, 10_000);
  } finally {
    await server.close();
  }
});

test("a mount's own principal resolver (as the admin plane's /fw/admin/mcp has): a revoked principal's socket closes and its next request is 401, whoever resolved it", async () => {
  const fw = new Framework({ configFile: false, env: {} });
  // The resolver knows nothing of revocation: the endpoint must ask fw.credentials itself.
  mountMcpServer(
    fw,
    { name: 'own-door', version: '1.0.0', path: '/mcp' },
    {
      registries: [attackRegistry()],
      principalResolver: (req) =>
        typeof req.headers['x-user'] === 'string' ? { id: req.headers['x-user'], roles: ['viewer'] } : undefined,
    },
  );
  const { port } = await fw.listen(0, '127.0.0.1');
  try {
    const socket = await openSocketWith(port, { 'x-user': 'carol' });
    const before = await socket.ask({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'whoami', arguments: {}, _meta: modernMeta() },
    });
    assert.deepEqual((before.result as { content: unknown }).content, [{ type: 'text', text: 'carol' }]);
    assert.equal(fw.credentials.revoke('carol'), 1);
    assert.deepEqual(await within(socket.closed, 5_000, 'the socket closed'), { code: 1008, reason: 'credentials revoked' });
    const after = await send(
      port,
      'POST',
      { ...JSON_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'whoami', 'x-user': 'carol' },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta: modernMeta() } }),
    );
    assert.equal(after.status, 401);
    assert.match(String(after.headers['www-authenticate']), /error="invalid_token", error_description="credentials revoked"/);
    assert.equal(fw.credentials.watching, 0);
  } finally {
    await fw.close();
  }
});
