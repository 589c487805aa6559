// What the pack check, `npm run pack` and the scaffold check share: running a command with a
// deadline, packing the publishable packages into a directory, and making sure a scratch app
// outside the repository cannot resolve anything from a node_modules above it.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

export const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** The version of a package installed in the repository (for a scratch app to install the same). */
export const installedVersion = (name) => readJson(join(root, 'node_modules', name, 'package.json')).version;

/**
 * Runs a command to its end and resolves with its stdout; rejects with everything it printed when
 * it fails or outlives `timeoutMs` (default 3 minutes). `timings`, when given, gets `label n.n s`.
 */
export function run(command, args, options = {}) {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const limit = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 180_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      options.timings?.push(`${options.label ?? command} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      if (code === 0) resolve(out);
      else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`})\n${out}${err}`));
    });
  });
}

/**
 * `npm pack` of the packages in `dirs` (paths under packages/) into `dest`; resolves with npm's
 * report per package (`name`, `filename`, `files`). Run after the build.
 */
export async function packPackages(dirs, dest, options = {}) {
  const out = await run('npm', ['pack', '--json', '--pack-destination', dest, ...dirs.flatMap((d) => ['-w', `packages/${d}`])], {
    cwd: root,
    label: 'npm pack',
    ...options,
  });
  return JSON.parse(out);
}

/** Node resolves bare imports up the directory tree: a node_modules above the app would leak in. */
export function assertIsolated(dir) {
  for (let d = dirname(dir); ; d = dirname(d)) {
    if (existsSync(join(d, 'node_modules')))
      throw new Error(`${join(d, 'node_modules')} exists above the scratch app: it would leak into resolution`);
    if (d === dirname(d)) return;
  }
}
