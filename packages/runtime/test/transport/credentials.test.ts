/**
 * Credentials on open connections (issue #24): a connection opened with a token closes when the
 * token expires or is revoked (`fw.credentials`): WebSocket with a `close` frame and code 1008,
 * SSE and streaming with a `close` frame, a held long-poll answered with one; the reason says
 * which (`credential_expired` / `credential_revoked`). The resource is kept for a resume with a
 * new credential. Real ES256 JWTs from a local JWKS, verified by the runtime's JWT authenticator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { authenticate, type Framework } from '../../dist/index.js';
import { connectWs, openStream, refusedUpgrade, startFw, type Running } from '../helpers.js';
import { startJwtIssuer, waitFor, type JwtIssuer } from '@fw/testing';

interface Frame {
  t: string;
  uuid?: string;
  reason?: string;
  resumed?: boolean;
  d?: string;
}

async function start(issuer: JwtIssuer, options: Record<string, unknown> = {}): Promise<Running> {
  return startFw(
    {
      'fw.auth.jwt.jwks-url': issuer.jwksUrl,
      'fw.auth.jwt.issuer': issuer.issuer,
      'fw.auth.jwt.audience': issuer.audience,
      // A token is expired at its `exp`, not 30 s later: the test waits seconds, not a minute.
      'fw.auth.jwt.clock-tolerance': 0,
      ...options,
    },
    (fw: Framework) => fw.handle('/feed', {}, { interceptors: [authenticate(fw)] }),
  );
}

test('websocket: a token that expires closes the socket (close frame, 1008 credential_expired); a new token resumes it', async (t) => {
  const issuer = await startJwtIssuer();
  const app = await start(issuer);
  t.after(async () => {
    await app.close();
    await issuer.close();
  });
  const c = await connectWs(`${app.ws}/fw/feed?fw=1&access_token=${issuer.token('alice', 2)}`);
  const hs = JSON.parse(await c.messages.next()) as Frame;
  assert.equal(hs.t, 'hs');
  const opened = Date.now();
  app.fw.runtime.broadcast('/fw/feed', 'before');
  assert.equal((JSON.parse(await c.messages.next()) as Frame).d, 'before');
  assert.equal(app.fw.credentials.watching, 1, 'the resource watches its credential');

  assert.deepEqual(JSON.parse(await c.messages.next(10_000)), { t: 'close', reason: 'credential_expired' });
  assert.deepEqual(await c.closed, { code: 1008, reason: 'credential_expired' });
  assert.ok(Date.now() - opened > 500, 'closed at the expiry, not at once');
  // Kept for a resume: it still buffers what is broadcast meanwhile.
  const r = app.fw.resources.get(hs.uuid!);
  assert.ok(r && !r.closed && r.connection === undefined, 'the resource is kept for a resume');
  app.fw.runtime.broadcast('/fw/feed', 'while away');

  // The dead token opens nothing, not even a resume.
  const dead = await refusedUpgrade(`${app.base}/fw/feed?fw=1&tracking=${hs.uuid}&last=1&access_token=${issuer.token('alice', -1)}`);
  assert.equal(dead.status, 401);
  // Another principal's token cannot take it over.
  const other = await refusedUpgrade(`${app.base}/fw/feed?fw=1&tracking=${hs.uuid}&last=1&access_token=${issuer.token('mallory')}`);
  assert.equal(other.status, 403);
  // A new token of the same principal resumes it: nothing lost, the new expiry watched.
  const again = await connectWs(`${app.ws}/fw/feed?fw=1&tracking=${hs.uuid}&last=1&access_token=${issuer.token('alice', 300)}`);
  const frames = (await again.messages.take(3)).map((s) => JSON.parse(s) as Frame);
  assert.equal(frames[0]!.t, 'hs');
  assert.equal(frames[0]!.resumed, true);
  assert.equal(frames[1]!.d, 'while away');
  assert.deepEqual(frames[2], { t: 'rec', recovered: true });
  assert.equal(app.fw.credentials.watching, 1);
  again.socket.close(1000);
  await waitFor('the resource gone', () => app.fw.runtime.stats().connections === 0);
  assert.equal(app.fw.credentials.watching, 0, 'no watch left behind');
});

test('sse and streaming: revoke() closes the stream with a credential_revoked close frame; the revoked token is refused', async (t) => {
  const issuer = await startJwtIssuer();
  const app = await start(issuer);
  t.after(async () => {
    await app.close();
    await issuer.close();
  });
  const token = issuer.token('bob');
  const sse = await openStream(`${app.base}/fw/feed?fw=1`, true, { authorization: `Bearer ${token}` });
  const stream = await openStream(`${app.base}/fw/feed?fw=1&transport=streaming`, false, { authorization: `Bearer ${token}` });
  assert.equal((JSON.parse((await sse.events.next()).data) as Frame).t, 'hs');
  assert.equal((JSON.parse((await stream.events.next()).data) as Frame).t, 'hs');

  assert.equal(app.fw.credentials.revoke('bob'), 2, 'both connections watched the credential');
  assert.deepEqual(JSON.parse((await sse.events.next()).data), { t: 'close', reason: 'credential_revoked' });
  assert.deepEqual(JSON.parse((await stream.events.next()).data), { t: 'close', reason: 'credential_revoked' });
  await sse.ended;
  await stream.ended;

  const refused = await fetch(`${app.base}/fw/feed?fw=1&transport=sse`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get('content-type'), 'application/problem+json');
  // A token issued after the revocation is good again.
  const later = issuer.token('bob', 300, { iat: Math.floor(Date.now() / 1000) + 1 });
  const ok = await openStream(`${app.base}/fw/feed?fw=1`, true, { authorization: `Bearer ${later}` });
  assert.equal(ok.status, 200);
  ok.abort();
});

test('long-polling: a held poll is answered with the close frame when the token expires; the next poll with it is refused', async (t) => {
  const issuer = await startJwtIssuer();
  const app = await start(issuer);
  t.after(async () => {
    await app.close();
    await issuer.close();
  });
  const token = issuer.token('carol', 2);
  const headers = { authorization: `Bearer ${token}` };
  const first = (await (await fetch(`${app.base}/fw/feed?fw=1&transport=long-polling`, { headers })).json()) as Frame[];
  const uuid = first[0]!.uuid!;
  // The next poll is held (nothing to send) until the token expires.
  const held = (await (
    await fetch(`${app.base}/fw/feed?fw=1&transport=long-polling&tracking=${uuid}&last=0`, { headers })
  ).json()) as Frame[];
  assert.deepEqual(held, [{ t: 'close', reason: 'credential_expired' }]);
  const next = await fetch(`${app.base}/fw/feed?fw=1&transport=long-polling&tracking=${uuid}&last=0`, { headers });
  assert.equal(next.status, 401);
  await next.arrayBuffer();
});

test('raw websocket: its resource ends with the credential (1008); a message POST with a dead token is refused', async (t) => {
  const issuer = await startJwtIssuer();
  const app = await start(issuer);
  t.after(async () => {
    await app.close();
    await issuer.close();
  });
  const raw = await connectWs(`${app.ws}/fw/feed?access_token=${issuer.token('dave')}`);
  await waitFor('connected', () => app.fw.runtime.stats().connections === 1);
  app.fw.credentials.revoke('dave');
  assert.deepEqual(await raw.closed, { code: 1008, reason: 'credential_revoked' });
  await waitFor('the raw resource ended', () => app.fw.runtime.stats().connections === 0);

  const sse = await openStream(`${app.base}/fw/feed?fw=1`, true, { authorization: `Bearer ${issuer.token('erin', 2)}` });
  const hs = JSON.parse((await sse.events.next()).data) as Frame;
  await sse.ended; // closed at the expiry
  const post = await fetch(`${app.base}/fw/feed?tracking=${hs.uuid}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${issuer.token('erin', -5)}` },
    body: 'late',
  });
  assert.equal(post.status, 401);
  await post.arrayBuffer();
});

test('a principal whose expiry has passed opens nothing, whatever the authenticator said (401 credential_expired)', async (t) => {
  const app = await startFw({ authenticator: () => ({ id: 'frank', expiresAt: Date.now() - 1000 }) }, (fw) =>
    fw.handle('/feed', {}, { interceptors: [authenticate(fw)] }),
  );
  t.after(() => app.close());
  const res = await fetch(`${app.base}/fw/feed?fw=1&transport=sse`);
  assert.equal(res.status, 401);
  assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
  const body = (await res.json()) as { code: string; detail: string };
  assert.equal(body.code, 'credential_expired');
  const ws = await refusedUpgrade(`${app.base}/fw/feed?fw=1`);
  assert.equal(ws.status, 401);
  assert.equal(ws.body.code, 'credential_expired');
  assert.equal(app.fw.runtime.stats().connections, 0);
});

test("authenticate(fw): no credential is a 401 on every way in; a bad token is the authenticator's 401", async (t) => {
  const issuer = await startJwtIssuer();
  const app = await start(issuer);
  t.after(async () => {
    await app.close();
    await issuer.close();
  });
  for (const url of [`${app.base}/fw/feed?fw=1&transport=sse`, `${app.base}/fw/feed?fw=1&transport=long-polling`]) {
    const res = await fetch(url);
    assert.equal(res.status, 401, url);
    assert.equal(((await res.json()) as { code: string }).code, 'unauthorized');
  }
  assert.equal((await refusedUpgrade(`${app.base}/fw/feed?fw=1`)).status, 401);
  const forged = `${issuer.token('gus').slice(0, -4)}AAAA`;
  const bad = await refusedUpgrade(`${app.base}/fw/feed?fw=1&access_token=${forged}`);
  assert.equal(bad.status, 401);
  assert.match(String(bad.body.detail), /bad signature|malformed/);
  assert.equal(app.fw.runtime.stats().connections, 0);
});
