import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { pickEncoding } from '../../dist/http/client-assets.js';
import { startFw } from '../helpers.js';

/** A raw GET (fetch would decompress and hide Content-Encoding). */
function get(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('serves the client bundles: ETag and 304, gzip and brotli on request, no-cache, Vary; the old per-file route is gone', async () => {
  const app = await startFw();
  try {
    const plain = await get(`${app.base}/fw/client.js`);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(plain.headers['cache-control'], 'no-cache');
    assert.equal(plain.headers.vary, 'accept-encoding');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers['x-content-type-options'], 'nosniff');
    assert.equal(Number(plain.headers['content-length']), plain.body.length);
    const etag = String(plain.headers.etag);
    assert.match(etag, /^"[A-Za-z0-9_-]{22}"$/);

    const gz = await get(`${app.base}/fw/client.js`, { 'accept-encoding': 'gzip, deflate' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(gz.body), plain.body);
    assert.ok(gz.body.length < plain.body.length / 2);
    const br = await get(`${app.base}/fw/client.js`, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.deepEqual(brotliDecompressSync(br.body), plain.body);
    assert.equal(br.headers.etag, etag, 'one ETag for every encoding of the same bytes');
    const refused = await get(`${app.base}/fw/client.js`, { 'accept-encoding': 'br;q=0, gzip;q=0' });
    assert.equal(refused.headers['content-encoding'], undefined);

    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await get(`${app.base}/fw/client.js`, { 'if-none-match': header, 'accept-encoding': 'br' });
      assert.equal(again.status, 304, header);
      assert.equal(again.body.length, 0);
      assert.equal(again.headers.etag, etag);
    }
    assert.equal((await get(`${app.base}/fw/client.js`, { 'if-none-match': '"stale"' })).status, 200);
    const head = await get(`${app.base}/fw/client.js`, {}, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);

    const global = await get(`${app.base}/fw/client.global.js`);
    assert.equal(global.status, 200);
    assert.notEqual(global.headers.etag, etag);
    const map = await get(`${app.base}/fw/client.js.map`);
    assert.equal(map.status, 200);
    assert.equal(map.headers['content-type'], 'application/json; charset=utf-8');
    assert.ok(Array.isArray((JSON.parse(map.body.toString()) as { sources: string[] }).sources));

    // The unbundled module tree is no longer served: nothing to traverse.
    for (const bad of ['client/index.js', 'client/../package.json', 'client.d.ts', 'client.ts']) {
      const res = await get(`${app.base}/fw/${bad}`);
      assert.equal(res.status, 404, bad);
    }
  } finally {
    await app.close();
  }
});

test('Accept-Encoding negotiation (RFC 9110 §12.5.3)', () => {
  const cases: [string | undefined, string][] = [
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['*', 'br'],
    ['*;q=0, gzip', 'gzip'],
    ['deflate', 'identity'],
    ['GZIP;Q=0.8', 'gzip'],
    ['br;q=nonsense, gzip', 'gzip'],
  ];
  for (const [header, expected] of cases) assert.equal(pickEncoding(header), expected, String(header));
});
