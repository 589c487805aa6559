#!/usr/bin/env node
// Before publishing: one version for every fw package, and every @fw dependency range in the
// repository pointing at it. `npm version --workspaces` bumps the versions but leaves the packages'
// `^0.1.0` ranges on each other, which then match nothing (and npm fails looking them up).
//
//   npm run set-version -- 0.2.0      # every workspace's version and @fw ranges, then npm install
//   node scripts/set-version.mjs --check   # (CI) fails when a range or a version disagrees
//
// Then `npm publish --workspaces` publishes every package that is not private (docs/getting-started.md).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './lib/packing.mjs';

const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const workspaces = rootPkg.workspaces.map((dir) => ({ dir, file: join(root, dir, 'package.json') }));
for (const w of workspaces) w.pkg = JSON.parse(readFileSync(w.file, 'utf8'));
const ours = new Set(workspaces.map((w) => w.pkg.name));
const SECTIONS = ['dependencies', 'peerDependencies', 'devDependencies', 'optionalDependencies'];

const arg = process.argv[2];
if (arg === '--check' || arg === undefined) {
  const versions = new Set(workspaces.map((w) => w.pkg.version));
  const problems = [];
  if (versions.size !== 1) problems.push(`the workspaces have different versions: ${[...versions].join(', ')}`);
  const [version] = versions;
  for (const w of workspaces) {
    for (const section of SECTIONS) {
      for (const [name, range] of Object.entries(w.pkg[section] ?? {})) {
        if (ours.has(name) && range !== `^${version}`)
          problems.push(`${w.dir}/package.json: ${section}.${name} is ${range}, not ^${version}`);
      }
    }
  }
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error('set-version: run `npm run set-version -- <version>`');
    process.exit(1);
  }
  console.log(`set-version: every workspace is ${version}, and every @fw range is ^${version}`);
} else {
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(arg)) {
    console.error(`set-version: '${arg}' is not a version (x.y.z)`);
    process.exit(2);
  }
  for (const w of workspaces) {
    w.pkg.version = arg;
    for (const section of SECTIONS)
      for (const name of Object.keys(w.pkg[section] ?? {})) if (ours.has(name)) w.pkg[section][name] = `^${arg}`;
    writeFileSync(w.file, `${JSON.stringify(w.pkg, null, 2)}\n`);
  }
  console.log(`set-version: ${workspaces.length} workspaces at ${arg}; updating package-lock.json`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
}
