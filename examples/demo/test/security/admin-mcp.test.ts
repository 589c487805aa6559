/**
 * Admin MCP tools obey the admin gate exactly as REST. A client on another machine (forwarded by
 * a trusted proxy: fw.security.trusted-proxies) without credentials: /fw/admin/mcp refuses it, the app's
 * /mcp (even with the opt-in) shows it no fw_* tool, and REST refuses it. The same client with a
 * credential gets in once authentication is configured.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { API, startIdentityApp } from './identity-app.js';

const REMOTE = '203.0.113.9';

test('without authentication: a non-loopback client sees no fw_* tool anywhere and can write nothing', async () => {
  const app = await startIdentityApp({ 'fw.admin.mcp-write-tools': true, 'fw.admin.mcp-tools-on-user-server': true });
  try {
    // Loopback: the local operator sees the tools on both servers.
    const near = await app.mcp('/mcp');
    assert.ok((await near.listTools()).tools.some((t) => t.name === 'fw_broadcast'));
    app.from(REMOTE);
    await assert.rejects(app.mcp('/fw/admin/mcp'), /403|remote_access_refused|Forbidden/);
    const far = await app.mcp('/mcp');
    const names = (await far.listTools()).tools.map((t) => t.name);
    assert.deepEqual(
      names.filter((n) => n.startsWith('fw_')),
      [],
    );
    assert.ok(names.length > 0, "the app's own tools are still there");
    await assert.rejects(
      far.callTool({ name: 'fw_broadcast', arguments: { broadcasterId: '/fw/chat/lobby', message: 'x' } }),
      /unknown tool/,
    );
    assert.equal((await app.get(`${API}/overview`)).status, 403);
    assert.equal((await app.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/fw/chat/lobby', message: 'x' })).status, 403);
    const audit = await await app.fw.services.get('admin')!.audit.query();
    assert.ok(
      audit.some((e) => e.action === 'broadcast' && e.target === '/fw/chat/lobby' && e.address === REMOTE),
      'refused with the real target and address',
    );
  } finally {
    await app.close();
  }
});

test("by default the app's /mcp has no fw_* tool at all", async () => {
  const app = await startIdentityApp();
  try {
    const user = await app.mcp('/mcp');
    assert.deepEqual(
      (await user.listTools()).tools.filter((t) => t.name.startsWith('fw_')),
      [],
    );
    const admin = await app.mcp('/fw/admin/mcp');
    assert.ok((await admin.listTools()).tools.some((t) => t.name === 'fw_overview'));
  } finally {
    await app.close();
  }
});

test('with authentication configured: a remote client with a viewer token reads, without one it gets nothing', async () => {
  const token = 'remote-viewer-token-0123';
  const app = await startIdentityApp({ 'fw.auth.tokens': `remote:viewer:${token}`, 'fw.admin.mcp-tools-on-user-server': true });
  try {
    app.from(REMOTE);
    // fw.mcp.auth=auto (the default): with an authenticator configured, the app's /mcp needs it too.
    await assert.rejects(app.mcp('/mcp'), /401|nauthorized/);
    await assert.rejects(app.mcp('/fw/admin/mcp'), /401|nauthorized/);
    const viewer = await app.mcp('/fw/admin/mcp', token);
    const overview = await viewer.callTool({ name: 'fw_overview', arguments: {} });
    assert.notEqual(overview.isError, true);
    assert.equal((await app.get(`${API}/overview`, token)).status, 200);
  } finally {
    await app.close();
  }
});

test('fw.mcp.auth=none: an anonymous remote client is served on /mcp, and sees no fw_* admin tool there', async () => {
  const app = await startIdentityApp({
    'fw.auth.tokens': 'remote:viewer:remote-viewer-token-0123',
    'fw.admin.mcp-tools-on-user-server': true,
    'fw.mcp.auth': 'none',
  });
  try {
    app.from(REMOTE);
    const anon = await app.mcp('/mcp');
    assert.deepEqual(
      (await anon.listTools()).tools.filter((t) => t.name.startsWith('fw_')),
      [],
    );
    await assert.rejects(app.mcp('/fw/admin/mcp'), /401|nauthorized/);
  } finally {
    await app.close();
  }
});
