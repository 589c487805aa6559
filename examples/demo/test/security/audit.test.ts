/**
 * The audit log one can rely on: file mode under fw.data-dir survives a restart; a disk that
 * refuses writes (the audit file is a link to /dev/full) turns every admin write into a 503
 * while reads go on, and the process still starts; a throwing authorizer denies and is audited
 * as `error`, apart from a plain refusal. On PostgreSQL (fw.store.postgres-url) the log is in the
 * database: it survives a restart, an explicit fw.admin.audit.file still wins, and a database that
 * goes away fails the log closed the same way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLogger } from '@fw/runtime';
import { createTestDatabase } from '@fw/testing';
import { API, startIdentityApp, type Audited } from './identity-app.js';

const BROADCAST = { broadcasterId: '/fw/chat/lobby', message: 'audited?' };

async function messagesOf(app: Awaited<ReturnType<typeof startIdentityApp>>, id: string): Promise<number> {
  return ((await (await app.get(`${API}/broadcasters/${encodeURIComponent(id)}`)).json()) as { messages: number }).messages;
}

/** The records as they come back after a restart: a refusal record still collecting was written when the app closed. */
function closed(records: Audited[]): Audited[] {
  return records.map((e) => (e.refusals ? { ...e, refusals: { ...e.refusals, open: false } } : e));
}

test('file mode under fw.data-dir: every attempt is on disk and comes back after a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-sec-audit-'));
  try {
    const first = await startIdentityApp({ 'fw.data-dir': dir });
    first.fw.broadcasters.lookup('/fw/chat/lobby', true);
    assert.equal((await first.send('POST', `${API}/broadcasters/broadcast`, BROADCAST)).status, 200);
    assert.equal((await first.send('POST', `${API}/broadcasters/broadcast`, { message: 'no target' })).status, 400);
    const before = (await (await first.get(`${API}/audit`)).json()) as Audited[];
    assert.deepEqual(
      before.map((e) => `${e.action}:${e.target}:${e.outcome}`),
      ['broadcast:(missing):invalid', 'broadcast:/fw/chat/lobby:allowed'],
    );
    await first.close();
    // The write in audit.jsonl, the (aggregated) refusal in a file of its own.
    assert.equal(readFileSync(join(dir, 'audit.jsonl'), 'utf8').trim().split('\n').length, 1);
    assert.equal(readFileSync(join(dir, 'audit.refusals.jsonl'), 'utf8').trim().split('\n').length, 1);

    const second = await startIdentityApp({ 'fw.data-dir': dir });
    try {
      assert.deepEqual(await (await second.get(`${API}/audit`)).json(), closed(before));
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a failing disk: writes answer 503 and do not happen, reads go on, and a restart works', {
  skip: !existsSync('/dev/full') && 'no /dev/full',
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-sec-full-'));
  const file = join(dir, 'audit.jsonl');
  symlinkSync('/dev/full', file); // every write: ENOSPC
  const logger = new MemoryLogger();
  try {
    for (let run = 0; run < 2; run++) {
      const app = await startIdentityApp({ 'fw.data-dir': dir, logger });
      try {
        app.fw.broadcasters.lookup('/fw/chat/lobby', true);
        assert.equal((await app.get(`${API}/overview`)).status, 200, 'the process started and reads work');
        const refused = await app.send('POST', `${API}/broadcasters/broadcast`, BROADCAST);
        assert.equal(refused.status, 503);
        assert.equal(((await refused.json()) as { code: string }).code, 'audit_unavailable');
        assert.equal(await messagesOf(app, '/fw/chat/lobby'), 0, 'the unaudited write did not happen');
        assert.equal((await app.send('DELETE', `${API}/broadcasters/${encodeURIComponent('/fw/chat/lobby')}`, undefined)).status, 503);
        assert.ok(app.fw.broadcasters.lookup('/fw/chat/lobby'), 'not destroyed');
        const session = (await (await app.get(`${API}/session`)).json()) as { audit: { available: boolean; error: string } };
        assert.equal(session.audit.available, false);
        assert.match(session.audit.error, /ENOSPC/);
        // The attempts are still readable (from memory).
        const audit = (await (await app.get(`${API}/audit`)).json()) as Audited[];
        assert.ok(audit.some((e) => e.action === 'broadcast' && e.target === '/fw/chat/lobby'));
      } finally {
        await app.close();
      }
    }
    // The disk is back: writes work again, and the record is on disk.
    unlinkSync(file);
    const healed = await startIdentityApp({ 'fw.data-dir': dir });
    try {
      healed.fw.broadcasters.lookup('/fw/chat/lobby', true);
      assert.equal((await healed.send('POST', `${API}/broadcasters/broadcast`, BROADCAST)).status, 200);
      assert.equal(await messagesOf(healed, '/fw/chat/lobby'), 1);
    } finally {
      await healed.close();
    }
    assert.match(readFileSync(file, 'utf8'), /"outcome":"allowed"/);
    // Said once per failing start, as one structured line naming the sink, not per refused write.
    const failures = logger.entries.filter((e) => e.level === 'error');
    assert.deepEqual(
      failures.map((e) => [e.fields.module, e.fields.sink]),
      [
        ['admin', `file ${file}`],
        ['admin', `file ${file}`],
      ],
    );
    assert.match(String((failures[0]!.fields.error as { message: string }).message), /ENOSPC/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an authorizer that throws denies the write; it is audited as error, apart from a refusal', async () => {
  const logger = new MemoryLogger();
  const app = await startIdentityApp({
    logger,
    adminAuthorizer: (action: string) => {
      if (action === 'destroy') return false;
      throw new Error('policy store unreachable');
    },
  });
  try {
    app.fw.broadcasters.lookup('/fw/chat/lobby', true);
    const res = await app.send('POST', `${API}/broadcasters/broadcast`, BROADCAST);
    assert.equal(res.status, 403);
    assert.equal(((await res.json()) as { code: string }).code, 'authorizer_error');
    assert.equal(await messagesOf(app, '/fw/chat/lobby'), 0);
    const plain = await app.send('DELETE', `${API}/broadcasters/${encodeURIComponent('/fw/chat/lobby')}`, undefined);
    assert.equal(((await plain.json()) as { code: string }).code, 'forbidden');
    const audit = (await (await app.get(`${API}/audit`)).json()) as Audited[];
    assert.deepEqual(
      audit.map((e) => [e.action, e.target, e.outcome]),
      [
        ['destroy', '/fw/chat/lobby', 'refused'],
        ['broadcast', '/fw/chat/lobby', 'error'],
      ],
    );
    assert.match(audit[1]!.reason ?? '', /policy store unreachable/);
    const logged = logger.entries.find((e) => e.message?.includes('the authorizer threw'));
    assert.deepEqual(
      [logged?.level, logged?.fields.module, logged?.fields.action, logged?.fields.target],
      ['error', 'admin', 'broadcast', '/fw/chat/lobby'],
      'and it is logged',
    );
  } finally {
    await app.close();
  }
});

test('PostgreSQL store mode: the audit log is in the database and comes back after a restart; fw.admin.audit.file still wins', async () => {
  const db = await createTestDatabase('fw_audit');
  const dir = mkdtempSync(join(tmpdir(), 'fw-sec-audit-pg-'));
  try {
    const first = await startIdentityApp({ 'fw.store.postgres-url': db.url });
    let before: Audited[];
    try {
      first.fw.broadcasters.lookup('/fw/chat/lobby', true);
      assert.equal((await first.send('POST', `${API}/broadcasters/broadcast`, BROADCAST)).status, 200);
      assert.equal((await first.send('POST', `${API}/broadcasters/broadcast`, { message: 'no target' })).status, 400);
      const session = (await (await first.get(`${API}/session`)).json()) as { audit: { sink: string; available: boolean } };
      assert.match(session.audit.sink, /^store postgres postgres:\/\//);
      before = (await (await first.get(`${API}/audit`)).json()) as Audited[];
      assert.deepEqual(
        before.map((e) => `${e.action}:${e.target}:${e.outcome}`),
        ['broadcast:(missing):invalid', 'broadcast:/fw/chat/lobby:allowed'],
      );
    } finally {
      await first.close();
    }
    const second = await startIdentityApp({ 'fw.store.postgres-url': db.url });
    try {
      assert.deepEqual(await (await second.get(`${API}/audit`)).json(), closed(before));
    } finally {
      await second.close();
    }
    // An explicit file wins over the store: it starts empty and gets the record.
    const file = join(dir, 'explicit.jsonl');
    const third = await startIdentityApp({ 'fw.store.postgres-url': db.url, 'fw.admin.audit.file': file });
    try {
      assert.deepEqual(await (await third.get(`${API}/audit`)).json(), []);
      third.fw.broadcasters.lookup('/fw/chat/lobby', true);
      assert.equal((await third.send('POST', `${API}/broadcasters/broadcast`, BROADCAST)).status, 200);
    } finally {
      await third.close();
    }
    assert.equal(readFileSync(file, 'utf8').trim().split('\n').length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  }
});

test('PostgreSQL goes away: admin writes answer 503 audit_unavailable and do not happen, reads go on', async () => {
  const db = await createTestDatabase('fw_audit_gone');
  const app = await startIdentityApp({ 'fw.store.postgres-url': db.url, logger: new MemoryLogger() });
  try {
    app.fw.broadcasters.lookup('/fw/chat/lobby', true);
    assert.equal((await app.send('POST', `${API}/broadcasters/broadcast`, BROADCAST)).status, 200);
    await db.drop(); // DROP DATABASE … WITH (FORCE): the pool's connections are cut, new ones are refused
    const refused = await app.send('POST', `${API}/broadcasters/broadcast`, BROADCAST);
    assert.equal(refused.status, 503);
    assert.equal(((await refused.json()) as { code: string }).code, 'audit_unavailable');
    assert.equal(await messagesOf(app, '/fw/chat/lobby'), 1, 'the unaudited write did not happen');
    const session = (await (await app.get(`${API}/session`)).json()) as { audit: { available: boolean; error: string } };
    assert.equal(session.audit.available, false);
    assert.ok(session.audit.error);
    const audit = (await (await app.get(`${API}/audit`)).json()) as Audited[];
    assert.equal(audit.filter((e) => e.action === 'broadcast').length, 2, 'both attempts are readable (from memory)');
  } finally {
    await app.close().catch(() => undefined);
    await db.drop();
  }
});
