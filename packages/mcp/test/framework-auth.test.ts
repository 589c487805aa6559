/**
 * MCP endpoints and the framework's authenticator (fw.auth.tokens here), without the admin plane:
 * a valid bearer token is the tool's `ctx.principal`; a token nobody accepts is 401
 * `invalid_token`; no token is 401 too while `fw.mcp.auth` is `auto` (the default, as for the
 * agents), and anonymous with `fw.mcp.auth=none`. Without any authenticator the endpoint is open.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { Framework } from '@fw/runtime';
import { mcp } from '../dist/index.js';
import { modernCall } from './helpers.js';

const TOKEN = 'alice-token-0123456789';
async function whoAmI(base: string, token?: string): Promise<{ status: number; principal?: string | null; challenge?: string }> {
  const answer = await modernCall(
    `${base}/mcp`,
    'tools/call',
    { name: 'who', arguments: {} },
    token ? { authorization: `Bearer ${token}` } : {},
  );
  const principal = (answer.body.result?.structuredContent as { principal: string | null } | undefined)?.principal;
  const challenge = answer.headers.get('www-authenticate');
  return { status: answer.status, ...(principal !== undefined ? { principal } : {}), ...(challenge ? { challenge } : {}) };
}

async function start(options: Record<string, unknown>): Promise<{ fw: Framework; base: string; port: number }> {
  const fw = new Framework({ configFile: false, env: {}, ...options });
  fw.mcp.tool('who', { description: 'Who is calling' }, (_args, ctx) => ({ principal: ctx.principal?.id ?? null }));
  await fw.use(mcp());
  const { port } = await fw.listen(0, '127.0.0.1');
  return { fw, base: `http://127.0.0.1:${port}`, port };
}

/** The HTTP status of a WebSocket upgrade to /mcp (101 when it opens). */
function upgradeStatus(port: number, headers: Record<string, string>, query = ''): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/mcp${query}`, 'mcp', { headers });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.on('open', () => {
      resolve(101);
      ws.close();
    });
    ws.on('error', (err) => {
      if (!/Unexpected server response/.test(err.message)) reject(err);
    });
  });
}

test('fw.auth.tokens, no admin plane, fw.mcp.auth=auto (default): a valid token is the principal; none is 401 Bearer, a wrong one 401 invalid_token (modern, legacy, WebSocket)', async () => {
  const { fw, base, port } = await start({ 'fw.auth.tokens': `alice:viewer:${TOKEN}` });
  try {
    assert.deepEqual(await whoAmI(base, TOKEN), { status: 200, principal: 'alice' });
    assert.deepEqual(await whoAmI(base), { status: 401, challenge: 'Bearer' });
    assert.deepEqual(
      await whoAmI(base, 'wrong-token-0123456789'),
      { status: 401, challenge: 'Bearer error="invalid_token"' },
      'RFC 6750 §3.1',
    );

    const legacy = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer wrong-token-0123456789',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    assert.equal(legacy.status, 401, 'a legacy initialize with a wrong token opens no session');
    await legacy.body?.cancel();

    assert.equal(
      await upgradeStatus(port, { authorization: 'Bearer wrong-token-0123456789' }),
      401,
      'a WebSocket upgrade with a wrong token',
    );
    assert.equal(await upgradeStatus(port, {}), 401, 'a WebSocket upgrade without one');
    assert.equal(await upgradeStatus(port, { authorization: `Bearer ${TOKEN}` }), 101);
    assert.equal(
      await upgradeStatus(port, {}, `?access_token=${TOKEN}`),
      101,
      'a browser cannot set headers: ?access_token= on the upgrade',
    );
    const inQuery = await modernCall(`${base}/mcp?access_token=${TOKEN}`, 'tools/call', { name: 'who', arguments: {} });
    assert.equal(inQuery.status, 401, 'but never in the query of a plain HTTP request');
  } finally {
    await fw.close();
  }
});

test('fw.mcp.auth=none: a caller without a credential is served anonymously; a valid token is still the principal, a wrong one still 401', async () => {
  const { fw, base } = await start({ 'fw.auth.tokens': `alice:viewer:${TOKEN}`, 'fw.mcp.auth': 'none' });
  try {
    assert.deepEqual(await whoAmI(base), { status: 200, principal: null });
    assert.deepEqual(await whoAmI(base, TOKEN), { status: 200, principal: 'alice' });
    assert.equal((await whoAmI(base, 'wrong-token-0123456789')).status, 401);
  } finally {
    await fw.close();
  }
});

test('without any authenticator the endpoint is open and a bearer token is not looked at; a misspelled fw.mcp.auth fails the mount', async () => {
  const { fw, base } = await start({});
  try {
    assert.deepEqual(await whoAmI(base, 'some-token-for-something-else'), { status: 200, principal: null });
  } finally {
    await fw.close();
  }
  const bad = new Framework({ configFile: false, env: {}, 'fw.mcp.auth': 'optional' });
  await assert.rejects(bad.use(mcp()), /fw\.mcp\.auth must be 'auto' or 'none'/);
  await bad.close();
});
