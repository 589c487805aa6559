/**
 * X-Forwarded-For/-Host/-Proto are believed only from fw.security.trusted-proxies: a client that
 * claims another address or host gains nothing, and behind a configured proxy the admin plane
 * sees the real client (not the proxy's loopback address) and the forwarded Host is checked.
 * The test's connections come from 127.0.0.1 (the "proxy") or 127.0.0.2 (anyone else).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TOKEN, send, startTarget, type Target } from './requests.js';

describe('without trusted proxies (the default)', () => {
  let target: Target;
  before(async () => {
    target = await startTarget();
  });
  after(() => target.close());

  it('X-Forwarded-For and X-Forwarded-Host are ignored: the socket decides', async () => {
    // A remote address claimed in the header does not lock out a loopback client ...
    assert.equal((await send(target, 'GET', '/api/admin/overview', { 'x-forwarded-for': '203.0.113.5' })).status, 200);
    // ... a loopback address claimed in it is no key either: the loopback rule reads the socket.
    assert.equal(target.demo.fw.security.proxies.trusts('127.0.0.1'), false);
    // ... and a forwarded host is not the Host that is checked.
    assert.equal((await send(target, 'GET', '/api/admin/overview', { 'x-forwarded-host': 'rebind.example' })).status, 200);
    assert.equal(
      (await send(target, 'GET', '/api/admin/overview', { host: 'rebind.example', 'x-forwarded-host': `127.0.0.1:${target.port}` })).status,
      421,
    );
  });
});

describe('behind a trusted proxy (fw.security.trusted-proxies=127.0.0.1)', () => {
  let target: Target;
  before(async () => {
    target = await startTarget({ 'fw.security.trusted-proxies': '127.0.0.1', 'fw.public-url': 'https://app.example' });
  });
  after(() => target.close());

  it('the admin plane sees the forwarded client: a remote one is refused without authentication', async () => {
    const remote = await send(target, 'GET', '/api/admin/overview', { 'x-forwarded-for': '203.0.113.5' });
    assert.equal(remote.status, 403, remote.text);
    assert.equal(remote.json().code, 'remote_access_refused');
    // Spoofing a loopback hop in front of the real one does not help: the rightmost untrusted hop counts.
    const spoof = await send(target, 'GET', '/api/admin/overview', { 'x-forwarded-for': '127.0.0.1, 203.0.113.5' });
    assert.equal(spoof.status, 403);
    // A loopback client through the proxy is still local.
    assert.equal((await send(target, 'GET', '/api/admin/overview', { 'x-forwarded-for': '127.0.0.1' })).status, 200);
  });

  it('the same headers from a peer that is not a trusted proxy are ignored', async () => {
    const r = await send(target, 'GET', '/api/admin/overview', { 'x-forwarded-for': '203.0.113.5' }, undefined, {
      localAddress: '127.0.0.2',
    });
    assert.equal(r.status, 200, r.text);
    const host = await send(
      target,
      'GET',
      '/api/admin/overview',
      { 'x-forwarded-host': 'app.example', host: 'rebind.example' },
      undefined,
      { localAddress: '127.0.0.2' },
    );
    assert.equal(host.status, 421);
  });

  it('the forwarded Host is checked: the public URL passes, another name is refused', async () => {
    assert.equal(
      (await send(target, 'GET', '/fw/client.js', { 'x-forwarded-host': 'app.example', 'x-forwarded-proto': 'https' })).status,
      200,
    );
    const rebind = await send(target, 'GET', '/fw/client.js', { 'x-forwarded-host': 'rebind.example' });
    assert.equal(rebind.status, 421);
    assert.equal(rebind.json().code, 'host_not_allowed');
    // The public origin, forwarded, may write; the card names the public URL.
    const write = await send(
      target,
      'POST',
      '/api/admin/broadcasters/broadcast',
      {
        'x-forwarded-host': 'app.example',
        'x-forwarded-for': '127.0.0.1',
        origin: 'https://app.example',
        'content-type': 'application/json',
      },
      JSON.stringify({ broadcasterId: '/fw/chat/lobby', message: 'hi' }),
    );
    assert.ok(write.status !== 403 && write.status !== 421, write.text);
    const card = (
      await send(target, 'GET', '/fw/agent/assistant/.well-known/agent-card.json', { 'x-forwarded-host': 'app.example' })
    ).json<{ url: string }>();
    assert.equal(card.url, 'https://app.example/fw/agent/assistant/a2a');
  });
});

describe('behind a trusted proxy with a token', () => {
  let target: Target;
  before(async () => {
    target = await startTarget({ 'fw.security.trusted-proxies': 'loopback', 'fw.admin.auth.token': TOKEN });
  });
  after(() => target.close());

  it('a remote client needs the token and gets in with it', async () => {
    assert.equal((await send(target, 'GET', '/api/admin/overview', { 'x-forwarded-for': '203.0.113.5' })).status, 401);
    assert.equal(
      (await send(target, 'GET', '/api/admin/overview', { 'x-forwarded-for': '203.0.113.5', authorization: `Bearer ${TOKEN}` })).status,
      200,
    );
  });
});
