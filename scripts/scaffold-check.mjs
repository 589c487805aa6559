#!/usr/bin/env node
// The scaffold check (CI, on every Node leg): does `npm create fw` give a new user a working app?
//
//  1. Packs every publishable package and create-fw (as `npm run pack` does), after the build.
//  2. In a scratch directory outside the repository, runs the scaffolder from its tarball the way
//     `npm create` runs a published one (`npx --package <tarball> create-fw`), with every part
//     and `--from` the tarballs: the fw packages are not on the registry yet.
//  3. `npm install`, then `npm start` (with FW_PORT=0): waits for fw's "listening" log line,
//     fetches the dashboard it names, checks it is the dashboard page, stops the app with
//     SIGINT and expects it to exit.
//  4. `npm test` must pass.
//
// Usage: node scripts/scaffold-check.mjs [--keep]   (after `npm run build`; --keep leaves the directory)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PUBLISHED, SCAFFOLDER } from './check-imports.mjs';
import { assertIsolated, packPackages, run as runCommand } from './lib/packing.mjs';

const keep = process.argv.includes('--keep');
const started = Date.now();
const timings = [];
const run = (command, args, options = {}) => runCommand(command, args, { timings, ...options });

/**
 * `npm start` in its own process group; resolves with the URLs of fw's "listening" log line and
 * a stop function (SIGINT to the group, then the exit code; SIGKILL after 20 s).
 */
function startApp(dir, env) {
  const t0 = Date.now();
  const child = spawn('npm', ['start'], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const stop = async () => {
    try {
      process.kill(-child.pid, 'SIGINT');
    } catch {}
    const killer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, 20_000);
    const result = await exited;
    clearTimeout(killer);
    return result;
  };
  const listening = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start: no "fw listening" line within 120 s\n${output}`)), 120_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      output += `${line}\n`;
      if (!line.includes('"fw listening on ')) return;
      clearTimeout(timer);
      timings.push(`npm start until listening ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      resolve(JSON.parse(line));
    });
    void exited.then((code) => reject(new Error(`npm start exited (${code}) before listening\n${output}`)));
  });
  return { listening, stop, output: () => output };
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'fw-scaffold-check-'));
  try {
    assertIsolated(work);
    const tarballs = join(work, 'tarballs');
    mkdirSync(tarballs);
    const packed = await packPackages([...PUBLISHED, SCAFFOLDER], tarballs, { timings });
    const scaffolder = join(tarballs, packed.find((p) => p.name === 'create-fw').filename);

    // 2. The scaffolder from its tarball, as `npm create fw` would run the published one.
    const printed = await run('npx', ['--yes', '--package', scaffolder, 'create-fw', 'my-app', '--all', '--from', tarballs], {
      cwd: work,
      label: 'npx create-fw',
    });
    if (!/Next:\n {2}cd my-app\n {2}npm install && npm start\n/.test(printed))
      throw new Error(`create-fw did not print the next commands:\n${printed}`);
    const app = join(work, 'my-app');

    // 3. Install, start, probe the dashboard, stop.
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: app, label: 'npm install' });
    const env = { ...process.env, FW_PORT: '0', FW_DATA_DIR: '' };
    for (const k of Object.keys(env)) if (k.startsWith('FW_') && k !== 'FW_PORT' && k !== 'FW_DATA_DIR') delete env[k];
    const appRun = startApp(app, env);
    let stopped = false;
    try {
      const line = await appRun.listening;
      const dashboard = line.endpoints?.dashboard;
      if (!dashboard) throw new Error(`the listening line names no dashboard: ${JSON.stringify(line)}`);
      const res = await fetch(dashboard);
      const html = await res.text();
      if (res.status !== 200 || !/^text\/html/.test(res.headers.get('content-type') ?? '') || !html.includes('fw admin'))
        throw new Error(`${dashboard} answered ${res.status} ${res.headers.get('content-type')}`);
      console.log(`scaffold-check: npm start serves the dashboard at ${dashboard}`);
      const code = await appRun.stop();
      stopped = true;
      if (code !== 0 && code !== 130 && code !== 'SIGINT') throw new Error(`npm start ended with ${code} on SIGINT\n${appRun.output()}`);
    } finally {
      if (!stopped) await appRun.stop();
    }

    // 4. Its own test.
    await run('npm', ['test'], { cwd: app, env, label: 'npm test', timeoutMs: 180_000 });
    console.log('scaffold-check: npm test passes');
  } finally {
    if (keep) console.log(`scaffold-check: scratch directory kept at ${work}`);
    else if (process.platform !== 'win32') spawn('rm', ['-rf', work], { detached: true, stdio: 'ignore' }).unref();
    else rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () =>
    console.log(`scaffold-check: ok on Node ${process.version} in ${((Date.now() - started) / 1000).toFixed(1)} s (${timings.join(', ')})`),
  (err) => {
    console.error(`scaffold-check: FAILED on Node ${process.version}:`, err.message ?? err);
    process.exit(1);
  },
);
