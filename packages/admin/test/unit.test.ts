import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { AdminGate, AuditLog, DENY_ALL, REQUIRE_PRINCIPAL, ALLOW_ALL, requireRole, isLoopback, bearerTokenResolver, TOKEN_PRINCIPAL } from '../src/index.js';
import { Ring } from '../src/ring.js';
import { Framework } from '@fw/runtime';
import { createModule, AdminModule } from '../src/index.js';

function fakeReq(remoteAddress: string, headers: Record<string, string> = {}): IncomingMessage {
  return { socket: { remoteAddress }, headers } as unknown as IncomingMessage;
}

test('isLoopback accepts 127/8 and ::1 (also IPv4-mapped) and nothing else', () => {
  for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1', '[::1]', '0:0:0:0:0:0:0:1']) assert.equal(isLoopback(a), true, a);
  for (const a of ['10.0.0.5', '192.168.1.20', '::ffff:10.0.0.5', 'fe80::1', '128.0.0.1', '127.0.0.1.evil', '', undefined]) assert.equal(isLoopback(a), false, String(a));
});

test('without authentication the gate admits loopback only, unless remote access is opted in', async () => {
  const url = new URL('http://x/api/admin/overview');
  const strict = new AdminGate({ token: '', resolver: undefined, allowRemoteUnauthenticated: false });
  assert.equal(strict.authRequired, false);
  assert.deepEqual(await strict.check(fakeReq('127.0.0.1'), url), { ok: true, principal: undefined });
  const remote = await strict.check(fakeReq('192.168.1.20'), url);
  assert.equal(remote.ok, false);
  assert.equal(!remote.ok && remote.status, 403);
  assert.equal(!remote.ok && remote.code, 'remote_access_refused');
  const open = new AdminGate({ token: '', resolver: undefined, allowRemoteUnauthenticated: true });
  assert.equal((await open.check(fakeReq('192.168.1.20'), url)).ok, true);
  // with a token, a remote client with the token is fine and a loopback one without it is not
  const token = new AdminGate({ token: 't', resolver: undefined, allowRemoteUnauthenticated: false });
  assert.deepEqual(await token.check(fakeReq('10.0.0.5', { authorization: 'Bearer t' }), url), { ok: true, principal: TOKEN_PRINCIPAL });
  const noToken = await token.check(fakeReq('127.0.0.1'), url);
  assert.equal(!noToken.ok && noToken.status, 401);
});

test('a custom principal resolver comes first and makes authentication required', async () => {
  const gate = new AdminGate({
    token: '', allowRemoteUnauthenticated: false,
    resolver: (req) => (req.headers['x-user'] ? { id: String(req.headers['x-user']), roles: ['ops'] } : undefined),
  });
  const url = new URL('http://x/');
  assert.equal(gate.authRequired, true);
  assert.deepEqual(await gate.check(fakeReq('10.1.1.1', { 'x-user': 'ann' }), url), { ok: true, principal: { id: 'ann', roles: ['ops'] } });
  const anon = await gate.check(fakeReq('127.0.0.1'), url);
  assert.equal(!anon.ok && anon.status, 401);
});

test('bearer tokens: header always, query only for sockets', async () => {
  const url = new URL('http://x/?access_token=abc');
  assert.equal(await bearerTokenResolver('abc', { allowQuery: false })(fakeReq('127.0.0.1'), url), undefined);
  assert.equal(await bearerTokenResolver('abc', { allowQuery: true })(fakeReq('127.0.0.1'), url), TOKEN_PRINCIPAL);
  assert.equal(await bearerTokenResolver('abc', { allowQuery: false })(fakeReq('127.0.0.1', { authorization: 'bearer abc' }), new URL('http://x/')), TOKEN_PRINCIPAL);
  assert.equal(await bearerTokenResolver('abc', { allowQuery: false })(fakeReq('127.0.0.1', { authorization: 'Bearer abcd' }), new URL('http://x/')), undefined);
});

test('shipped authorizers', async () => {
  const p = { id: 'ann', roles: ['admin'] };
  assert.equal(await ALLOW_ALL('broadcast', '*', undefined), true);
  assert.equal(await DENY_ALL('broadcast', '*', p), false);
  assert.equal(await REQUIRE_PRINCIPAL('cancel', 't', undefined), false);
  assert.equal(await REQUIRE_PRINCIPAL('cancel', 't', p), true);
  assert.equal(await requireRole('admin')('destroy', '/b', p), true);
  assert.equal(await requireRole('admin')('destroy', '/b', { id: 'bob' }), false);
});

test('ring keeps the newest items in order', () => {
  const r = new Ring<number>(3);
  for (let i = 1; i <= 5; i++) r.push(i);
  assert.deepEqual(r.last(), [3, 4, 5]);
  assert.deepEqual(r.last(2), [4, 5]);
  assert.deepEqual(new Ring<number>(0).last(), []);
});

test('audit log: bounded in memory, filtered, and its JSON Lines file survives a restart and a torn line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-audit-'));
  try {
    const file = join(dir, 'sub', 'audit.jsonl');
    const a = new AuditLog(3, file);
    for (let i = 0; i < 5; i++) a.record({ action: i % 2 ? 'cancel' : 'broadcast', target: `t${i}`, principal: i === 4 ? 'ann' : null, success: true, outcome: 'allowed', reason: null, source: 'rest' });
    assert.equal(a.size, 3);
    assert.deepEqual(a.query().map((e) => e.target), ['t4', 't3', 't2']);
    assert.deepEqual(a.query({ action: 'cancel' }).map((e) => e.target), ['t3']);
    assert.deepEqual(a.query({ principal: 'ann' }).map((e) => e.target), ['t4']);
    assert.deepEqual(a.query({ limit: 1 }).map((e) => e.target), ['t4']);
    assert.equal(readFileSync(file, 'utf8').trim().split('\n').length, 5);

    // restart: everything on disk comes back (bounded), numbering continues
    const b = new AuditLog(10, file);
    assert.deepEqual(b.query().map((e) => e.target), ['t4', 't3', 't2', 't1', 't0']);
    assert.equal(b.record({ action: 'destroy', target: 't5', principal: null, success: false, outcome: 'refused', reason: 'no', source: 'mcp' }).seq, 6);

    // a crash mid-write leaves a torn last line: skipped on reload, later appends stay intact
    appendFileSync(file, '{"seq":7,"timestamp":"2026-');
    const c = new AuditLog(10, file);
    assert.equal(c.skippedLines, 1);
    assert.equal(c.size, 6);
    c.record({ action: 'cancel', target: 't7', principal: null, success: true, outcome: 'allowed', reason: null, source: 'rest' });
    const d = new AuditLog(10, file);
    assert.deepEqual(d.query({ limit: 2 }).map((e) => e.target), ['t7', 't5']);
    assert.equal(d.skippedLines, 1);
    writeFileSync(join(dir, 'empty.jsonl'), '');
    assert.equal(new AuditLog(1, join(dir, 'empty.jsonl')).size, 0);
    assert.throws(() => new AuditLog(0), RangeError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('createModule: on by default, off with fw.admin.enabled=false', () => {
  const on = new Framework({ configFile: false, 'fw.modules.autoload': false });
  assert.ok(createModule(on) instanceof AdminModule);
  const off = new Framework({ configFile: false, 'fw.modules.autoload': false, 'fw.admin.enabled': false });
  assert.equal(createModule(off), undefined);
});
