import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import {
  clientAddress,
  isLoopback,
  jsonDepthExceeds,
  parseHostHeader,
  parseJson,
  requestHost,
  requestProtocol,
  SecurityPolicy,
} from '../../dist/index.js';
import { HostAllowList } from '../../dist/security/host-allow-list.js';
import { OriginPolicy } from '../../dist/security/origin-policy.js';
import { TrustedProxies } from '../../dist/security/trusted-proxies.js';

/** A request as the screening sees it: headers and the socket's two ends. */
function fakeReq(
  headers: Record<string, string>,
  socket: { remoteAddress?: string; localAddress?: string; localPort?: number } = {},
): IncomingMessage {
  return {
    headers,
    socket: { remoteAddress: '127.0.0.1', localAddress: '127.0.0.1', localPort: 8080, ...socket },
  } as unknown as IncomingMessage;
}

const policy = (settings: Partial<ConstructorParameters<typeof SecurityPolicy>[0]> = {}): SecurityPolicy =>
  new SecurityPolicy({ allowedHosts: [], allowedOrigins: [], trustedProxies: [], publicUrl: '', jsonDepth: 64, ...settings });

test('isLoopback: IPv4 127/8, IPv6 ::1 in any spelling, brackets, zone ids and IPv4-mapped forms', () => {
  for (const a of [
    '127.0.0.1',
    '127.255.1.2',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '::1%lo0',
    '[::1%lo0]',
    '::ffff:127.0.0.1',
    '::FFFF:7f00:1',
    '[::ffff:127.0.0.2]',
  ]) {
    assert.equal(isLoopback(a), true, a);
  }
  for (const a of [
    '10.0.0.5',
    '128.0.0.1',
    '::ffff:10.0.0.5',
    'fe80::1',
    '::',
    '::2',
    'localhost',
    '127.0.0.1.evil',
    '127.0.0.256',
    '[::1',
    '',
    undefined,
    null,
  ]) {
    assert.equal(isLoopback(a), false, String(a));
  }
});

test('parseHostHeader: names, IPv4, bracketed IPv6 and ports; junk is undefined', () => {
  assert.deepEqual(parseHostHeader('Example.COM:8080'), { hostname: 'example.com', port: '8080', host: 'example.com:8080' });
  assert.deepEqual(parseHostHeader('[::1]:80'), { hostname: '[::1]', port: '80', host: '[::1]:80' });
  assert.deepEqual(parseHostHeader('localhost.'), { hostname: 'localhost', port: undefined, host: 'localhost' });
  for (const bad of ['', 'a b', 'user@host', 'host/path', 'host:99999', 'host:x', '[::1', '::1'])
    assert.equal(parseHostHeader(bad), undefined, bad);
});

test('HostAllowList: loopback names on a loopback arrival only; configured names and the public URL anywhere; * any', () => {
  const none = new HostAllowList([], undefined);
  for (const h of ['localhost:8080', '127.0.0.1', '[::1]:9']) {
    assert.equal(none.allows(parseHostHeader(h), true), true, h);
    assert.equal(none.allows(parseHostHeader(h), false), false, h);
  }
  assert.equal(none.allows(parseHostHeader('rebind.example:8080'), true), false);
  assert.equal(none.allows(parseHostHeader('127.0.0.2'), true), false);
  assert.equal(none.allows(undefined, true), false);
  const named = new HostAllowList(['app.example', 'api.example:8443'], new URL('https://public.example'));
  assert.equal(named.allows(parseHostHeader('APP.example:1234'), false), true);
  assert.equal(named.allows(parseHostHeader('api.example:8443'), false), true);
  assert.equal(named.allows(parseHostHeader('api.example:8444'), false), false);
  assert.equal(named.allows(parseHostHeader('public.example'), false), true);
  assert.equal(named.allows(parseHostHeader('evil.example'), false), false);
  assert.equal(new HostAllowList(['*'], undefined).allows(parseHostHeader('anything.example'), false), true);
  assert.equal(new HostAllowList(['[fd00::1]'], undefined).allows(parseHostHeader('[fd00::1]:80'), false), true);
  for (const bad of ['fd00::1', 'http://app.example', 'app example'])
    assert.throws(() => new HostAllowList([bad], undefined), { code: 'invalid_config' }, bad);
});

test('OriginPolicy: no Origin, same origin, the public URL and listed origins pass; null and others do not', () => {
  const p = new OriginPolicy(['https://ops.example/'], new URL('https://public.example/app'));
  assert.equal(p.allows(undefined, 'a:1'), true);
  assert.equal(p.allows('http://a:1', 'a:1'), true);
  assert.equal(p.allows('HTTPS://OPS.example', 'a:1'), true);
  assert.equal(p.allows('https://public.example', 'a:1'), true);
  assert.equal(p.allows('http://a:2', 'a:1'), false);
  assert.equal(p.allows('http://evil.example', 'a:1'), false);
  assert.equal(p.allows('null', 'a:1'), false);
  assert.equal(new OriginPolicy(['*'], undefined).allows('null', 'a:1'), true);
  for (const bad of ['ops.example', 'https://ops.example/path', 'https://user@ops.example'])
    assert.throws(() => new OriginPolicy([bad], undefined), { code: 'invalid_config' }, bad);
});

test('jsonDepthExceeds: a linear scan that skips strings and escapes; 10,000 levels answer at once', () => {
  assert.equal(jsonDepthExceeds('{"a":[1,{"b":2}]}', 3), false);
  assert.equal(jsonDepthExceeds('{"a":[1,{"b":2}]}', 2), true);
  assert.equal(jsonDepthExceeds('"[[[[[[[[[[\\"[[[["', 1), false);
  assert.equal(jsonDepthExceeds('[[]]'.repeat(1000), 2), false);
  assert.equal(jsonDepthExceeds('['.repeat(10_000) + ']'.repeat(10_000), 64), true);
  assert.throws(() => parseJson(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`, 64), { code: 'json_too_deep', status: 400 });
  assert.throws(() => parseJson('{oops', 64), { code: 'invalid_json', status: 400 });
  assert.deepEqual(parseJson('{"a":[1]}', 2), { a: [1] });
});

test('TrustedProxies: addresses, CIDR ranges and `loopback`; a bad entry fails at startup', () => {
  const t = new TrustedProxies(['10.0.0.0/8', '192.168.1.7', 'fd00::/8', 'loopback']);
  for (const a of ['10.1.2.3', '::ffff:10.1.2.3', '192.168.1.7', 'fd00::5', '127.0.0.1', '::1']) assert.equal(t.trusts(a), true, a);
  for (const a of ['11.0.0.1', '192.168.1.8', 'fe80::1', undefined]) assert.equal(t.trusts(a), false, String(a));
  assert.equal(new TrustedProxies([]).trusts('127.0.0.1'), false);
  assert.throws(() => new TrustedProxies(['10.0.0.0/33']), { code: 'invalid_config' });
  assert.throws(() => new TrustedProxies(['proxy.example']), { code: 'invalid_config' });
});

test('X-Forwarded-* is honoured only from a trusted proxy; the client is the rightmost untrusted hop', () => {
  const forwarded = {
    host: '127.0.0.1:8080',
    'x-forwarded-for': '203.0.113.9, 10.0.0.2',
    'x-forwarded-proto': 'https',
    'x-forwarded-host': 'app.example',
  };
  const untrusted = fakeReq(forwarded, { remoteAddress: '10.0.0.1' });
  policy().inspect(untrusted);
  assert.equal(clientAddress(untrusted), '10.0.0.1');
  assert.equal(requestHost(untrusted), '127.0.0.1:8080');
  assert.equal(requestProtocol(untrusted), 'http');
  const viaProxy = fakeReq(forwarded, { remoteAddress: '10.0.0.1' });
  policy({ trustedProxies: ['10.0.0.0/24'] }).inspect(viaProxy);
  assert.equal(clientAddress(viaProxy), '203.0.113.9');
  assert.equal(requestHost(viaProxy), 'app.example');
  assert.equal(requestProtocol(viaProxy), 'https');
  // A client that claims to be loopback through a trusted proxy is still what the proxy saw last.
  const spoof = fakeReq({ host: 'a', 'x-forwarded-for': '127.0.0.1, 198.51.100.4' }, { remoteAddress: '10.0.0.1' });
  policy({ trustedProxies: ['10.0.0.1'] }).inspect(spoof);
  assert.equal(clientAddress(spoof), '198.51.100.4');
  // A request fw never screened: the socket's word.
  assert.equal(clientAddress(fakeReq({ 'x-forwarded-for': '1.2.3.4' }, { remoteAddress: '::1' })), '::1');
});

test('screen: a non-loopback arrival needs a configured name; the forwarded host is what is checked behind a proxy', () => {
  const elsewhere = { localAddress: '192.0.2.10', remoteAddress: '198.51.100.4' };
  assert.equal(policy().screen(fakeReq({ host: 'localhost:8080' }, elsewhere))?.code, 'host_not_allowed');
  assert.equal(policy().screen(fakeReq({ host: '192.0.2.10:8080' }, elsewhere))?.status, 421);
  assert.equal(policy({ publicUrl: 'https://app.example' }).screen(fakeReq({ host: 'app.example' }, elsewhere)), undefined);
  assert.equal(policy({ allowedHosts: ['*'] }).screen(fakeReq({ host: 'whatever' }, elsewhere)), undefined);
  const proxied = { host: '127.0.0.1:8080', 'x-forwarded-host': 'rebind.example' };
  assert.equal(policy({ trustedProxies: ['loopback'] }).screen(fakeReq(proxied))?.code, 'host_not_allowed');
  assert.equal(
    policy({ trustedProxies: ['loopback'], allowedHosts: ['rebind.example'] }).screen(
      fakeReq({ ...proxied, origin: 'http://rebind.example' }),
    ),
    undefined,
  );
  assert.equal(policy().screen(fakeReq({ host: '127.0.0.1:8080', origin: 'http://evil.example' }))?.code, 'origin_not_allowed');
  assert.throws(() => policy({ publicUrl: 'ftp://x' }), { code: 'invalid_config' });
  assert.throws(() => policy({ jsonDepth: 0 }), { code: 'invalid_config' });
});

test('baseUrl: fw.public-url, else the listening address (never the Host header)', () => {
  assert.equal(policy({ publicUrl: 'https://app.example/' }).baseUrl(fakeReq({ host: 'evil.example' })), 'https://app.example');
  assert.equal(
    policy().baseUrl(fakeReq({ host: 'evil.example' }, { localAddress: '::ffff:127.0.0.1', localPort: 9000 })),
    'http://127.0.0.1:9000',
  );
  assert.equal(policy().baseUrl(fakeReq({ host: 'evil.example' }, { localAddress: '::1', localPort: 9001 })), 'http://[::1]:9001');
});
