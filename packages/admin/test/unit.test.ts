import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import {
  AdminGate,
  AuditLog,
  DENY_ALL,
  REQUIRE_PRINCIPAL,
  ALLOW_ALL,
  requireRole,
  isLoopback,
  bearerTokenResolver,
  adminTokenAuthenticator,
  FileAuditSink,
  TOKEN_PRINCIPAL,
  type GateOptions,
} from '../dist/index.js';
import { Ring } from '../dist/ring.js';
import { Framework, type Authenticator } from '@fw/runtime';
import { admin } from '../dist/index.js';

function fakeReq(remoteAddress: string, headers: Record<string, string> = {}): IncomingMessage {
  return { socket: { remoteAddress }, headers } as unknown as IncomingMessage;
}

function gateOf(o: Partial<GateOptions> & { token?: string; resolver?: Authenticator }): AdminGate {
  const authenticator = o.resolver ?? (o.token ? adminTokenAuthenticator(o.token) : undefined);
  return new AdminGate({
    authenticator,
    allowRemoteUnauthenticated: o.allowRemoteUnauthenticated ?? false,
    clientAddress: (req) => req.socket.remoteAddress,
  });
}

const sink = (file: string): FileAuditSink => new FileAuditSink(file, { maxBytes: 1 << 20, maxFiles: 2 });

test('isLoopback accepts 127/8 and ::1 (also IPv4-mapped) and nothing else', () => {
  for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1', '[::1]', '0:0:0:0:0:0:0:1']) assert.equal(isLoopback(a), true, a);
  for (const a of ['10.0.0.5', '192.168.1.20', '::ffff:10.0.0.5', 'fe80::1', '128.0.0.1', '127.0.0.1.evil', '', undefined])
    assert.equal(isLoopback(a), false, String(a));
});

test('without authentication the gate admits loopback only, unless remote access is opted in', async () => {
  const url = new URL('http://x/api/admin/overview');
  const strict = gateOf({});
  assert.equal(strict.authRequired, false);
  assert.deepEqual(await strict.check(fakeReq('127.0.0.1'), url), { ok: true, principal: undefined, address: '127.0.0.1' });
  const remote = await strict.check(fakeReq('192.168.1.20'), url);
  assert.equal(remote.ok, false);
  assert.equal(!remote.ok && remote.status, 403);
  assert.equal(!remote.ok && remote.code, 'remote_access_refused');
  const open = gateOf({ allowRemoteUnauthenticated: true });
  assert.equal((await open.check(fakeReq('192.168.1.20'), url)).ok, true);
  // with a token, a remote client with the token is fine and a loopback one without it is not
  const token = gateOf({ token: 't' });
  assert.deepEqual(await token.check(fakeReq('10.0.0.5', { authorization: 'Bearer t' }), url), {
    ok: true,
    principal: TOKEN_PRINCIPAL,
    address: '10.0.0.5',
  });
  const noToken = await token.check(fakeReq('127.0.0.1'), url);
  assert.equal(!noToken.ok && noToken.status, 401);
});

test('a custom principal resolver makes authentication required; reads need the viewer role', async () => {
  const gate = gateOf({
    resolver: (req) => (req.headers['x-user'] ? { id: String(req.headers['x-user']), roles: [String(req.headers['x-role'])] } : undefined),
  });
  const url = new URL('http://x/');
  assert.equal(gate.authRequired, true);
  assert.deepEqual(await gate.check(fakeReq('10.1.1.1', { 'x-user': 'ann', 'x-role': 'viewer' }), url), {
    ok: true,
    principal: { id: 'ann', roles: ['viewer'] },
    address: '10.1.1.1',
  });
  const noRole = await gate.check(fakeReq('10.1.1.1', { 'x-user': 'bob', 'x-role': 'ops' }), url);
  assert.equal(!noRole.ok && noRole.status, 403);
  assert.equal(!noRole.ok && noRole.principal?.id, 'bob');
  const anon = await gate.check(fakeReq('127.0.0.1'), url);
  assert.equal(!anon.ok && anon.status, 401);
  // A resolver that throws lets nobody in: a 401.
  const broken = gateOf({
    resolver: () => {
      throw new Error('db down');
    },
  });
  const refused = await broken.check(fakeReq('127.0.0.1'), url);
  assert.equal(!refused.ok && refused.status, 401);
});

test('bearer tokens: header always, query only for sockets', async () => {
  const url = new URL('http://x/?access_token=abc');
  assert.equal(await bearerTokenResolver('abc', { allowQuery: false })(fakeReq('127.0.0.1'), url), undefined);
  assert.equal(await bearerTokenResolver('abc', { allowQuery: true })(fakeReq('127.0.0.1'), url), TOKEN_PRINCIPAL);
  assert.equal(
    await bearerTokenResolver('abc', { allowQuery: false })(fakeReq('127.0.0.1', { authorization: 'bearer abc' }), new URL('http://x/')),
    TOKEN_PRINCIPAL,
  );
  assert.equal(
    await bearerTokenResolver('abc', { allowQuery: false })(fakeReq('127.0.0.1', { authorization: 'Bearer abcd' }), new URL('http://x/')),
    undefined,
  );
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

test('audit log: bounded in memory, filtered, and its JSON Lines file survives a restart and a torn line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-audit-'));
  const entry = (action: string, target: string, principal: string | null = null) => ({
    action,
    target,
    principal,
    success: true,
    outcome: 'allowed' as const,
    reason: null,
    source: 'rest' as const,
  });
  try {
    const file = join(dir, 'sub', 'audit.jsonl');
    const a = await new AuditLog(3, sink(file)).open();
    for (let i = 0; i < 5; i++) await a.record(entry(i % 2 ? 'cancel' : 'broadcast', `t${i}`, i === 4 ? 'ann' : null));
    assert.equal(a.size, 3);
    assert.deepEqual(
      a.query().map((e) => e.target),
      ['t4', 't3', 't2'],
    );
    assert.deepEqual(
      a.query({ action: 'cancel' }).map((e) => e.target),
      ['t3'],
    );
    assert.deepEqual(
      a.query({ principal: 'ann' }).map((e) => e.target),
      ['t4'],
    );
    assert.deepEqual(
      a.query({ limit: 1 }).map((e) => e.target),
      ['t4'],
    );
    assert.equal(readFileSync(file, 'utf8').trim().split('\n').length, 5);
    await a.close();

    // restart: everything on disk comes back (bounded), numbering continues
    const b = await new AuditLog(10, sink(file)).open();
    assert.deepEqual(
      b.query().map((e) => e.target),
      ['t4', 't3', 't2', 't1', 't0'],
    );
    assert.equal((await b.record({ ...entry('destroy', 't5'), success: false, outcome: 'refused', reason: 'no', source: 'mcp' })).seq, 6);
    await b.close();

    // a crash mid-write leaves a torn last line: skipped on reload, later appends stay intact
    appendFileSync(file, '{"seq":7,"timestamp":"2026-');
    const cs = sink(file);
    const c = await new AuditLog(10, cs).open();
    assert.equal(cs.skippedLines, 1);
    assert.equal(c.size, 6);
    await c.record(entry('cancel', 't7'));
    await c.close();
    const ds = sink(file);
    const d = await new AuditLog(10, ds).open();
    assert.deepEqual(
      d.query({ limit: 2 }).map((e) => e.target),
      ['t7', 't5'],
    );
    assert.equal(ds.skippedLines, 1);
    await d.close();
    writeFileSync(join(dir, 'empty.jsonl'), '');
    assert.equal((await new AuditLog(1, sink(join(dir, 'empty.jsonl'))).open()).size, 0);
    assert.throws(() => new AuditLog(0), RangeError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('audit file rotation: past max-file-bytes the file rotates, max-files older files are kept, all reload', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-audit-rot-'));
  try {
    const file = join(dir, 'audit.jsonl');
    const opts = { maxBytes: 1024, maxFiles: 2 };
    const a = await new AuditLog(1000, new FileAuditSink(file, opts)).open();
    for (let i = 0; i < 40; i++)
      await a.record({
        action: 'broadcast',
        target: `/t/${i}`,
        principal: 'ops',
        success: true,
        outcome: 'allowed',
        reason: 'x'.repeat(40),
        source: 'rest',
      });
    await a.close();
    const sizes = [file, `${file}.1`, `${file}.2`].map((f) => readFileSync(f).length);
    for (const size of sizes) assert.ok(size <= 1024, `each file stays within max-file-bytes (${size})`);
    assert.throws(() => readFileSync(`${file}.3`), /ENOENT/, 'only max-files rotated files are kept');
    const b = await new AuditLog(1000, new FileAuditSink(file, opts)).open();
    const kept = b.query().map((e) => e.seq);
    assert.equal(kept[0], 40, 'the newest record is kept');
    assert.deepEqual(
      kept,
      [...kept].sort((x, y) => y - x),
      'reloaded in order',
    );
    assert.ok(kept.length < 40 && kept.length >= 10, `older files beyond retention are gone (${kept.length} kept)`);
    await b.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('admin(): on by default, installs nothing with fw.admin.enabled=false', async () => {
  const on = new Framework({ configFile: false, 'fw.data-dir': '', 'fw.admin.mcp-tools': false });
  await on.use(admin());
  assert.ok(on.services.get('admin'));
  const off = new Framework({ configFile: false, 'fw.admin.enabled': false });
  await off.use(admin());
  assert.equal(off.services.get('admin'), undefined);
  await Promise.all([on.close(), off.close()]);
});
