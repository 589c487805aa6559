import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import WebSocket from 'ws';
import { Framework } from '@fw/runtime';
import { admin, DASHBOARD_CSP } from '../dist/index.js';
import { fwAdminPlugin } from '../dist/fastify.js';

test("the Fastify plugin mounts fw: dashboard at /admin/ and /fw/admin/, REST at /api/admin/, the rest stays Fastify's", async () => {
  const app = Fastify();
  app.get('/hello', async () => ({ from: 'fastify' }));
  const fw = new Framework({ configFile: false, 'fw.admin.mcp-tools': false, 'fw.heartbeat.interval': 0 });
  await fw.use(admin());
  fw.handle('/chat/{room}', {});
  await app.register(fwAdminPlugin, { fw, closeFramework: true });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  try {
    assert.equal(app.fw, fw);
    assert.deepEqual(await (await fetch(`${base}/hello`)).json(), { from: 'fastify' });
    for (const path of ['/admin/', '/fw/admin/']) {
      const page = await fetch(base + path);
      assert.equal(page.status, 200, path);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(page.headers.get('content-security-policy'), DASHBOARD_CSP);
    }
    assert.equal((await fetch(`${base}/admin/app.js`)).status, 200);
    assert.equal((await fetch(`${base}/admin`, { redirect: 'manual' })).headers.get('location'), '/admin/');

    const chat = new WebSocket(`ws://127.0.0.1:${port}/fw/chat/lobby`);
    await once(chat, 'open');
    const ov = (await (await fetch(`${base}/api/admin/overview`)).json()) as { connections: number; status: string };
    assert.equal(ov.status, 'UP');
    assert.equal(ov.connections, 1);
    const closed = once(chat, 'close');
    // a write from the /admin/ dashboard is audited as the dashboard's
    const res = await fetch(`${base}/api/admin/broadcasters/${encodeURIComponent('/fw/chat/lobby')}`, {
      method: 'DELETE',
      headers: { referer: `${base}/admin/` },
    });
    assert.deepEqual(await res.json(), { broadcasterId: '/fw/chat/lobby', disconnected: 1 });
    await closed;
    const audit = (await (await fetch(`${base}/api/admin/audit`)).json()) as { source: string; action: string }[];
    assert.deepEqual(
      audit.map((e) => [e.action, e.source]),
      [['destroy', 'dashboard']],
    );
  } finally {
    await app.close();
  }
});
