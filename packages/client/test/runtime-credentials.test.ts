/**
 * The fw client and credentials that end on an open connection (issue #24): with a `token`
 * function it gets a new token and resumes, losing nothing; with a fixed token it stops and says
 * why, instead of reconnecting with a dead token. Real ES256 JWTs (a local JWKS) verified by the
 * runtime's JWT authenticator, on every transport.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { authenticate } from '@fw/runtime';
import { connect, type TransportName } from '../dist/node.js';
import { serve, until, within } from './helpers.js';
import { record, startJwtIssuer, waitFor, type JwtIssuer } from '@fw/testing';

const FEED = '/fw/feed/main';

async function app(issuer: JwtIssuer): Promise<Awaited<ReturnType<typeof serve>> & { taken: string[] }> {
  const taken: string[] = [];
  const served = await serve(
    {
      'fw.auth.jwt.jwks-url': issuer.jwksUrl,
      'fw.auth.jwt.issuer': issuer.issuer,
      'fw.auth.jwt.audience': issuer.audience,
      'fw.auth.jwt.clock-tolerance': 0,
    },
    (fw) => fw.handle('/feed/{name}', { message: (_r, data) => void taken.push(data) }, { interceptors: [authenticate(fw)] }),
  );
  return Object.assign(served, { taken });
}

for (const transport of ['websocket', 'sse', 'long-polling', 'streaming'] as TransportName[]) {
  test(`${transport}: a token that expires is replaced by token() and the connection resumes; nothing lost, sends confirmed`, async (t) => {
    const issuer = await startJwtIssuer();
    const server = await app(issuer);
    const tokens: string[] = [];
    const client = connect(server.url(FEED), {
      transports: [transport],
      reconnect: { minDelay: 20, maxDelay: 100 },
      // The first token lives two seconds, the next ones five minutes.
      token: () => {
        const token = issuer.token('ada', tokens.length === 0 ? 2 : 300);
        tokens.push(token);
        return token;
      },
    });
    t.after(async () => {
      client.close();
      await server.close();
      await issuer.close();
    });
    const errors: string[] = [];
    client.onError((e) => errors.push(e.code));
    const r = record(client);
    await until(client, 'open');
    const uuid = client.uuid;
    server.fw.runtime.broadcast(FEED, 'before');
    await client.send('first');
    await waitFor('the credential_expired close', () => errors.includes('credential_expired'), 10_000);
    // While the client renews its token: broadcasts wait in the resource, sends in the client.
    server.fw.runtime.broadcast(FEED, 'meanwhile');
    const second = client.send('second');
    await until(client, 'open');
    await second;
    server.fw.runtime.broadcast(FEED, 'after');
    await waitFor('every message', () => r.got.length === 3);
    assert.deepEqual(r.got, ['before', 'meanwhile', 'after']);
    assert.deepEqual(server.taken, ['first', 'second']);
    assert.equal(client.uuid, uuid, 'resumed, not a new resource');
    assert.ok(tokens.length >= 2, 'token() gave a new token');
    assert.deepEqual(r.recoveries, [{ recovered: true, resumed: true, gaps: [] }]);
    assert.ok(!errors.includes('unauthorized'), `the dead token was never shown again: ${errors.join(', ')}`);
  });
}

test('a fixed token that expires ends the client with the reason; it does not reconnect with the dead token', async (t) => {
  const issuer = await startJwtIssuer();
  const server = await app(issuer);
  let requests = 0;
  const client = connect(server.url(FEED), {
    transports: ['sse'],
    reconnect: { minDelay: 10, maxDelay: 20 },
    token: issuer.token('bea', 2),
    fetch: (input, init) => {
      requests++;
      return fetch(input, init);
    },
  });
  t.after(async () => {
    client.close();
    await server.close();
    await issuer.close();
  });
  const errors: string[] = [];
  client.onError((e) => errors.push(e.code));
  await until(client, 'open');
  await client.send('while the token is good');
  const reason = await within<string>(10_000, 'the client to close', (resolve) => client.onClose(resolve));
  assert.equal(reason, 'credential_expired');
  assert.deepEqual(errors, ['credential_expired']);
  assert.equal(client.state, 'closed');
  assert.deepEqual(server.taken, ['while the token is good']);
  assert.throws(
    () => client.send('too late'),
    (e: { code?: string }) => e.code === 'client_closed',
  );
  const seen = requests;
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(requests, seen, 'no request after the close');
});

test('revoke(): token() is asked for a new credential (the revoked one is refused) and the client resumes', async (t) => {
  const issuer = await startJwtIssuer();
  const server = await app(issuer);
  let revokedAt = 0;
  const client = connect(server.url(FEED), {
    transports: ['websocket'],
    reconnect: { minDelay: 20, maxDelay: 100 },
    // After the revocation, a token issued later (its iat says so) is good again.
    token: async () => issuer.token('cid', 300, revokedAt ? { iat: Math.floor(revokedAt / 1000) + 1 } : {}),
  });
  t.after(async () => {
    client.close();
    await server.close();
    await issuer.close();
  });
  const errors: string[] = [];
  client.onError((e) => errors.push(e.code));
  await until(client, 'open');
  const uuid = client.uuid;
  revokedAt = Date.now();
  assert.equal(server.fw.credentials.revoke('cid'), 1);
  await until(client, 'reconnecting');
  await until(client, 'open');
  assert.equal(errors[0], 'credential_revoked');
  assert.equal(client.uuid, uuid);
  await client.send('back');
  assert.deepEqual(server.taken, ['back']);
});

test('a refused credential at connect (401) with a fixed token ends the client at once, with no retry loop', async (t) => {
  const issuer = await startJwtIssuer();
  const server = await app(issuer);
  t.after(async () => {
    await server.close();
    await issuer.close();
  });
  const client = connect(server.url(FEED), { reconnect: { minDelay: 10, maxDelay: 20 }, token: issuer.token('dee', -60) });
  const errors: string[] = [];
  client.onError((e) => errors.push(`${e.code} ${e.status}`));
  const reason = await within<string>(10_000, 'the client to close', (resolve) => client.onClose(resolve));
  assert.match(reason, /401/);
  assert.deepEqual(errors, ['unauthorized 401'], 'one refusal, then the end');
});
