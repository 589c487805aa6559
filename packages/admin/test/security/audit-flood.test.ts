/**
 * Attack: erase the audit trail with refusals. Thousands of unauthenticated (401) or refused
 * (403) requests used to be one audit record each, so they rotated the one genuine write record
 * out of `GET /api/admin/audit` and out of every rotated file on disk. Refusals are now
 * aggregated per caller (address, IPv6 by /64) and window, and kept in a retention class of their
 * own: the write record stays, in memory, in the file and in the store, and a flood from many
 * addresses costs at most `fw.admin.audit.refusals.max-open` + 1 records.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createTestDatabase, waitFor } from '@fw/testing';
import type { AuditEntry } from '../../dist/index.js';
import { API, AUTH_TOKENS, bearer, chatMember, flood, startAdmin, TOKENS } from './helpers.js';

/** Every record in the audit files of `dir` (live and rotated, both classes). */
function recordsOnDisk(dir: string): AuditEntry[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith('audit'))
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as AuditEntry),
    );
}

test('a flood of 401s leaves the write record in GET audit and in the files; the refusals are one record per caller, action and outcome', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-audit-flood-'));
  const app = await startAdmin({
    'fw.auth.tokens': AUTH_TOKENS,
    'fw.admin.audit.file': join(dir, 'audit.jsonl'),
    // Small caps, so that a few thousand refusals would rotate everything out were they counted against the writes.
    'fw.admin.audit.max-entries': 100,
    'fw.admin.audit.max-file-bytes': 4096,
    'fw.admin.audit.max-files': 1,
    'fw.admin.audit.refusals.max-file-bytes': 4096,
    'fw.admin.audit.refusals.max-files': 1,
  });
  const member = await chatMember(app, 'lobby');
  try {
    const write = await app.send(
      'POST',
      `${API}/broadcasters/broadcast`,
      { broadcasterId: '/fw/chat/lobby', message: 'genuine' },
      bearer(TOKENS.operator),
    );
    assert.equal(write.status, 200);

    const statuses = await flood(2000, 16, (i) =>
      i % 2 === 0
        ? app.get(`${API}/overview`)
        : app.send(
            'POST',
            `${API}/broadcasters/broadcast`,
            { broadcasterId: '/fw/chat/lobby', message: 'x' },
            bearer('forged-token-000000'),
          ),
    );
    assert.deepEqual([...statuses], [[401, 2000]]);

    const everything = await app.audit('', TOKENS.viewer);
    assert.ok(
      everything.some((e) => e.action === 'broadcast' && e.outcome === 'allowed' && e.principal === 'otto'),
      'the write record survives the flood',
    );
    // On disk: the write record is in audit.jsonl whatever the refusals did.
    const onDisk = recordsOnDisk(dir);
    assert.equal(onDisk.filter((e) => e.action === 'broadcast' && e.outcome === 'allowed').length, 1, 'the write record is on disk');
    assert.ok(onDisk.length < 10, `a handful of records on disk, not thousands: ${onDisk.length}`);

    const actions = await app.audit('class=action', TOKENS.viewer);
    assert.deepEqual(
      actions.map((e) => [e.action, e.target, e.principal, e.outcome]),
      [['broadcast', '/fw/chat/lobby', 'otto', 'allowed']],
      'the write record is still listed',
    );
    const refusals = await app.audit('class=refusal', TOKENS.viewer);
    assert.deepEqual(
      refusals.map((e) => [e.action, e.outcome, e.address, e.refusals?.count]).sort(),
      [
        ['broadcast', 'refused', '127.0.0.1', 1000],
        ['read', 'refused', '127.0.0.1', 1000],
      ],
      'one record per caller, action and outcome, with the count',
    );
    const reads = refusals.find((e) => e.action === 'read')!;
    assert.ok(Date.parse(reads.refusals!.lastAt) >= Date.parse(reads.refusals!.firstAt));
    assert.deepEqual(reads.refusals!.targets, [{ value: `${API}/overview`, count: 1000 }]);
    assert.equal(reads.refusals!.open, true, 'still collecting: shown at once, written when its window closes');
  } finally {
    await member.close();
    await app.close();
  }
  // Closing the app closed the windows: the refusal records are in their own file.
  const after = recordsOnDisk(dir);
  assert.equal(after.filter((e) => e.class === 'refusal').length, 2);
  assert.deepEqual(
    after.filter((e) => e.class === 'refusal').map((e) => e.refusals?.count),
    [1000, 1000],
  );
  assert.equal(after.filter((e) => e.outcome === 'allowed').length, 1);
  rmSync(dir, { recursive: true, force: true });
});

test('without authentication: refused remote callers from many addresses cost at most max-open + 1 records, and IPv6 counts by /64', async () => {
  const app = await startAdmin({
    'fw.security.trusted-proxies': 'loopback',
    'fw.admin.audit.max-entries': 50,
    'fw.admin.audit.refusals.max-open': 40,
  });
  const member = await chatMember(app, 'lobby');
  try {
    assert.equal(
      (await app.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/fw/chat/lobby', message: 'genuine' })).status,
      200,
    );
    // One IPv6 host rotating through its /64 is one caller.
    await flood(50, 8, (i) => app.get(`${API}/overview`, { 'x-forwarded-for': `2001:db8:7:9:${(i + 1).toString(16)}::1` }));
    // 2,000 requests from 1,000 addresses (a botnet behind the trusted proxy).
    const statuses = await flood(2000, 16, (i) =>
      app.get(`${API}/resources?i=${i}`, { 'x-forwarded-for': `198.18.${(i >> 8) & 3}.${i & 0xff}` }),
    );
    assert.deepEqual([...statuses], [[403, 2000]]);
    assert.ok(
      (await app.audit()).some((e) => e.action === 'broadcast' && e.outcome === 'allowed'),
      'the write record survives the flood',
    );
    const v6 = (await app.audit('class=refusal')).filter((e) => e.address === '2001:db8:7:9::/64');
    assert.deepEqual(
      v6.map((e) => e.refusals?.count),
      [50],
      'the IPv6 /64 is one caller',
    );

    const status = app.fw.services.get('admin')!.audit.status();
    assert.ok(status.classes.open <= 41, `open refusal records bounded by max-open + 1: ${status.classes.open}`);
    const refusals = await app.audit('class=refusal');
    assert.ok(refusals.length <= 41, `${refusals.length} refusal records`);
    const many = refusals.find((e) => e.address === '(many addresses)');
    assert.ok(many, 'the overflow record');
    const total = refusals.reduce((n, e) => n + (e.refusals?.count ?? 0), 0);
    assert.equal(total, 2050, 'every refusal is counted somewhere');
    assert.equal(many.refusals!.addresses!.length, 10, 'names at most max-distinct addresses');
    assert.ok((many.refusals!.other?.addresses ?? 0) > 0, 'and counts the others');

    const actions = await app.audit('class=action');
    assert.deepEqual(
      actions.map((e) => [e.action, e.outcome]),
      [['broadcast', 'allowed']],
    );
  } finally {
    await member.close();
    await app.close();
  }
});

test('fw.admin.audit.refusals.max-open: at the limit every caller has its own record; one more caller goes into "many addresses"', async () => {
  const app = await startAdmin({ 'fw.security.trusted-proxies': 'loopback', 'fw.admin.audit.refusals.max-open': 5 });
  try {
    for (let i = 1; i <= 5; i++) assert.equal((await app.get(`${API}/overview`, { 'x-forwarded-for': `203.0.113.${i}` })).status, 403);
    let refusals = await app.audit('class=refusal');
    assert.deepEqual(refusals.map((e) => e.address).sort(), ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4', '203.0.113.5']);
    // The same callers again: their own records count up, still no overflow.
    for (let i = 1; i <= 5; i++) await app.get(`${API}/overview`, { 'x-forwarded-for': `203.0.113.${i}` });
    refusals = await app.audit('class=refusal');
    assert.equal(refusals.length, 5);
    assert.ok(refusals.every((e) => e.refusals?.count === 2));
    // A sixth caller: no room, so the overflow record.
    await app.get(`${API}/overview`, { 'x-forwarded-for': '203.0.113.6' });
    refusals = await app.audit('class=refusal');
    assert.equal(refusals.length, 6);
    const many = refusals.find((e) => e.address === '(many addresses)');
    assert.deepEqual(many?.refusals?.addresses, [{ value: '203.0.113.6', count: 1 }]);
    assert.deepEqual(many?.refusals?.principals, [{ value: '(anonymous)', count: 1 }]);
    // The action filter finds it through what it gathered.
    assert.ok((await app.audit('class=refusal&action=read')).some((e) => e.address === '(many addresses)'));
  } finally {
    await app.close();
  }
});

test('fw.admin.audit.refusals.window: a record closes after its window, is written, and the next refusal opens a new one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-audit-window-'));
  const app = await startAdmin({
    'fw.auth.tokens': AUTH_TOKENS,
    'fw.admin.audit.file': join(dir, 'audit.jsonl'),
    'fw.admin.audit.refusals.window': 300,
  });
  try {
    assert.equal((await app.get(`${API}/overview`)).status, 401);
    assert.equal((await app.get(`${API}/overview`)).status, 401);
    const first = await waitFor(
      'the first refusal record closed',
      async () => (await app.audit('class=refusal', TOKENS.viewer)).find((e) => e.refusals?.open === false),
      10_000,
    );
    assert.equal(first.refusals?.count, 2);
    await waitFor('the closed record written to audit.refusals.jsonl', () =>
      readFileSync(join(dir, 'audit.refusals.jsonl'), 'utf8').includes(`"seq":${first.seq}`) ? true : undefined,
    );
    assert.equal((await app.get(`${API}/overview`)).status, 401);
    const refusals = await app.audit('class=refusal', TOKENS.viewer);
    assert.deepEqual(
      refusals.map((e) => [e.refusals?.count, e.refusals?.open]),
      [
        [1, true],
        [2, false],
      ],
    );
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('fw.admin.audit.refusals.max-distinct and max-value-length: at the limit kept, one over counted or cut', async () => {
  const app = await startAdmin({
    'fw.auth.tokens': AUTH_TOKENS,
    'fw.admin.audit.refusals.max-distinct': 3,
    'fw.admin.audit.refusals.max-value-length': 40,
  });
  try {
    // A refused disconnect is audited with its target, the uuid from the path: the caller chooses it.
    const at = 'a'.repeat(40);
    const over = 'b'.repeat(41);
    for (const uuid of [at, over, 'one', 'two', 'three']) assert.equal((await app.send('DELETE', `${API}/resources/${uuid}`)).status, 401);
    const [record] = await app.audit('class=refusal', TOKENS.viewer);
    assert.equal(record?.refusals?.count, 5);
    assert.deepEqual(record?.refusals?.targets, [
      { value: at, count: 1 },
      { value: `${'b'.repeat(40)}…`, count: 1 },
      { value: 'one', count: 1 },
    ]);
    assert.deepEqual(record?.refusals?.other, { targets: 2 });
    assert.equal(record?.target, at, "the record's target is its first, kept whole at the limit");
  } finally {
    await app.close();
  }
});

test('store mode (PostgreSQL): refusal records are pruned to their own cap and never delete a write record', async () => {
  const db = await createTestDatabase('fw_admin_flood');
  const client = new pg.Client({ connectionString: db.url });
  try {
    await client.connect();
    const app = await startAdmin({
      'fw.auth.tokens': AUTH_TOKENS,
      'fw.store.postgres-url': db.url,
      'fw.admin.audit.store-max-entries': 5,
      'fw.admin.audit.refusals.store-max-entries': 3,
      // Short windows: the flood closes many refusal records, each written to the table.
      'fw.admin.audit.refusals.window': 20,
    });
    const member = await chatMember(app, 'lobby');
    try {
      const write = await app.send(
        'POST',
        `${API}/broadcasters/broadcast`,
        { broadcasterId: '/fw/chat/lobby', message: 'genuine' },
        bearer(TOKENS.operator),
      );
      assert.equal(write.status, 200);
      const statuses = await flood(1500, 8, () => app.get(`${API}/overview`));
      assert.deepEqual([...statuses], [[401, 1500]]);
      const rows = async () =>
        (
          await client.query<{ class: string; outcome: string; action: string }>(
            'SELECT class, outcome, action FROM fw_admin_audit ORDER BY at, seq',
          )
        ).rows;
      await waitFor('several refusal records written', async () =>
        (await rows()).filter((r) => r.class === 'refusal').length >= 3 ? true : undefined,
      );
      const all = await rows();
      assert.deepEqual(
        all.filter((r) => r.class === 'action').map((r) => [r.action, r.outcome]),
        [['broadcast', 'allowed']],
        'the write row is still there',
      );
      assert.ok(all.filter((r) => r.class === 'refusal').length <= 3 + 1, `refusal rows within their cap: ${all.length}`);
    } finally {
      await member.close();
      await app.close();
    }
    // After a restart the log still shows the write.
    const again = await startAdmin({ 'fw.auth.tokens': AUTH_TOKENS, 'fw.store.postgres-url': db.url });
    try {
      const actions = await again.audit('class=action', TOKENS.viewer);
      assert.deepEqual(
        actions.map((e) => [e.action, e.outcome]),
        [['broadcast', 'allowed']],
      );
    } finally {
      await again.close();
    }
  } finally {
    await client.end();
    await db.drop();
  }
});
