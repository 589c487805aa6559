/**
 * Static tokens name principals with roles: a viewer reads and cannot write, an operator
 * broadcasts and cannot destroy, an admin destroys; on REST and on the admin MCP tools alike.
 * The principal is in every audit record.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { API, startIdentityApp, textOf, type Audited } from './identity-app.js';

const VIEWER = 'viewer-token-0123456789';
const OPERATOR = 'operator-token-0123456789';
const ADMIN = 'admin-token-0123456789ab';
const TOKENS = `vera:viewer:${VIEWER},otto:operator:${OPERATOR},ada:admin:${ADMIN}`;

test('roles on REST: viewer reads only, operator cannot destroy, admin can; no credential is a 401', async () => {
  const app = await startIdentityApp({ 'fw.auth.tokens': TOKENS });
  try {
    assert.equal((await app.get(`${API}/overview`)).status, 401, 'authentication is configured: no anonymous loopback access');
    assert.equal((await app.get(`${API}/overview`, 'not-a-token-at-all')).status, 401);
    for (const token of [VIEWER, OPERATOR, ADMIN]) assert.equal((await app.get(`${API}/overview`, token)).status, 200);

    const session = (await (await app.get(`${API}/session`, VIEWER)).json()) as {
      principal: string;
      role: string;
      permissions: Record<string, boolean>;
    };
    assert.deepEqual([session.principal, session.role], ['vera', 'viewer']);
    assert.ok(
      Object.values(session.permissions).every((p) => p === false),
      'a viewer may do nothing',
    );

    const broadcast = { broadcasterId: '/fw/chat/lobby', message: 'hi' };
    app.fw.broadcasters.lookup('/fw/chat/lobby', true);
    app.fw.broadcasters.lookup('/fw/chat/random', true);
    const denied = await app.send('POST', `${API}/broadcasters/broadcast`, broadcast, VIEWER);
    assert.equal(denied.status, 403);
    assert.equal(((await denied.json()) as { code: string }).code, 'forbidden');
    assert.equal((await app.send('POST', `${API}/broadcasters/broadcast`, broadcast, OPERATOR)).status, 200);
    const destroy = `${API}/broadcasters/${encodeURIComponent('/fw/chat/random')}`;
    assert.equal((await app.send('DELETE', destroy, undefined, OPERATOR)).status, 403);
    assert.ok(app.fw.broadcasters.lookup('/fw/chat/random'), 'the operator did not destroy it');
    assert.equal((await app.send('DELETE', destroy, undefined, ADMIN)).status, 200);
    assert.equal(app.fw.broadcasters.lookup('/fw/chat/random'), undefined);

    const audit = (await (await app.get(`${API}/audit?limit=100`, ADMIN)).json()) as Audited[];
    const writes = audit
      .filter((e) => e.action !== 'read')
      .reverse()
      .map((e) => [e.action, e.target, e.principal, e.outcome]);
    assert.deepEqual(writes, [
      ['broadcast', '/fw/chat/lobby', 'vera', 'refused'],
      ['broadcast', '/fw/chat/lobby', 'otto', 'allowed'],
      ['destroy', '/fw/chat/random', 'otto', 'refused'],
      ['destroy', '/fw/chat/random', 'ada', 'allowed'],
    ]);
    assert.ok(
      audit.some((e) => e.action === 'read' && e.outcome === 'refused' && e.target === `${API}/overview`),
      'refused reads are audited',
    );
  } finally {
    await app.close();
  }
});

test('roles on the admin MCP tools: the same answers as REST', async () => {
  const app = await startIdentityApp({ 'fw.auth.tokens': TOKENS, 'fw.admin.mcp-write-tools': true });
  try {
    app.fw.broadcasters.lookup('/fw/chat/lobby', true);
    app.fw.broadcasters.lookup('/fw/chat/random', true);
    await assert.rejects(app.mcp('/fw/admin/mcp'), /401|nauthorized/, 'no credential, no session');
    const viewer = await app.mcp('/fw/admin/mcp', VIEWER);
    const operator = await app.mcp('/fw/admin/mcp', OPERATOR);
    const admin = await app.mcp('/fw/admin/mcp', ADMIN);

    const overview = await viewer.callTool({ name: 'fw_overview', arguments: {} });
    assert.notEqual(overview.isError, true);
    const v = await viewer.callTool({ name: 'fw_broadcast', arguments: { broadcasterId: '/fw/chat/lobby', message: 'x' } });
    assert.equal(v.isError, true);
    assert.match(textOf(v), /forbidden.*operator/);
    const o = await operator.callTool({ name: 'fw_broadcast', arguments: { broadcasterId: '/fw/chat/lobby', message: 'x' } });
    assert.notEqual(o.isError, true, textOf(o));
    const od = await operator.callTool({ name: 'fw_destroy_broadcaster', arguments: { broadcasterId: '/fw/chat/random' } });
    assert.equal(od.isError, true);
    assert.ok(app.fw.broadcasters.lookup('/fw/chat/random'));
    const ad = await admin.callTool({ name: 'fw_destroy_broadcaster', arguments: { broadcasterId: '/fw/chat/random' } });
    assert.notEqual(ad.isError, true, textOf(ad));
    assert.equal(app.fw.broadcasters.lookup('/fw/chat/random'), undefined);

    const audit = (await (await app.get(`${API}/audit?limit=100`, ADMIN)).json()) as Audited[];
    assert.deepEqual(
      audit
        .filter((e) => e.action !== 'read')
        .reverse()
        .map((e) => [e.action, e.principal, e.outcome, e.source]),
      [
        ['broadcast', 'vera', 'refused', 'mcp'],
        ['broadcast', 'otto', 'allowed', 'mcp'],
        ['destroy', 'otto', 'refused', 'mcp'],
        ['destroy', 'ada', 'allowed', 'mcp'],
      ],
    );
  } finally {
    await app.close();
  }
});

test('fw.admin.auth.token keeps working as the admin principal beside fw.auth.tokens', async () => {
  const app = await startIdentityApp({ 'fw.auth.tokens': TOKENS, 'fw.admin.auth.token': 'legacy-admin-token' });
  try {
    const session = (await (await app.get(`${API}/session`, 'legacy-admin-token')).json()) as { principal: string; role: string };
    assert.deepEqual([session.principal, session.role], ['admin', 'admin']);
    assert.equal((await app.get(`${API}/overview`, VIEWER)).status, 200);
  } finally {
    await app.close();
  }
});

test("every way to end an event-stream consumer passes the chain: a tracked DELETE needs the consumer's own principal", async () => {
  const app = await startIdentityApp({ 'fw.auth.tokens': TOKENS });
  const { default: WebSocket } = await import('ws');
  const ws = new WebSocket(`${app.base.replace('http', 'ws')}/fw/admin/events?access_token=${VIEWER}`);
  try {
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const consumers = (await (await app.get(`${API}/resources?broadcaster=${encodeURIComponent('/fw/admin/events')}`, ADMIN)).json()) as {
      uuid: string;
      principal: string;
    }[];
    assert.equal(consumers.length, 1);
    const { uuid, principal } = consumers[0]!;
    assert.equal(principal, 'vera');
    const end = (token?: string) =>
      fetch(`${app.base}/fw/admin/events?tracking=${uuid}${token ? `&access_token=${token}` : ''}`, { method: 'DELETE' });
    assert.equal((await end()).status, 401, 'no credential');
    assert.equal((await end(OPERATOR)).status, 403, 'another principal');
    assert.equal(ws.readyState, WebSocket.OPEN, 'the consumer is still there');
    // Through the admin API it is a disconnect: operator and up, audited.
    assert.equal((await app.send('DELETE', `${API}/resources/${uuid}`, undefined, VIEWER)).status, 403);
    const closed = new Promise((resolve) => ws.once('close', resolve));
    assert.equal((await app.send('DELETE', `${API}/resources/${uuid}`, undefined, OPERATOR)).status, 200);
    await closed;
  } finally {
    ws.close();
    await app.close();
  }
});
