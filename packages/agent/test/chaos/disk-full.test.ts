/**
 * Issue 25, chaos: the embedded SQLite store's filesystem fills up (a 32 MiB tmpfs the test mounts;
 * skipped where it may not mount one). `/fw/ready` is 503 within 5 s; chat turns asked while the
 * disk is full are answered with an error frame `store_unavailable` or, where SQLite still had
 * room in its WAL, `done`; once space is freed fw recovers by itself, and the audit holds: every
 * turn answered `done` is in the store exactly once. The storage budget (issue 24), which would refuse new work
 * before the disk fills, is switched off here so that the disk really fills.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { statfsSync, writeFileSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync, closeSync, rmdirSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { waitFor } from '@fw/testing';
import { Agent } from '../../dist/index.js';
import { ProbeRuntime, startApp } from '../helpers.js';
import { audit } from './audit.js';
import type { Outcomes } from './load.js';
import { openChat } from './chat-client.js';

const run = promisify(execFile);

@Agent({ name: 'keeper', description: 'echoes' })
class Keeper {}

/** Fills the filesystem of `dir` to the last byte; returns the filler file. */
function fill(dir: string): string {
  const file = join(dir, 'filler');
  const fd = openSync(file, 'w');
  try {
    for (const size of [1 << 20, 1 << 16, 1 << 12, 512, 1]) {
      const chunk = Buffer.alloc(size, 1);
      // Bounded: at most the filesystem's size in chunks of this size.
      for (let i = 0; i < (64 << 20) / size; i++) {
        try {
          writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return file;
}

test('a full disk under the SQLite store: clients told, readiness 503, recovery by itself, no acknowledged turn lost', {
  timeout: 60_000,
}, async (t) => {
  if (userInfo().uid !== 0) return t.skip('mounting a tmpfs needs root');
  const mnt = mkdtempSync(join(tmpdir(), 'fw-disk-full-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', mnt]);
  } catch {
    rmdirSync(mnt);
    return t.skip('cannot mount a tmpfs here');
  }
  const data = join(mnt, 'data');
  mkdirSync(data);
  const out: Outcomes = { turns: [], tasks: [], errors: [], unanswered: [] };
  try {
    const app = await startApp(
      (m) => m.mount(Keeper),
      {
        'fw.data-dir': data,
        'fw.store.budget': 0,
        'fw.store.min-free-disk': 0,
        'fw.store.retry-budget': '500ms',
        'fw.store.probe-interval': '250ms',
        'fw.agent.prompts.per-minute': 100_000,
        'fw.agent.prompts.burst': 100_000,
      },
      [new ProbeRuntime()],
    );
    const ready = async () => (await fetch(`${app.base}/fw/ready`)).status;
    const chats = await Promise.all(Array.from({ length: 4 }, () => openChat(app.base)));
    const round = async (label: string) => {
      await Promise.all(
        chats.map(async (c, i) => {
          for (let n = 0; n < 10; n++) {
            // Long turns: each needs new pages, so a full disk cannot hide in free ones.
            const text = `${label}-${i}-${n}-${'x'.repeat(4000)}`;
            const answer = await c.ask(text);
            if (answer.type === 'done') out.turns.push({ session: c.session, text });
            else out.errors.push(`${answer.code}: ${answer.message}`);
          }
        }),
      );
    };
    try {
      await round('before');
      assert.equal(out.errors.length, 0);
      assert.equal(await ready(), 200);

      // A reserve given back with the filler, as an operator frees space: SQLite's first
      // checkpoint after the recovery copies the WAL's pages (megabytes by then, the run tape's
      // included) into the database file before the WAL shrinks, so a recovery needs that much room.
      const reserve = join(mnt, 'reserve');
      writeFileSync(reserve, Buffer.alloc(12 << 20));
      const filler = fill(mnt);
      const acknowledgedBefore = out.turns.length;
      await waitFor('/fw/ready 503 while the disk is full', async () => (await ready()) === 503, 5000);
      // Turns go on being asked: each is acknowledged (SQLite still had room in its WAL) or
      // refused, until the store refuses them (bounded).
      for (let n = 0; n < 200 && out.errors.length === 0; n++) {
        const text = `full-${n}-${'x'.repeat(4000)}`;
        const answer = await chats[0]!.ask(text);
        if (answer.type === 'done') out.turns.push({ session: chats[0]!.session, text });
        else out.errors.push(`${answer.code}: ${answer.message}`);
      }
      await round('full');
      const refused = out.errors.length;
      assert.ok(refused > 0, 'turns that could not be stored were refused');
      for (const e of out.errors) {
        assert.match(e, /^store_unavailable: /, e);
        assert.ok(!e.includes(mnt), `no path in a client's error: ${e}`);
      }

      rmSync(filler);
      rmSync(reserve);
      await waitFor('/fw/ready 200 once space is freed', async () => (await ready()) === 200, 10_000).catch(async (err: Error) => {
        const free = statfsSync(mnt);
        throw new Error(`${err.message}: ${await (await fetch(`${app.base}/fw/ready`)).text()}, ${free.bavail * free.bsize} bytes free`);
      });
      const beforeAfter = out.turns.length;
      await round('after');
      assert.equal(
        out.turns.length,
        beforeAfter + 40,
        `every turn after the recovery acknowledged: ${out.errors.slice(refused).join('; ')}`,
      );
      t.diagnostic(
        `${acknowledgedBefore} turns before, ${beforeAfter - acknowledgedBefore} acknowledged and ${refused} refused while full`,
      );
    } finally {
      for (const c of chats) c.close();
      await app.close();
    }
    const result = await audit({ file: join(data, 'fw.db') }, out);
    assert.deepEqual(result.turns, [], 'every acknowledged chat turn stored exactly once');
  } finally {
    await run('umount', ['-l', mnt]).catch(() => undefined);
    rmSync(mnt, { recursive: true, force: true });
  }
});
