/**
 * Issue 25, chaos: the disk under the embedded SQLite store turns read-only while fw writes, as a
 * failing disk does (ext4 with `errors=remount-ro` on a loop device the test makes, its error path
 * triggered through sysfs: the filesystem goes read-only with SQLite's files still open, which a
 * plain `mount -o remount,ro` would refuse). `/fw/ready` is 503 within 5 s; every turn asked from
 * then on is answered `store_unavailable` (no path in what a client reads; the operator's log names
 * the path); the operator checks the disk and starts fw on what it kept: every turn answered `done`
 * is there, exactly once. Skipped where it may not make a loop device.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { MemoryLogger } from '@fw/runtime';
import { waitFor } from '@fw/testing';
import { Agent } from '../../dist/index.js';
import { ProbeRuntime, startApp } from '../helpers.js';
import { audit } from './audit.js';
import { openChat } from './chat-client.js';
import type { Outcomes } from './load.js';

const run = promisify(execFile);

@Agent({ name: 'keeper', description: 'echoes' })
class Keeper {}

/** A 32 MiB ext4 image mounted through a loop device, read-only on its first error. */
async function ext4(dir: string): Promise<{ mnt: string; device: string; mount(): Promise<void>; umount(): Promise<void> }> {
  const image = join(dir, 'disk.img');
  const mnt = join(dir, 'mnt');
  mkdirSync(mnt);
  writeFileSync(image, '');
  await run('truncate', ['-s', '32M', image]);
  await run('mkfs.ext4', ['-q', '-F', image]);
  let device = '';
  const disk = {
    mnt,
    get device() {
      return device;
    },
    async mount() {
      await run('mount', ['-o', 'loop,errors=remount-ro', image, mnt]);
      device = (await run('findmnt', ['-n', '-o', 'SOURCE', mnt])).stdout.trim();
    },
    async umount() {
      await run('umount', [mnt]).catch(() => run('umount', ['-l', mnt]).catch(() => undefined));
    },
  };
  await disk.mount();
  return disk;
}

test('a disk that turns read-only under the SQLite store: clients told, readiness 503, every acknowledged turn there after the repair', {
  timeout: 90_000,
}, async (t) => {
  if (userInfo().uid !== 0) return t.skip('making a loop device needs root');
  const dir = mkdtempSync(join(tmpdir(), 'fw-disk-ro-'));
  let disk: Awaited<ReturnType<typeof ext4>>;
  try {
    disk = await ext4(dir);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return t.skip(`cannot make an ext4 loop device here: ${(err as Error).message.split('\n')[0]}`);
  }
  const trigger = `/sys/fs/ext4/${basename(disk.device)}/trigger_fs_error`;
  if (!existsSync(trigger)) {
    await disk.umount();
    rmSync(dir, { recursive: true, force: true });
    return t.skip(`this kernel has no ${trigger}`);
  }
  const data = join(disk.mnt, 'data');
  mkdirSync(data);
  const out: Outcomes = { turns: [], tasks: [], errors: [], unanswered: [] };
  const settings = {
    'fw.data-dir': data,
    // The disk is small: the storage budget's free-space floor (64 MiB) would refuse all work.
    'fw.store.min-free-disk': 0,
    'fw.store.retry-budget': '500ms',
    'fw.store.probe-interval': '250ms',
    'fw.agent.prompts.per-minute': 100_000,
    'fw.agent.prompts.burst': 100_000,
  };
  try {
    const logger = new MemoryLogger();
    const app = await startApp((m) => m.mount(Keeper), { ...settings, logger }, [new ProbeRuntime()]);
    const ready = async () => (await fetch(`${app.base}/fw/ready`)).status;
    const chats = await Promise.all(Array.from({ length: 4 }, () => openChat(app.base))).catch((err: Error) => {
      throw new Error(
        `${err.message}: ${JSON.stringify(logger.entries.filter((e) => e.level !== 'info' && e.level !== 'debug')).slice(0, 2000)}`,
      );
    });
    const round = (label: string, turns: number) =>
      Promise.all(
        chats.map(async (c, i) => {
          for (let n = 0; n < turns; n++) {
            const text = `${label}-${i}-${n}-${'x'.repeat(2000)}`;
            const answer = await c.ask(text);
            if (answer.type === 'done') out.turns.push({ session: c.session, text });
            else out.errors.push(`${answer.code}: ${answer.message}`);
          }
        }),
      );
    try {
      await round('before', 10);
      assert.equal(out.errors.length, 0, out.errors.join('\n'));
      assert.equal(await ready(), 200);
      const acknowledgedBefore = out.turns.length;

      // The disk fails while the chats go on.
      const during = round('during', 10);
      writeFileSync(trigger, '1');
      await during;
      await waitFor('/fw/ready 503 once the disk is read-only', async () => (await ready()) === 503, 5000);
      const refusedBefore = out.errors.length;
      await round('after', 5);
      assert.equal(out.errors.length, refusedBefore + 20, 'every turn asked once the store is down is refused');
      for (const e of out.errors) {
        assert.match(e, /^store_unavailable: /, e);
        assert.ok(!e.includes(dir), `no path in a client's error: ${e}`);
      }
      const told = logger.entries.filter((e) => e.level === 'error' && JSON.stringify(e).includes(data));
      assert.ok(told.length > 0, "the operator's log names the store's path");
      t.diagnostic(
        `${acknowledgedBefore} turns before, ${out.turns.length - acknowledgedBefore} acknowledged and ${out.errors.length} refused once the disk failed`,
      );
    } finally {
      for (const c of chats) c.close();
      await app.close();
    }

    // The operator's repair: the failed disk checked, what it kept read from its image (debugfs,
    // no mount: the page cache of the failed mount plays no part, as after a power cut or a
    // replaced disk) and copied to a healthy disk, fw started there (its recovery reads it).
    await disk.umount();
    // e2fsck replays the journal (what fsync committed may still be there only) and exits 1 when
    // it corrected errors (the error the test triggered is one).
    await run('e2fsck', ['-f', '-y', join(dir, 'disk.img')]).catch((err: { code?: number }) => {
      if (err.code !== 1) throw err;
    });
    const restored = join(dir, 'restored');
    mkdirSync(restored);
    await run('debugfs', ['-R', `rdump /data ${restored}`, join(dir, 'disk.img')]);
    const restoredData = join(restored, 'data');
    const again = await startApp((m) => m.mount(Keeper), { ...settings, 'fw.data-dir': restoredData }, [new ProbeRuntime()]);
    try {
      await waitFor('/fw/ready 200 on the restored store', async () => (await fetch(`${again.base}/fw/ready`)).status === 200, 10_000);
    } finally {
      await again.close();
    }
    const result = await audit({ file: join(restoredData, 'fw.db') }, out);
    assert.deepEqual(result.turns, [], 'every acknowledged chat turn stored exactly once');
  } finally {
    await disk.umount();
    rmSync(dir, { recursive: true, force: true });
  }
});
