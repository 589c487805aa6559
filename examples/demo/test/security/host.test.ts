/**
 * DNS rebinding: a page whose name resolves to 127.0.0.1 talks to fw with its own name as Host.
 * Every fw surface refuses that Host (421 host_not_allowed, problem+json), over HTTP and on the
 * WebSocket handshake, in the default configuration and with a token; the names fw was told
 * about (fw.public-url, fw.security.allowed-hosts) are accepted, and agent cards never echo Host.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CONFIGURATIONS, HTTP_SURFACES, UPGRADE_SURFACES, handshake, send, startTarget, type Target } from './requests.js';

const REBIND = 'rebind.example:8080';

for (const { name, config, auth } of CONFIGURATIONS) {
  describe(`foreign Host (${name})`, () => {
    let target: Target;
    before(async () => {
      target = await startTarget(config);
    });
    after(() => target.close());

    for (const s of HTTP_SURFACES) {
      it(`${s.method} ${s.name}: 421 for a rebinding Host, answered for its own`, async () => {
        const refused = await send(target, s.method, s.path, { ...s.headers, ...auth, host: REBIND, origin: `http://${REBIND}` }, s.body);
        assert.equal(refused.status, 421, refused.text);
        assert.equal(refused.headers['content-type'], 'application/problem+json');
        assert.equal(refused.json().code, 'host_not_allowed');
        // The same request with the target's own Host is not refused for its Host.
        const own = await send(target, s.method, s.path, { ...s.headers, ...auth }, s.body);
        assert.notEqual(own.status, 421, `${s.name}: ${own.text}`);
      });
    }

    for (const s of UPGRADE_SURFACES) {
      it(`upgrade ${s.name}: refused before the handshake for a rebinding Host`, async () => {
        const refused = await handshake(target, s.path, { ...s.headers, host: REBIND, origin: `http://${REBIND}` });
        assert.deepEqual(refused, { status: 421, code: 'host_not_allowed' });
        const noOrigin = await handshake(target, s.path, { ...s.headers, host: 'rebind.example' });
        assert.deepEqual(noOrigin, { status: 421, code: 'host_not_allowed' });
      });
    }

    it('localhost and [::1] are loopback names: accepted on a loopback listener', async () => {
      for (const host of [`localhost:${target.port}`, `[::1]:${target.port}`, '127.0.0.1']) {
        const r = await send(target, 'GET', '/fw/client.js', { host });
        assert.equal(r.status, 200, host);
      }
      for (const host of ['127.0.0.2', 'localhost.rebind.example', `evil.localhost:${target.port}`, 'user@localhost', 'localhost:99999']) {
        assert.equal((await send(target, 'GET', '/fw/client.js', { host })).status, 421, host);
      }
    });

    it('the agent card builds its URLs from the listening address, never from Host', async () => {
      const r = await send(target, 'GET', '/fw/agent/assistant/.well-known/agent-card.json', { host: `localhost:${target.port}` });
      assert.equal(r.status, 200);
      const card = r.json<{ url: string }>();
      assert.equal(card.url, `http://127.0.0.1:${target.port}/fw/agent/assistant/a2a`);
    });

    it('the probes answer any Host (orchestrators call them by IP address)', async () => {
      assert.equal((await send(target, 'GET', '/fw/health', { host: '10.1.2.3:8080' })).status, 200);
    });
  });
}

describe('configured names', () => {
  let target: Target;
  before(async () => {
    target = await startTarget({ 'fw.public-url': 'https://app.example', 'fw.security.allowed-hosts': 'fw.internal' });
  });
  after(() => target.close());

  it('the public URL host and an allowed host are accepted; others still are not', async () => {
    assert.equal((await send(target, 'GET', '/api/admin/overview', { host: 'app.example' })).status, 200);
    assert.equal((await send(target, 'GET', '/api/admin/overview', { host: `fw.internal:${target.port}` })).status, 200);
    assert.equal((await handshake(target, '/fw/chat/lobby', { host: 'app.example', origin: 'https://app.example' })).status, 101);
    assert.equal((await send(target, 'GET', '/api/admin/overview', { host: 'rebind.example' })).status, 421);
  });

  it('the public URL origin may use fw from the browser; the card advertises the public URL whatever the Host', async () => {
    const r = await send(
      target,
      'POST',
      '/api/admin/broadcasters/broadcast',
      { host: 'app.example', origin: 'https://app.example', 'content-type': 'application/json' },
      JSON.stringify({ broadcasterId: '/fw/chat/lobby', message: 'hi' }),
    );
    assert.notEqual(r.status, 403, r.text);
    assert.notEqual(r.status, 421, r.text);
    const card = (
      await send(target, 'GET', '/fw/agent/assistant/.well-known/agent-card.json', { host: `fw.internal:${target.port}` })
    ).json<{ url: string }>();
    assert.equal(card.url, 'https://app.example/fw/agent/assistant/a2a');
  });
});
