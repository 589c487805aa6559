import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VerifiedTokenCache } from '../dist/oauth/token-cache.js';

const principal = (exp?: number) => ({ id: 'alice', roles: [], ...(exp === undefined ? {} : { exp }) });

test('VerifiedTokenCache: an entry lives until exp + tolerance, per audience; the least recently used gives way past max; 0 keeps nothing', () => {
  const now = 1_000_000_000_000;
  const cache = new VerifiedTokenCache(2, 1000);
  const a = cache.key('https://x/mcp', 'token-a');
  assert.notEqual(a, cache.key('https://y/mcp', 'token-a'), 'the audience is part of the key');
  cache.set(a, principal(now / 1000 + 10));
  assert.equal(cache.get(a, now + 10_999)?.id, 'alice');
  assert.equal(cache.get(a, now + 11_000), undefined, 'gone at exp + tolerance');
  assert.equal(cache.size, 0);

  cache.set(cache.key('x', '1'), principal(now / 1000 + 60));
  cache.set(cache.key('x', '2'), principal(now / 1000 + 60));
  assert.ok(cache.get(cache.key('x', '1'), now), 'touching 1 makes 2 the oldest');
  cache.set(cache.key('x', '3'), principal(now / 1000 + 60));
  assert.equal(cache.size, 2);
  assert.equal(cache.get(cache.key('x', '2'), now), undefined);
  assert.ok(cache.get(cache.key('x', '1'), now));

  cache.set(cache.key('x', 'no-exp'), principal());
  assert.equal(cache.get(cache.key('x', 'no-exp'), now), undefined, 'a token without exp is never remembered');
  const off = new VerifiedTokenCache(0, 0);
  off.set(off.key('x', '1'), principal(now / 1000 + 60));
  assert.equal(off.size, 0);
});
