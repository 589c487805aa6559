#!/usr/bin/env node
// Runs every compiled test file (packages/*/dist-test/**/*.test.js, examples/*/dist/test/...) with
// node's own test runner. Only tests whose TypeScript source still exists are run, so a stale
// file left in dist/ by a deleted test never runs. Usage: node scripts/test.mjs [filter ...]
// where a filter is a substring of the test path (e.g. `runtime` or `mcp/dist-test/bridge`).
import { readdirSync, existsSync, statSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';
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
// The spec reporter names a file that failed outside its tests (an error after they ended, a
// non-zero exit) only as 'test failed', and the line saying why comes far up a long log. The TAP
// copy keeps the exit code and those lines; they are printed again at the very end, where a
// truncated CI log still shows them.
const tapDir = mkdtempSync(join(tmpdir(), 'fw-test-'));
const tapFile = join(tapDir, 'report.tap');
const args = [
  '--test',
  `--test-concurrency=${concurrency}`,
  `--test-timeout=${timeout}`,
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  // A second copy as TAP, for the failure summary below.
  '--test-reporter=tap',
  `--test-reporter-destination=${tapFile}`,
  ...passthrough,
  ...selected,
];
console.log(`node ${process.version}: ${selected.length} test files, concurrency ${concurrency}`);
const child = spawn(process.execPath, args, { stdio: 'inherit', cwd: root, env: { FW_DATA_DIR: '', ...process.env } });
child.on('exit', (code, signal) => {
  if (code !== 0) printFailures();
  rmSync(tapDir, { recursive: true, force: true });
  process.exit(code ?? (signal ? 1 : 0));
});

/** Every `not ok` with its YAML block, and every `# Error` line, from the TAP copy. */
function printFailures() {
  let tap;
  try {
    tap = readFileSync(tapFile, 'utf8').split('\n');
  } catch {
    return;
  }
  const out = [];
  for (let i = 0; i < tap.length; i++) {
    const line = tap[i];
    if (/^\s*# (Error|Warning)/.test(line)) out.push(line.trim());
    if (!/^\s*not ok /.test(line)) continue;
    out.push(line.trim());
    // The block runs from `---` to `...`; 40 lines of it are plenty to say why.
    for (let j = i + 1, n = 0; j < tap.length && n < 40; j++, n++) {
      out.push(`  ${tap[j].trim()}`);
      if (/^\s*\.\.\.$/.test(tap[j])) break;
    }
  }
  if (out.length === 0) return;
  console.log('\nwhy it failed (from the TAP report):');
  for (const l of out) console.log(`  ${l}`);
}
