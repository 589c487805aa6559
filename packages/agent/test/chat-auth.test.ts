/**
 * A chat session runs the model and the agent's tools, so it is behind the same gate as A2A,
 * AG-UI and the per-agent MCP endpoint: with an authenticator configured, a WebSocket upgrade or
 * an SSE stream without a valid credential is refused with 401 before any session opens; with
 * `?access_token=` (browsers cannot set headers on sockets) it opens, owned by that principal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import WebSocket from 'ws';
import { Agent } from '../dist/index.js';
import { startApp } from './helpers.js';

@Agent({ name: 'guarded' })
class Guarded {}

const TOKEN = 'chat-user-token-0123456789';

/** The HTTP status an upgrade gets, or 101 when it opens; the first message when it does. */
function upgrade(url: string): Promise<{ status: number; first?: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      res.resume();
      ws.terminate();
    });
    ws.on('message', (d) => {
      resolve({ status: 101, first: String(d) });
      ws.close();
    });
    ws.on('error', (err) => {
      if (!/Unexpected server response/.test(err.message)) reject(err);
    });
  });
}

function sseStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      resolve(res.statusCode ?? 0);
      res.destroy();
    });
    req.on('error', reject);
    req.end();
  });
}

test('with fw.auth.tokens, a chat session needs the credential: 401 without it or with a wrong one, on WebSocket and SSE; ?access_token= opens it', async () => {
  const app = await startApp((m) => m.mount(Guarded), { 'fw.auth.tokens': `alice:viewer:${TOKEN}` });
  const ws = app.base.replace('http', 'ws');
  try {
    assert.equal((await upgrade(`${ws}/fw/agent/guarded`)).status, 401, 'no credential');
    assert.equal((await upgrade(`${ws}/fw/agent/guarded?access_token=wrong-token-0123456789`)).status, 401, 'a wrong token');
    assert.equal(await sseStatus(`${app.base}/fw/agent/guarded?transport=sse`), 401, 'SSE without a credential');
    assert.equal(app.module.view.sessions('guarded').length, 0, 'no session opened for a refused caller');

    const ok = await upgrade(`${ws}/fw/agent/guarded?access_token=${TOKEN}`);
    assert.equal(ok.status, 101);
    assert.equal((JSON.parse(ok.first!) as { type: string }).type, 'session');
    assert.equal(await sseStatus(`${app.base}/fw/agent/guarded?transport=sse&access_token=${TOKEN}`), 200);
  } finally {
    await app.close();
  }
});

test('fw.agent.auth=none keeps chat sessions public even with fw.auth.tokens; without any authenticator they are public', async () => {
  for (const options of [{ 'fw.auth.tokens': `alice:viewer:${TOKEN}`, 'fw.agent.auth': 'none' }, {}]) {
    const app = await startApp((m) => m.mount(Guarded), options);
    try {
      const opened = await upgrade(`${app.base.replace('http', 'ws')}/fw/agent/guarded`);
      assert.equal(opened.status, 101, JSON.stringify(options));
    } finally {
      await app.close();
    }
  }
});
