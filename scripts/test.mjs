#!/usr/bin/env node
// Runs every compiled test file (packages/*/dist-test/**/*.test.js, examples/*/dist/test/...) with
// node's own test runner. Only tests whose TypeScript source still exists are run, so a stale
// file left in dist/ by a deleted test never runs. Usage: node scripts/test.mjs [filter ...]
// where a filter is a substring of the test path (e.g. `runtime` or `mcp/dist-test/bridge`).
import { readdirSync, existsSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const passthrough = process.argv.slice(2).filter((a) => a.startsWith('--'));

function walk(dir, out) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const files = [];
for (const group of ['packages', 'examples']) {
  const base = join(root, group);
  if (!existsSync(base)) continue;
  for (const pkg of readdirSync(base)) {
    const dist = join(base, pkg, group === 'packages' ? 'dist-test' : join('dist', 'test'));
    for (const file of walk(dist, [])) {
      const source = join(base, pkg, 'test', relative(dist, file)).replace(/\.js$/, '.ts');
      if (existsSync(source)) files.push(file);
    }
  }
}
const selected = files.filter((f) => filters.length === 0 || filters.some((x) => f.includes(x))).sort();
if (selected.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const concurrency = Number(process.env.FW_TEST_CONCURRENCY ?? Math.max(2, availableParallelism()));
// Tests keep durable state in memory: FW_DATA_DIR='' here for frameworks that read the environment;
// a test that passes its own `env` sets 'fw.data-dir' itself (nothing sniffs for a test runner).
// A hung test must fail, not hold CI until its time limit: no single test may run 3 minutes.
const timeout = Number(process.env.FW_TEST_TIMEOUT ?? 180_000);
const args = [
  '--test',
  `--test-concurrency=${concurrency}`,
  `--test-timeout=${timeout}`,
  '--test-reporter=spec',
  ...passthrough,
  ...selected,
];
console.log(`node ${process.version}: ${selected.length} test files, concurrency ${concurrency}`);
const child = spawn(process.execPath, args, { stdio: 'inherit', cwd: root, env: { FW_DATA_DIR: '', ...process.env } });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
