#!/usr/bin/env node
// Runs compiled test files on Bun (docs/bun.md): `fw.listen()` there serves through `Bun.serve`.
// Bun runs node:test files only under its own runner (`bun test`; `bun file.test.js` refuses a
// `test()` outside it), so each file gets one `bun test` process, one after the other (the tests
// start servers; the machine may be shared). Tests that cannot run on Bun skip themselves with
// the reason (`notOnBun(...)` in packages/runtime/test/helpers.ts), and docs/bun.md lists them.
//
// Usage: node scripts/test-bun.mjs [filter ...]   (default: the runtime's tests, packages/runtime/dist-test,
// and a few of the packages above it: ABOVE_THE_RUNTIME below)
// Bun: $BUN, else `bun` on PATH, else the @oven/bun-* binary of an `npm install bun` under
// node_modules here or in $BUN_PREFIX (CI: `npm install --prefix /tmp/bun --ignore-scripts bun`).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);
const timeout = Number(process.env.FW_TEST_TIMEOUT ?? 180_000);

function findBun() {
  if (process.env.BUN) return process.env.BUN;
  if (spawnSync('bun', ['--version']).status === 0) return 'bun';
  for (const prefix of [process.env.BUN_PREFIX, root].filter(Boolean)) {
    const oven = join(prefix, 'node_modules', '@oven');
    if (!existsSync(oven)) continue;
    for (const name of readdirSync(oven)) {
      const bin = join(oven, name, 'bin', 'bun');
      if (existsSync(bin) && spawnSync(bin, ['--version']).status === 0) return bin;
    }
  }
  return undefined;
}

function walk(dir, out) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const bun = findBun();
if (bun === undefined) {
  console.error(
    'no Bun found: set BUN, put bun on PATH, or `npm install --prefix /tmp/bun --ignore-scripts bun` and set BUN_PREFIX=/tmp/bun',
  );
  process.exit(1);
}

const dist = join(root, 'packages', 'runtime', 'dist-test');
/**
 * Beyond the runtime's own tests, the default set runs these of the packages above it, each on a
 * server of `fw.listen()` (so on Bun.serve): the MCP conformance suite and its access rules, the
 * admin plane's acceptance test (REST, audit, events, MCP tools), and the agents' A2A, AG-UI and
 * chat-over-every-transport tests.
 */
const ABOVE_THE_RUNTIME = [
  'packages/mcp/dist-test/conformance.test.js',
  'packages/mcp/dist-test/access.test.js',
  'packages/mcp/dist-test/websocket.test.js',
  'packages/admin/dist-test/acceptance.test.js',
  'packages/agent/dist-test/a2a.test.js',
  'packages/agent/dist-test/agui.test.js',
  'packages/agent/dist-test/chat-transports.test.js',
];
const all = walk(join(root, 'packages'), []).filter((f) => f.includes('/dist-test/'));
// Only tests whose TypeScript source still exists (a stale compiled file never runs).
const live = all.filter((f) => {
  const [pkgDir, rest] = f.split('/dist-test/');
  return existsSync(join(pkgDir, 'test', rest.replace(/\.js$/, '.ts')));
});
const selected = (
  filters.length === 0
    ? live.filter((f) => f.startsWith(dist) || ABOVE_THE_RUNTIME.includes(relative(root, f)))
    : live.filter((f) => filters.some((x) => f.includes(x)))
).sort();
if (selected.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const version = spawnSync(bun, ['--version'], { encoding: 'utf8' }).stdout.trim();
console.log(`bun ${version}: ${selected.length} test files, one at a time`);
const failed = [];
let pass = 0;
let skip = 0;
let fail = 0;
for (const file of selected) {
  const name = relative(root, file);
  const out = await new Promise((resolve) => {
    const child = spawn(bun, ['test', `--timeout=${timeout}`, `./${name}`], {
      cwd: root,
      env: { FW_DATA_DIR: '', ...process.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.on('exit', (code) => resolve({ code, text }));
  });
  const count = (what) => Number(new RegExp(`^\\s*(\\d+) ${what}$`, 'm').exec(out.text)?.[1] ?? 0);
  pass += count('pass');
  skip += count('skip');
  fail += count('fail');
  // The test lines only (the servers' JSON log lines stay out of the way).
  const lines = out.text.split('\n').filter((l) => /^\((pass|fail|skip)\)/.test(l));
  console.log(`${out.code === 0 ? 'ok  ' : 'FAIL'} ${name}`);
  for (const l of lines) if (!l.startsWith('(pass)')) console.log(`     ${l}`);
  if (out.code !== 0) failed.push({ name, text: out.text });
}
console.log(`\nbun ${version}: ${pass} pass, ${skip} skip (not on Bun, with the reason), ${fail} fail`);
for (const f of failed) {
  console.log(`\n=== ${f.name}`);
  console.log(
    f.text
      .split('\n')
      .filter((l) => !l.startsWith('{"level"'))
      .slice(-80)
      .join('\n'),
  );
}
process.exit(failed.length === 0 ? 0 : 1);
