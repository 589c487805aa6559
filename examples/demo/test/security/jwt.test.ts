/**
 * JWT bearer authentication (fw.auth.jwt.*) against a JWKS served from a local HTTP server:
 * real tokens signed with `jose`. A good token gets in with its roles; a wrong audience, a wrong
 * issuer, an expired token or a bad signature is a 401 on the admin plane and on the agents, and
 * the agent card says a JWT is wanted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { API, startIdentityApp } from './identity-app.js';

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'fw-admin';

async function jwksServer(keys: JWK[]): Promise<{ url: string; server: Server; hits: () => number }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`, server, hits: () => hits };
}

async function sign(
  key: CryptoKey,
  claims: Record<string, unknown>,
  o: { iss?: string; aud?: string; exp?: number | string; kid?: string } = {},
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: o.kid ?? 'k1' })
    .setSubject(String(claims.sub ?? 'jane'))
    .setIssuer(o.iss ?? ISSUER)
    .setAudience(o.aud ?? AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(o.exp ?? '5m')
    .sign(key);
}

test('JWT bearer: roles from the token; wrong audience, issuer, expiry or signature are 401 on admin and agents', async () => {
  const good = await generateKeyPair('RS256');
  const other = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(good.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const jwks = await jwksServer([jwk]);
  const app = await startIdentityApp({
    'fw.auth.jwt.jwks-url': jwks.url,
    'fw.auth.jwt.issuer': ISSUER,
    'fw.auth.jwt.audience': AUDIENCE,
  });
  try {
    const viewer = await sign(good.privateKey, { sub: 'jane', roles: ['viewer'] });
    const operator = await sign(good.privateKey, { sub: 'otto', roles: 'operator' });
    const session = (await (await app.get(`${API}/session`, viewer)).json()) as { principal: string; role: string };
    assert.deepEqual([session.principal, session.role], ['jane', 'viewer']);
    assert.equal(
      (await app.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/fw/chat/lobby', message: 'x' }, viewer)).status,
      403,
    );
    assert.equal(((await (await app.get(`${API}/session`, operator)).json()) as { role: string }).role, 'operator');
    assert.ok(jwks.hits() >= 1, 'the keys came from the JWKS URL');

    const bad: [string, string, RegExp][] = [
      ['wrong audience', await sign(good.privateKey, { roles: ['admin'] }, { aud: 'someone-else' }), /aud/],
      ['wrong issuer', await sign(good.privateKey, { roles: ['admin'] }, { iss: 'https://evil.test' }), /iss/],
      ['expired', await sign(good.privateKey, { roles: ['admin'] }, { exp: Math.floor(Date.now() / 1000) - 3600 }), /expired/],
      ['bad signature', await sign(other.privateKey, { roles: ['admin'] }), /signature/],
    ];
    for (const [what, token, reason] of bad) {
      const res = await app.get(`${API}/overview`, token);
      assert.equal(res.status, 401, what);
      assert.match(((await res.json()) as { detail: string }).detail, reason, what);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="fw-admin"');
    }

    // The agents take the same authenticator: A2A and AG-UI refuse a call without a good token.
    const a2a = {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hi' }] } },
    };
    assert.equal((await app.send('POST', '/fw/agent/research/a2a', a2a)).status, 401);
    for (const [what, token] of bad) assert.equal((await app.send('POST', '/fw/agent/research/a2a', a2a, token)).status, 401, what);
    const ok = await app.send('POST', '/fw/agent/research/a2a', a2a, viewer);
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as { result?: unknown }).result !== undefined, true);
    const agui = {
      threadId: 't1',
      runId: 'r1',
      messages: [{ id: 'u1', role: 'user', content: 'hi' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    };
    assert.equal((await app.send('POST', '/fw/agent/research/agui', agui)).status, 401);
    assert.equal((await app.send('POST', '/fw/agent/research/agui', agui, bad[3]![1])).status, 401);

    // The card (public) says what is really configured: a JWT bearer from this issuer.
    const card = (await (
      await fetch(`${app.base}/fw/agent/research/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
    ).json()) as Record<string, unknown>;
    assert.deepEqual(card.securitySchemes, {
      jwt: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT', description: `A JWT issued by ${ISSUER}` } },
    });
    assert.deepEqual(card.securityRequirements, [{ schemes: { jwt: { list: [] } } }]);
    const legacy = (await (await fetch(`${app.base}/fw/agent/research/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    assert.deepEqual(legacy.security, [{ jwt: [] }]);
  } finally {
    await app.close();
    jwks.server.close();
  }
});

test('without any authenticator the agent card declares no security and agents stay public', async () => {
  const app = await startIdentityApp();
  try {
    const card = (await (
      await fetch(`${app.base}/fw/agent/research/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
    ).json()) as Record<string, unknown>;
    assert.deepEqual(card.securitySchemes, {});
    assert.deepEqual(card.securityRequirements, []);
  } finally {
    await app.close();
  }
});
