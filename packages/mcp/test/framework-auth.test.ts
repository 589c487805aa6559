/**
 * With the framework's authenticator configured (fw.auth.tokens here) and no admin plane, an MCP
 * endpoint recognises the credential: a valid bearer token is the tool's `ctx.principal`, a token
 * nobody accepts is refused with 401 (over HTTP in both eras and on the WebSocket upgrade), and a
 * request without one stays anonymous (the app's tools decide what an anonymous caller may do).
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
  return { status: answer.status, principal, ...(challenge ? { challenge } : {}) };
}

test('fw.auth.tokens without the admin plane: a valid token is the principal, a wrong one is 401 (modern, legacy, WebSocket), none is anonymous', async () => {
  const fw = new Framework({ configFile: false, env: {}, 'fw.auth.tokens': `alice:viewer:${TOKEN}` });
  fw.mcp.tool('who', { description: 'Who is calling' }, (_args, ctx) => ({ principal: ctx.principal?.id ?? null }));
  await fw.use(mcp());
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  try {
    assert.deepEqual(await whoAmI(base, TOKEN), { status: 200, principal: 'alice' });
    assert.deepEqual(await whoAmI(base), { status: 200, principal: null });
    const wrong = await whoAmI(base, 'wrong-token-0123456789');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.challenge, 'Bearer error="invalid_token"', 'RFC 6750 §3.1');

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

    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/mcp`, 'mcp', { headers: { authorization: 'Bearer wrong-token-0123456789' } });
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
    assert.equal(status, 401, 'the WebSocket upgrade with a wrong token is refused');
  } finally {
    await fw.close();
  }
});

test('without any authenticator a bearer token is not looked at: the endpoint stays public', async () => {
  const fw = new Framework({ configFile: false, env: {} });
  fw.mcp.tool('who', { description: 'Who is calling' }, (_args, ctx) => ({ principal: ctx.principal?.id ?? null }));
  await fw.use(mcp());
  const { port } = await fw.listen(0, '127.0.0.1');
  try {
    assert.deepEqual(await whoAmI(`http://127.0.0.1:${port}`, 'some-token-for-something-else'), { status: 200, principal: null });
  } finally {
    await fw.close();
  }
});
