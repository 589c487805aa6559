/**
 * A client that leaves while its MCP WebSocket upgrade is still being admitted (an async
 * authenticator): the session share it was about to hold goes back. Before, the share was taken
 * after the client had gone, and the `close` it waited for had already happened: the place was
 * held for nobody, for good, and at `fw.mcp.max-sessions` the next client was refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { once } from 'node:events';
import WebSocket from 'ws';
import { Framework } from '@fw/runtime';
import { upgradeRequest } from '@fw/testing';
import { mcp } from '../../dist/index.js';

test('an MCP WebSocket client that resets during admission holds no session share afterwards', async (t) => {
  let entered!: () => void;
  let inAuth = new Promise<void>((r) => (entered = r));
  let release!: () => void;
  let held = new Promise<void>((r) => (release = r));
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.mcp.max-sessions': 1,
    'fw.mcp.max-sessions-per-address': 0,
    authenticator: async () => {
      entered();
      await held;
      return { id: 'slow' };
    },
  });
  fw.mcp.tool('who', { description: 'Who is calling' }, (_args, ctx) => ({ principal: ctx.principal?.id ?? null }));
  await fw.use(mcp());
  const { port } = await fw.listen(0, '127.0.0.1');
  t.after(async () => {
    release();
    await fw.close();
  });

  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.write(upgradeRequest(port, '/mcp', { 'Sec-WebSocket-Protocol': 'mcp', Authorization: 'Bearer any-token-0123456789' }));

  await inAuth;
  socket.resetAndDestroy();
  await new Promise((r) => setTimeout(r, 100));
  release();
  await new Promise((r) => setTimeout(r, 100));

  // The only session place is free: the next client opens (with the cap at 1, a held place is 503).
  inAuth = new Promise<void>((r) => (entered = r));
  held = Promise.resolve();
  const ws = new WebSocket(`ws://127.0.0.1:${port}/mcp`, 'mcp', { headers: { authorization: 'Bearer any-token-0123456789' } });
  t.after(() => ws.terminate());
  const status = await new Promise<number>((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    ws.on('open', () => resolve(101));
    ws.on('error', (err) => {
      if (!/Unexpected server response/.test(err.message)) reject(err);
    });
  });
  assert.equal(status, 101);
});
