import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { WebSocket } from 'ws';
import { Framework } from '@fw/runtime';
import { mountMcpServer, ToolRegistry } from '../dist/index.js';
import { http, initBody, JSON_HEADERS, rpc } from './helpers.js';
import { requestToken, startAuthorizationServer, type TestAuthorizationServer } from './oauth-authorization-server.js';

/**
 * fw's MCP endpoints as OAuth 2.1 resource servers (MCP basic/authorization), against a real
 * authorization server (oidc-provider) on loopback: the RFC 9728 documents, and for each way a
 * token can be wrong the exact status and `WWW-Authenticate` challenge (RFC 6750 §3), in both
 * protocol eras and on the WebSocket handshake. Tokens come from the authorization server's token
 * endpoint; the ones it would never issue (wrong issuer, expired) are signed with its own key.
 */
let as: TestAuthorizationServer;
let fw: Framework;
let port: number;
let base: string;

const V = '2026-07-28';

before(async () => {
  as = await startAuthorizationServer();
  fw = new Framework({
    configFile: false,
    'fw.mcp.oauth.authorization-servers': as.issuer,
    'fw.mcp.oauth.scopes': 'mcp:use',
    // delete_file's scopes come from configuration, write_file's from its definition.
    'fw.mcp.oauth.tool-scopes': 'delete_file=files:write files:admin',
    'fw.auth.jwt.clock-tolerance': '0',
  });
  const tools = new ToolRegistry('programmatic');
  tools.registerTool({ name: 'read_file', handler: () => 'read' });
  tools.registerTool({ name: 'write_file', scopes: ['files:write'], handler: () => 'written' });
  tools.registerTool({ name: 'delete_file', handler: () => 'deleted' });
  tools.registerTool({ name: 'whoami', handler: (_args, ctx) => ctx.principal?.id ?? 'anonymous' });
  mountMcpServer(fw, { name: 'files', path: '/mcp' }, { registries: [tools], frameworkRegistry: false });
  // A second resource on the same host: its tokens must not open /mcp (audience confusion).
  const other = new ToolRegistry('programmatic');
  other.registerTool({ name: 'read_file', handler: () => 'other' });
  mountMcpServer(fw, { name: 'billing', path: '/billing/mcp' }, { registries: [other], frameworkRegistry: false });
  port = (await fw.listen(0, '127.0.0.1')).port;
  base = `http://127.0.0.1:${port}`;
});

after(async () => {
  await fw.close();
  await as.close();
});

const metadataUrl = (path = '/mcp') => `${base}/.well-known/oauth-protected-resource${path}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A token signed with the authorization server's own key, with claims it would never issue. */
async function forged(claims: { iss?: string; aud?: string; exp?: number; scope?: string }): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: claims.scope ?? 'mcp:use', client_id: 'forger' })
    .setProtectedHeader({ alg: 'ES256', kid: as.kid, typ: 'at+jwt' })
    .setIssuer(claims.iss ?? as.issuer)
    .setAudience(claims.aud ?? `${base}/mcp`)
    .setSubject('forger')
    .setIssuedAt(now - 600)
    .setExpirationTime(claims.exp ?? now + 300)
    .sign(as.signingKey);
}

function invalidToken(description: string, path = '/mcp'): string {
  return `Bearer error="invalid_token", error_description="${description}", resource_metadata="${metadataUrl(path)}", scope="mcp:use"`;
}

async function legacyInitialize(headers: Record<string, string>) {
  return http(port, 'POST', '/mcp', { ...JSON_HEADERS, ...headers }, initBody('2025-11-25'));
}

function modernBody(method: string, params: Record<string, unknown> = {}): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method,
    params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} } },
  });
}

async function modernCall(tool: string, headers: Record<string, string>) {
  return http(
    port,
    'POST',
    '/mcp',
    { ...JSON_HEADERS, 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': tool, ...headers },
    modernBody('tools/call', { name: tool, arguments: {} }),
  );
}

test('RFC 9728 metadata: at the path-aware URL of each endpoint, and at the root for /mcp', async () => {
  const doc = await http(port, 'GET', '/.well-known/oauth-protected-resource/mcp');
  assert.equal(doc.status, 200);
  assert.match(String(doc.headers['content-type']), /^application\/json/);
  assert.deepEqual(doc.json(), {
    resource: `${base}/mcp`,
    authorization_servers: [as.issuer],
    scopes_supported: ['mcp:use', 'files:write', 'files:admin'],
    bearer_methods_supported: ['header'],
    resource_name: 'files',
  });
  const root = await http(port, 'GET', '/.well-known/oauth-protected-resource');
  assert.deepEqual(root.json(), doc.json());
  const billing = await http(port, 'GET', '/.well-known/oauth-protected-resource/billing/mcp');
  assert.equal((billing.json() as { resource?: string }).resource, `${base}/billing/mcp`);
  // The resource follows the Host the client used (screened by the framework: a foreign one is 421).
  const viaLocalhost = await http(port, 'GET', '/.well-known/oauth-protected-resource/mcp', { host: `localhost:${port}` });
  assert.equal((viaLocalhost.json() as { resource?: string }).resource, `http://localhost:${port}/mcp`);
  const rebinding = await http(port, 'GET', '/.well-known/oauth-protected-resource/mcp', { host: 'attacker.example' });
  assert.equal(rebinding.status, 421);
});

test('no token: 401 with resource_metadata and scope, no error code (RFC 6750 §3.1), in both eras', async () => {
  for (const r of [await legacyInitialize({}), await modernCall('read_file', {})]) {
    assert.equal(r.status, 401);
    assert.equal(r.headers['www-authenticate'], `Bearer resource_metadata="${metadataUrl()}", scope="mcp:use"`);
    assert.match(String(r.headers['content-type']), /^application\/problem\+json/);
    const body = r.json() as { code?: string; error?: { code: number } };
    assert.equal(body.code, 'unauthorized');
    assert.equal(typeof body.error?.code, 'number', 'the refusal carries a JSON-RPC error too');
  }
  // A token in the query is not read (basic/authorization "Token Requirements"): still no token.
  const token = await requestToken(as, `${base}/mcp`, 'mcp:use');
  const query = await http(port, 'POST', `/mcp?access_token=${token}`, JSON_HEADERS, initBody('2025-11-25'));
  assert.equal(query.status, 401);
  assert.equal(query.headers['www-authenticate'], `Bearer resource_metadata="${metadataUrl()}", scope="mcp:use"`);
});

test('a valid token opens a legacy session and a stateless 2026-07-28 request', async () => {
  const token = await requestToken(as, `${base}/mcp`, 'mcp:use');
  const init = await legacyInitialize(bearer(token));
  assert.equal(init.status, 200);
  const session = String(init.headers['mcp-session-id']);
  const who = await http(
    port,
    'POST',
    '/mcp',
    { ...JSON_HEADERS, ...bearer(token), 'mcp-session-id': session, accept: 'application/json' },
    rpc('tools/call', { name: 'whoami', arguments: {} }),
  );
  assert.equal(who.status, 200);
  assert.equal((who.json().result as { content: { text: string }[] }).content[0]!.text, 'mcp-test-agent');
  // Every request carries the token: the same session without it is a 401.
  const bare = await http(port, 'POST', '/mcp', { ...JSON_HEADERS, 'mcp-session-id': session }, rpc('tools/list'));
  assert.equal(bare.status, 401);
  const modern = await modernCall('read_file', { ...bearer(token), accept: 'application/json' });
  assert.equal(modern.status, 200);
  assert.equal((modern.json().result as { content: { text: string }[] }).content[0]!.text, 'read');
});

test("attack: a leaked legacy session id with another subject's valid token is refused", async () => {
  const owner = await requestToken(as, `${base}/mcp`, 'mcp:use');
  const session = String((await legacyInitialize(bearer(owner))).headers['mcp-session-id']);
  // A token the authorization server's key signed for this resource, but for another subject.
  const intruder = await forged({});
  const r = await http(port, 'POST', '/mcp', { ...JSON_HEADERS, ...bearer(intruder), 'mcp-session-id': session }, rpc('tools/list'));
  assert.equal(r.status, 403);
  assert.equal((r.json() as { code?: string }).code, 'mcp_session_principal_mismatch');
});

test('wrong audience, wrong issuer, expired, not a JWT, bad signature: 401 invalid_token naming the check', async () => {
  const now = Math.floor(Date.now() / 1000);
  const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const badSignature = await new SignJWT({ scope: 'mcp:use' })
    .setProtectedHeader({ alg: 'ES256', kid: as.kid })
    .setIssuer(as.issuer)
    .setAudience(`${base}/mcp`)
    .setSubject('x')
    .setExpirationTime(now + 300)
    .sign(otherKey);
  const cases: [string, string, string][] = [
    [
      'wrong audience (a real token for another server)',
      await requestToken(as, 'https://elsewhere.example/mcp', 'mcp:use'),
      "invalid token: claim 'aud' does not match",
    ],
    ['wrong issuer', await forged({ iss: 'https://attacker.example' }), "invalid token: claim 'iss' does not match"],
    ['expired', await forged({ exp: now - 5 }), 'invalid token: expired'],
    ['not a JWT', 'an-opaque-token-this-server-cannot-read', 'invalid token: not a JWT access token'],
    ['bad signature', badSignature, 'invalid token: bad signature'],
  ];
  for (const [label, token, description] of cases) {
    for (const r of [await legacyInitialize(bearer(token)), await modernCall('read_file', bearer(token))]) {
      assert.equal(r.status, 401, label);
      assert.equal(r.headers['www-authenticate'], invalidToken(description), label);
      assert.equal((r.json() as { detail?: string }).detail, description, label);
    }
  }
});

test('a token verified once is remembered for its audience only, and refused once it expires (fw.mcp.oauth.token-cache)', async () => {
  const exp = Math.floor(Date.now() / 1000) + 2;
  const token = await forged({ exp });
  const first = await legacyInitialize(bearer(token));
  assert.equal(first.status, 200);
  const session = String(first.headers['mcp-session-id']);
  const list = () => http(port, 'POST', '/mcp', { ...JSON_HEADERS, ...bearer(token), 'mcp-session-id': session }, rpc('tools/list'));
  assert.equal((await list()).status, 200, 'served from the cache');
  // The same token at another endpoint is checked for that endpoint's audience, cache or not.
  const elsewhere = await http(port, 'POST', '/billing/mcp', { ...JSON_HEADERS, ...bearer(token) }, initBody('2025-11-25'));
  assert.equal(elsewhere.status, 401);
  assert.equal(elsewhere.headers['www-authenticate'], invalidToken("invalid token: claim 'aud' does not match", '/billing/mcp'));
  // Past exp (clock tolerance 0 here) the cached entry is gone and the check says why.
  let r = await list();
  for (let i = 0; i < 100 && r.status === 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    r = await list();
  }
  assert.ok(Date.now() >= exp * 1000, 'refused only after exp');
  assert.equal(r.status, 401);
  assert.equal(r.headers['www-authenticate'], invalidToken('invalid token: expired'));
});

test('attack: a token issued for another MCP server on the same host (audience confusion) is refused', async () => {
  const forBilling = await requestToken(as, `${base}/billing/mcp`, 'mcp:use files:write files:admin');
  const atFiles = await legacyInitialize(bearer(forBilling));
  assert.equal(atFiles.status, 401);
  assert.equal(atFiles.headers['www-authenticate'], invalidToken("invalid token: claim 'aud' does not match"));
  // …while it is good where it was meant to go, and a /mcp token is no good there.
  const atBilling = await http(port, 'POST', '/billing/mcp', { ...JSON_HEADERS, ...bearer(forBilling) }, initBody('2025-11-25'));
  assert.equal(atBilling.status, 200);
  const forFiles = await requestToken(as, `${base}/mcp`, 'mcp:use');
  const reverse = await http(port, 'POST', '/billing/mcp', { ...JSON_HEADERS, ...bearer(forFiles) }, initBody('2025-11-25'));
  assert.equal(reverse.status, 401);
  assert.equal(reverse.headers['www-authenticate'], invalidToken("invalid token: claim 'aud' does not match", '/billing/mcp'));
  // A token for the bare origin is not a token for the MCP server at /mcp either.
  const forOrigin = await requestToken(as, base, 'mcp:use');
  assert.equal((await legacyInitialize(bearer(forOrigin))).status, 401);
});

test('missing scope: 403 insufficient_scope naming every scope the operation needs, in both eras', async () => {
  // Without the endpoint's own scope, nothing is served.
  const readOnly = await requestToken(as, `${base}/mcp`, 'files:read');
  const denied = await legacyInitialize(bearer(readOnly));
  assert.equal(denied.status, 403);
  assert.equal(
    denied.headers['www-authenticate'],
    `Bearer error="insufficient_scope", error_description="the access token lacks the scope(s) mcp:use this MCP server requires", resource_metadata="${metadataUrl()}", scope="mcp:use"`,
  );

  const token = await requestToken(as, `${base}/mcp`, 'mcp:use files:write');
  const init = await legacyInitialize(bearer(token));
  const session = String(init.headers['mcp-session-id']);
  const legacyCall = (tool: string) =>
    http(
      port,
      'POST',
      '/mcp',
      { ...JSON_HEADERS, ...bearer(token), 'mcp-session-id': session, accept: 'application/json' },
      rpc('tools/call', { name: tool, arguments: {} }, 9),
    );
  // write_file (its definition's scope) is allowed; delete_file (configured: files:write files:admin) is not.
  assert.equal((await legacyCall('write_file')).status, 200);
  const expected = `Bearer error="insufficient_scope", error_description="the tool 'delete_file' needs the scope(s) files:admin, which the access token lacks", resource_metadata="${metadataUrl()}", scope="mcp:use files:write files:admin"`;
  for (const r of [await legacyCall('delete_file'), await modernCall('delete_file', bearer(token))]) {
    assert.equal(r.status, 403);
    assert.equal(r.headers['www-authenticate'], expected);
    const body = r.json() as { code?: string; id?: unknown; error?: { data?: { error?: string; scope?: string } } };
    assert.equal(body.code, 'insufficient_scope');
    assert.equal(body.error?.data?.error, 'insufficient_scope');
    assert.equal(body.error?.data?.scope, 'mcp:use files:write files:admin');
  }
});

/** Opens an MCP WebSocket; resolves with the socket, or with the refused handshake's status and headers. */
function openSocket(
  headers: Record<string, string>,
): Promise<{ ws?: WebSocket; status?: number; headers?: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/mcp`, 'mcp', { headers });
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ status: res.statusCode, headers: res.headers });
    });
    ws.once('error', reject);
  });
}

function ask(
  ws: WebSocket,
  body: string,
): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } }> {
  return new Promise((resolve) => {
    ws.once('message', (data) => resolve(JSON.parse(String(data)) as never));
    ws.send(body);
  });
}

test('WebSocket: the handshake is refused with the challenge; a token opens it; a tool beyond its scope is a JSON-RPC 403', async () => {
  const none = await openSocket({});
  assert.equal(none.status, 401);
  assert.equal(none.headers?.['www-authenticate'], `Bearer resource_metadata="${metadataUrl()}", scope="mcp:use"`);
  const expired = await openSocket(bearer(await forged({ exp: Math.floor(Date.now() / 1000) - 5 })));
  assert.equal(expired.status, 401);
  assert.equal(expired.headers?.['www-authenticate'], invalidToken('invalid token: expired'));

  const token = await requestToken(as, `${base}/mcp`, 'mcp:use');
  const { ws } = await openSocket(bearer(token));
  assert.ok(ws);
  try {
    const init = await ask(ws, initBody('2025-11-25'));
    assert.ok(init.result);
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const read = await ask(ws, rpc('tools/call', { name: 'read_file', arguments: {} }, 3));
    assert.deepEqual((read.result as { content: unknown }).content, [{ type: 'text', text: 'read' }]);
    const write = await ask(ws, rpc('tools/call', { name: 'write_file', arguments: {} }, 4));
    assert.equal(write.error?.data?.status, 403);
    assert.equal(write.error?.data?.error, 'insufficient_scope');
    assert.equal(write.error?.data?.scope, 'mcp:use files:write');
    assert.equal(write.error?.data?.resource_metadata, metadataUrl());
  } finally {
    ws.close();
  }
  // The same on a socket speaking 2026-07-28 (no initialize, the _meta envelope on each request).
  const modern = (await openSocket(bearer(token))).ws;
  assert.ok(modern);
  try {
    const read = await ask(modern, modernBody('tools/call', { name: 'read_file', arguments: {} }));
    assert.deepEqual((read.result as { content: unknown }).content, [{ type: 'text', text: 'read' }]);
    const write = await ask(modern, modernBody('tools/call', { name: 'write_file', arguments: {} }));
    assert.equal(write.error?.data?.status, 403);
    assert.equal(write.error?.data?.scope, 'mcp:use files:write');
  } finally {
    modern.close();
  }
});

test('WebSocket: the socket is closed when its token expires (1008)', async () => {
  const soon = await forged({ exp: Math.floor(Date.now() / 1000) + 2 });
  const { ws } = await openSocket(bearer(soon));
  assert.ok(ws);
  const closed = await new Promise<{ code: number; reason: string }>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error('the socket outlived its token by 10 s')), 12_000);
    ws.once('close', (code, reason) => {
      clearTimeout(guard);
      resolve({ code, reason: String(reason) });
    });
  });
  assert.deepEqual(closed, { code: 1008, reason: 'access token expired' });
});

test('the authorization server unreachable: a good token gets 503 with Retry-After (not 401, which would make the client throw it away); keys back, it works', async () => {
  const { createServer } = await import('node:http');
  // A JWKS endpoint the test can take down: it proxies the authorization server's key set.
  let up = false;
  const jwks = createServer(async (_req, res) => {
    if (!up) {
      res.writeHead(502).end('bad gateway');
      return;
    }
    const keys = await (await fetch(`${as.issuer}/jwks`)).text();
    res.writeHead(200, { 'content-type': 'application/json' }).end(keys);
  });
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
  const jwksPort = (jwks.address() as { port: number }).port;
  const down = new Framework({
    configFile: false,
    'fw.mcp.oauth.authorization-servers': as.issuer,
    'fw.mcp.oauth.jwks-url': `http://127.0.0.1:${jwksPort}/jwks`,
    'fw.mcp.oauth.token-cache': 0,
  });
  const tools = new ToolRegistry('programmatic');
  tools.registerTool({ name: 'whoami', handler: (_args, ctx) => ctx.principal?.id ?? 'anonymous' });
  mountMcpServer(down, { name: 'down', path: '/mcp' }, { registries: [tools], frameworkRegistry: false });
  const downPort = (await down.listen(0, '127.0.0.1')).port;
  try {
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ scope: 'mcp:use' })
      .setProtectedHeader({ alg: 'ES256', kid: as.kid, typ: 'at+jwt' })
      .setIssuer(as.issuer)
      .setAudience(`http://127.0.0.1:${downPort}/mcp`)
      .setSubject('ada')
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(as.signingKey);
    const call = () =>
      http(
        downPort,
        'POST',
        '/mcp',
        { ...JSON_HEADERS, 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'whoami', ...bearer(token) },
        modernBody('tools/call', { name: 'whoami', arguments: {} }),
      );
    const refused = await call();
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.headers['retry-after'], '5');
    assert.equal(refused.headers['www-authenticate'], undefined, 'no challenge: the token was not judged');
    assert.match(refused.text, /auth_keys_unavailable/);
    up = true;
    const served = await call();
    assert.equal(served.status, 200, served.text);
    assert.match(served.text, /ada/);
  } finally {
    await down.close();
    jwks.close();
  }
});
