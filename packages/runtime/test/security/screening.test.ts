import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Framework } from '../../dist/index.js';

function get(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

test("screening covers fw routes only: the app's own routes answer any Host, Origin and OPTIONS as before", async () => {
  const fw = new Framework({ configFile: false, env: {} });
  fw.handle('/chat/{room}', {});
  fw.route('GET', '/fw-owned', (_req, res) => res.end('fw'));
  const refused: string[] = [];
  fw.security.onRefusal((_req, url, refusal) => refused.push(`${url.pathname} ${refusal.code}`));
  const server = createServer((req, res) => res.end(`app ${req.method} ${req.url}`));
  fw.attach(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const evil = { host: 'rebind.example', origin: 'http://rebind.example' };
    const app = await get(port, 'GET', '/mine', evil);
    assert.deepEqual([app.status, app.text], [200, 'app GET /mine']);
    const appOptions = await get(port, 'OPTIONS', '/mine', { host: `127.0.0.1:${port}`, origin: 'http://evil.example' });
    assert.deepEqual([appOptions.status, appOptions.text], [200, 'app OPTIONS /mine']);
    // fw's own routes: refused, counted and reported.
    assert.equal((await get(port, 'GET', '/fw-owned', evil)).status, 421);
    assert.equal((await get(port, 'GET', '/fw-owned', { host: `127.0.0.1:${port}`, origin: 'http://evil.example' })).status, 403);
    assert.equal((await get(port, 'OPTIONS', '/fw/chat/x', { host: `127.0.0.1:${port}`, origin: 'http://evil.example' })).status, 403);
    const same = await get(port, 'OPTIONS', '/fw/chat/x', {
      host: `127.0.0.1:${port}`,
      origin: `http://127.0.0.1:${port}`,
      'access-control-request-method': 'POST',
    });
    assert.equal(same.status, 204);
    assert.equal(same.headers['access-control-allow-origin'], `http://127.0.0.1:${port}`);
    assert.deepEqual(fw.security.stats(), { hostRefused: 1, originRefused: 2, preflights: 1 });
    assert.deepEqual(refused, ['/fw-owned host_not_allowed', '/fw-owned origin_not_allowed', '/fw/chat/x origin_not_allowed']);
  } finally {
    await fw.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
