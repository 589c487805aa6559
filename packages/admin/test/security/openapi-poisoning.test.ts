/**
 * Attack: poison a derived document. The OpenAPI description was built at its first request, with
 * `servers[0].url` taken from that request's path: one anonymous `GET /api/admin/openapi.json/`
 * fixed a wrong server URL for every later caller until restart. It is now built from
 * configuration only: `fw.public-url` plus the REST base, or the relative base `/api/admin`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { API, AUTH_TOKENS, startAdmin, type AdminApp } from './helpers.js';

interface OpenApi {
  servers: { url: string }[];
}

/** A raw request, so the hostile Host and forwarded headers go out exactly as written. */
function rawGet(app: AdminApp, path: string, headers: Record<string, string>): Promise<number> {
  const { port } = new URL(app.base);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

async function serverOf(app: AdminApp): Promise<string> {
  const res = await app.get(`${API}/openapi.json`);
  assert.equal(res.status, 200);
  return ((await res.json()) as OpenApi).servers[0]!.url;
}

for (const [name, props, expected] of [
  ['default', {}, '/api/admin'],
  ['with fw.auth.tokens', { 'fw.auth.tokens': AUTH_TOKENS }, '/api/admin'],
  [
    'with fw.public-url',
    { 'fw.public-url': 'https://admin.example.com/base/', 'fw.security.trusted-proxies': 'loopback' },
    'https://admin.example.com/base/api/admin',
  ],
] as const) {
  test(`${name}: a hostile first request does not change servers[0].url for the next caller`, async () => {
    const app = await startAdmin(props);
    try {
      // The first request anyone makes: a trailing slash, forwarded headers claiming another host.
      const first = await rawGet(app, `${API}/openapi.json/`, {
        host: '127.0.0.1',
        'x-forwarded-host': 'evil.example',
        'x-forwarded-proto': 'https',
      });
      // Served (the path matches), or refused for its forwarded Host behind a trusted proxy (421).
      assert.ok([200, 421].includes(first), `answered ${first}`);
      assert.equal(await rawGet(app, `${API}/openapi.json?x=/evil`, { host: 'localhost' }), 200);
      assert.equal(await serverOf(app), expected);
    } finally {
      await app.close();
    }
  });
}
