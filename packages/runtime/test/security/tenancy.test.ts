import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addressGroup,
  Credentials,
  FairShare,
  isOwner,
  ownerOf,
  principalOwner,
  RateLimiter,
  ShareExceededError,
  RateLimitedError,
  type Caller,
} from '../../dist/index.js';

const anon = (address: string): Caller => ({ address });
const user = (id: string, address = '10.0.0.1'): Caller => ({ principal: { id }, address });

test('addressGroup: IPv4 is itself, IPv4-mapped IPv6 is its IPv4, IPv6 is its /64 in any spelling', () => {
  assert.equal(addressGroup('192.0.2.7'), '192.0.2.7');
  assert.equal(addressGroup('::ffff:192.0.2.7'), '192.0.2.7');
  assert.equal(addressGroup('::ffff:c000:207'), '192.0.2.7');
  assert.equal(addressGroup('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(addressGroup('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
  assert.equal(addressGroup('[2001:db8:1:2::9%eth0]'), '2001:db8:1:2::/64');
  assert.equal(addressGroup('::1'), '0:0:0:0::/64');
  assert.notEqual(addressGroup('2001:db8:1:3::1'), addressGroup('2001:db8:1:2::1'));
  assert.equal(addressGroup(undefined), 'unknown');
  assert.equal(addressGroup('not-an-ip'), 'not-an-ip');
});

test('FairShare: a caller stops at its share, others still get theirs, the total is the last word', () => {
  const share = new FairShare('fw.test.max', () => ({ max: 5, perPrincipal: 3, perAddress: 2 }));
  const a1 = share.acquire(anon('192.0.2.1'));
  share.acquire(anon('192.0.2.1'));
  assert.throws(
    () => share.acquire(anon('192.0.2.1')),
    (e: unknown) => e instanceof ShareExceededError && e.status === 429 && e.share === 'address' && e.headers?.['retry-after'] === '1',
  );
  // Rotating through a /64 does not multiply the share.
  const v6 = share.acquire(anon('2001:db8::1'));
  share.acquire(anon('2001:db8::2'));
  assert.throws(() => share.acquire(anon('2001:db8::3')), ShareExceededError);
  // A principal is counted by its id, not by its address.
  share.acquire(user('alice', '192.0.2.1'));
  assert.throws(
    () => share.acquire(user('bob')),
    (e: unknown) => e instanceof ShareExceededError && e.status === 503 && e.share === 'total',
  );
  a1.release();
  a1.release(); // idempotent
  assert.equal(share.inUse(), 4);
  share.acquire(user('bob'));
  v6.release();
  assert.equal(share.inUse(anon('2001:db8::77')), 1);
  assert.ok(share.tryAcquire(anon('192.0.2.1')), 'the freed place is taken');
  assert.equal(share.tryAcquire(anon('203.0.113.9')), undefined, 'the total is full again');
});

test('RateLimiter: a burst, then one token per refill interval, Retry-After in whole seconds; 0 turns it off', () => {
  let now = 0;
  const limiter = new RateLimiter(
    'fw.test.rate',
    () => ({ perMinute: 60, burst: 3 }),
    () => now,
  );
  for (let i = 0; i < 3; i++) limiter.take(anon('192.0.2.1'));
  assert.throws(
    () => limiter.take(anon('192.0.2.1')),
    (e: unknown) => e instanceof RateLimitedError && e.status === 429 && e.headers?.['retry-after'] === '1',
  );
  limiter.take(anon('192.0.2.2')); // another caller has its own bucket
  now += 1000;
  limiter.take(anon('192.0.2.1'));
  assert.ok(limiter.tryTake(anon('192.0.2.1')) > 0);
  const off = new RateLimiter('fw.test.off', () => ({ perMinute: 0, burst: 0 }));
  for (let i = 0; i < 1000; i++) off.take(anon('192.0.2.1'));
  // Memory stays bounded: a limiter with room for 10 keys never holds more.
  const small = new RateLimiter(
    'fw.test.small',
    () => ({ perMinute: 1, burst: 1 }),
    () => now,
    10,
  );
  for (let i = 0; i < 1000; i++) small.tryTake(anon(`198.51.100.${i % 250}`));
  assert.ok(small.size <= 10);
});

test('owners: a principal owns its work, an anonymous caller only with its key, nobody owns unowned work', () => {
  const alice = { id: 'alice' };
  assert.equal(ownerOf(alice), principalOwner('alice'));
  assert.ok(isOwner(ownerOf(alice), alice));
  assert.ok(!isOwner(ownerOf(alice), { id: 'bob' }));
  assert.ok(!isOwner(ownerOf(alice), undefined));
  const anonOwner = ownerOf(undefined);
  const key = anonOwner.slice('anonymous:'.length);
  assert.ok(key.length >= 22, 'at least 128 bits');
  assert.ok(isOwner(anonOwner, undefined, key));
  assert.ok(!isOwner(anonOwner, undefined, `${key.slice(0, -1)}x`));
  assert.ok(!isOwner(anonOwner, { id: key }));
  assert.ok(!isOwner(undefined, alice));
  assert.notEqual(ownerOf(undefined), ownerOf(undefined));
});

test('Credentials: a watch fires at expiry or on revocation, once; a revoked credential is refused until a newer one', async () => {
  let now = Date.now();
  const creds = new Credentials(() => now);
  const ends: string[] = [];
  creds.watch({ id: 'a', expiresAt: now + 30 }, (r) => ends.push(`a:${r}`));
  const stop = creds.watch({ id: 'b', expiresAt: now + 30 }, (r) => ends.push(`b:${r}`));
  creds.watch({ id: 'c' }, (r) => ends.push(`c:${r}`));
  creds.watch(undefined, () => ends.push('anonymous'));
  stop();
  assert.equal(creds.watching, 2);
  await new Promise((r) => setTimeout(r, 60));
  assert.deepEqual(ends, ['a:expired']);
  assert.equal(creds.revoke('c'), 1);
  assert.equal(creds.revoke('c'), 0);
  assert.deepEqual(ends, ['a:expired', 'c:revoked']);
  assert.equal(creds.watching, 0);
  assert.ok(creds.isRevoked({ id: 'c' }));
  assert.ok(creds.isRevoked({ id: 'c', iat: Math.floor(now / 1000) - 5 }));
  now += 5000;
  assert.ok(!creds.isRevoked({ id: 'c', iat: Math.floor(now / 1000) }), 'a token issued after the revocation is good');
  assert.ok(creds.restore('c'));
  assert.ok(!creds.isRevoked({ id: 'c' }));
  // Already expired: ends on the next tick, and JWT-style exp (seconds) is understood.
  creds.watch({ id: 'd', exp: Math.floor(now / 1000) - 1 }, (r) => ends.push(`d:${r}`));
  await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(ends.at(-1), 'd:expired');
});
