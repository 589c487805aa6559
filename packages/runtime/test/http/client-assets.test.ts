import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFw } from '../helpers.js';

test('serves the browser client: /fw/client.js entry and /fw/client/* from @fw/client dist, no traversal', async () => {
  const app = await startFw();
  try {
    const entry = await fetch(`${app.base}/fw/client.js`);
    assert.equal(entry.status, 200);
    assert.equal(entry.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(entry.headers.get('cache-control'), 'no-cache');
    assert.match(await entry.text(), /export \* from '\.\/client\/index\.js'/);
    const etag = entry.headers.get('etag')!;
    assert.equal((await fetch(`${app.base}/fw/client.js`, { headers: { 'if-none-match': etag } })).status, 304);

    const index = await fetch(`${app.base}/fw/client/index.js`);
    assert.equal(index.status, 200);
    assert.equal(index.headers.get('content-type'), 'text/javascript; charset=utf-8');
    const text = await index.text();
    assert.match(text, /export/);
    // The browser build must not need an import map: no bare specifiers.
    for (const m of text.matchAll(/from\s+['"]([^'"]+)['"]/g)) assert.match(m[1]!, /^\.\.?\//);
    const indexTag = index.headers.get('etag')!;
    assert.equal((await fetch(`${app.base}/fw/client/index.js`, { headers: { 'if-none-match': indexTag } })).status, 304);

    for (const bad of ['../package.json', '..%2Fpackage.json', 'index.d.ts', '%2e%2e/%2e%2e/package.json', 'nope.js', '.hidden.js']) {
      const res = await fetch(`${app.base}/fw/client/${bad}`);
      assert.equal(res.status, 404, bad);
      assert.equal(res.headers.get('content-type'), 'application/problem+json', bad);
    }
  } finally {
    await app.close();
  }
});
