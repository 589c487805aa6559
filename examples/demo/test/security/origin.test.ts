/**
 * Another site's page in the operator's browser: its cross-site `text/plain` POSTs (no preflight
 * needed) to A2A, AG-UI, MCP and the admin REST API start nothing, its WebSocket handshakes are
 * refused, and CORS preflights are answered from fw.security.allowed-origins. Default
 * configuration and with a token alike.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CONFIGURATIONS, a2aSendBody, aguiRunBody, handshake, initializeBody, send, startTarget, type Target } from './requests.js';

const EVIL = 'http://evil.example';

/** Cross-site simple requests: what a form or `fetch(..., {mode: 'no-cors'})` can send without a preflight. */
const SIMPLE_POSTS = [
  { name: 'A2A', path: '/fw/agent/assistant/a2a', body: a2aSendBody('run for evil') },
  { name: 'A2A (coordinator)', path: '/fw/agent/lead/a2a', body: a2aSendBody('coordinate for evil') },
  { name: 'AG-UI', path: '/fw/agent/assistant/agui', body: aguiRunBody('evil-run') },
  { name: 'MCP', path: '/mcp', body: initializeBody() },
  {
    name: 'admin REST broadcast',
    path: '/api/admin/broadcasters/broadcast',
    body: JSON.stringify({ broadcasterId: '/fw/chat/lobby', message: 'forged' }),
  },
  { name: 'admin REST cancel', path: '/api/admin/tasks/any/cancel', body: '{}' },
];

for (const { name, config, auth } of CONFIGURATIONS) {
  describe(`cross-site requests (${name})`, () => {
    let target: Target;
    before(async () => {
      target = await startTarget(config);
    });
    after(() => target.close());

    const list = async (path: string): Promise<unknown[]> => {
      const r = await send(target, 'GET', path, auth);
      assert.equal(r.status, 200, r.text);
      return r.json<unknown[]>();
    };

    it('a text/plain POST from another site to A2A, AG-UI, MCP and admin REST is refused and starts nothing', async () => {
      const tasks = await list('/api/admin/tasks');
      const journal = await list('/api/admin/journal');
      for (const p of SIMPLE_POSTS) {
        for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
          const r = await send(target, 'POST', p.path, { ...auth, origin: EVIL, 'content-type': type }, p.body);
          assert.equal(r.status, 403, `${p.name} ${type}: ${r.text}`);
          assert.equal(r.json().code, 'origin_not_allowed');
        }
        // A page that hides its Origin (none is sent) still cannot post a non-JSON body.
        const plain = await send(target, 'POST', p.path, { ...auth, 'content-type': 'text/plain' }, p.body);
        assert.equal(plain.status, 415, `${p.name}: ${plain.text}`);
        assert.match(plain.json().code as string, /unsupported_media_type$/);
      }
      assert.deepEqual(await list('/api/admin/tasks'), tasks);
      assert.deepEqual(await list('/api/admin/journal'), journal);
      const recent = await list('/api/admin/events/recent');
      assert.equal(
        recent.some(
          (e) => (e as { type: string }).type === 'MessageBroadcast' && (e as { broadcasterId: string }).broadcasterId === '/fw/chat/lobby',
        ),
        false,
      );
      assert.equal(
        recent.some((e) => (e as { type: string }).type === 'AgentSessionStarted'),
        false,
      );
      // Refused admin writes are audited with the reason.
      const audit = await list('/api/admin/audit');
      assert.ok(
        audit.some((e) => (e as { reason?: string }).reason === 'origin not allowed'),
        JSON.stringify(audit.slice(0, 3)),
      );
    });

    it("a foreign Origin cannot open /fw/chat/lobby, /fw/admin/events or /mcp; the page's own origin can", async () => {
      const token = auth.authorization ? `&access_token=${auth.authorization.slice(7)}` : '';
      const surfaces = [
        { path: '/fw/chat/lobby', headers: {} },
        { path: '/fw/chat/lobby?fw=1', headers: {} },
        { path: `/fw/admin/events?fw=1${token}`, headers: {} },
        { path: '/mcp', headers: { 'sec-websocket-protocol': 'mcp', ...auth } },
      ];
      for (const s of surfaces) {
        for (const origin of [EVIL, 'null', `http://localhost:${target.port + 1}`]) {
          assert.deepEqual(
            await handshake(target, s.path, { ...s.headers, origin }),
            { status: 403, code: 'origin_not_allowed' },
            `${s.path} ${origin}`,
          );
        }
        assert.equal((await handshake(target, s.path, { ...s.headers, origin: target.origin })).status, 101, s.path);
      }
    });

    it('preflights from a foreign origin are refused on every kind of fw route', async () => {
      for (const path of [
        '/api/admin/broadcasters/broadcast',
        '/mcp',
        '/fw/agent/assistant/a2a',
        '/fw/agent/assistant/agui',
        '/fw/chat/lobby',
      ]) {
        const r = await send(target, 'OPTIONS', path, {
          origin: EVIL,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        });
        assert.equal(r.status, 403, path);
        assert.equal(r.json().code, 'origin_not_allowed');
        assert.equal(r.headers['access-control-allow-origin'], undefined);
      }
    });
  });
}

describe('an allowed origin (fw.security.allowed-origins)', () => {
  const OPS = 'https://ops.example';
  let target: Target;
  before(async () => {
    target = await startTarget({ 'fw.security.allowed-origins': OPS });
  });
  after(() => target.close());

  it("gets its preflights answered 204 with the route's methods and the requested headers", async () => {
    for (const [path, method] of [
      ['/api/admin/broadcasters/broadcast', 'POST'],
      ['/mcp', 'DELETE'],
      ['/fw/agent/assistant/a2a', 'POST'],
      ['/fw/chat/lobby', 'POST'],
    ] as const) {
      const r = await send(target, 'OPTIONS', path, {
        origin: OPS,
        'access-control-request-method': method,
        'access-control-request-headers': 'content-type, authorization, mcp-session-id',
      });
      assert.equal(r.status, 204, path);
      assert.equal(r.headers['access-control-allow-origin'], OPS);
      assert.match(String(r.headers['access-control-allow-methods']), new RegExp(method));
      assert.equal(r.headers['access-control-allow-headers'], 'content-type, authorization, mcp-session-id');
      assert.equal(r.headers['access-control-max-age'], '600');
      assert.match(String(r.headers.vary), /Origin/);
    }
    const other = await send(target, 'OPTIONS', '/mcp', { origin: EVIL, 'access-control-request-method': 'POST' });
    assert.equal(other.status, 403);
  });

  it('may call fw (with CORS headers on the answer) while other origins still may not', async () => {
    const ok = await send(
      target,
      'POST',
      '/mcp',
      { origin: OPS, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      initializeBody(),
    );
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.headers['access-control-allow-origin'], OPS);
    assert.match(String(ok.headers['access-control-expose-headers']), /Mcp-Session-Id/);
    assert.equal((await handshake(target, '/fw/chat/lobby', { origin: OPS })).status, 101);
    assert.equal((await send(target, 'POST', '/mcp', { origin: EVIL, 'content-type': 'application/json' }, initializeBody())).status, 403);
  });
});
