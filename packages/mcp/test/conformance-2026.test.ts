import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFixture } from './fixtures/conformance-server.js';

/**
 * @modelcontextprotocol/conformance 0.2.0-alpha.12 (installed as the alias
 * `@modelcontextprotocol/conformance-next`, beside 0.1.13 which conformance.test.ts runs) in
 * server mode against the fixture: what the 2026-07-28 revision requires, what 2025-11-25
 * requires (one fixture serves both eras), and every scenario. The CLI needs Node >= 22, so on
 * Node 20 these skip; CI's Node 24 leg runs them.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const cli = join(root, 'node_modules/@modelcontextprotocol/conformance-next/dist/index.js');
const baseline = join(root, 'packages/mcp/test/fixtures/conformance-2026-expected-failures.yml');
const major = Number(process.versions.node.split('.')[0]);
const skip =
  major < 22
    ? `@modelcontextprotocol/conformance 0.2.0-alpha.12 needs Node >= 22 (this is ${process.version}); CI's Node 24 leg runs it`
    : false;

async function run(args: string[]): Promise<{ code: number | null; summary: string }> {
  const { fw, url } = await startFixture();
  const cwd = mkdtempSync(join(tmpdir(), 'fw-mcp-conformance-2026-'));
  try {
    return await new Promise((resolve) => {
      const child = spawn(process.execPath, [cli, 'server', '--url', url, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      child.on('exit', (code) => resolve({ code, summary: output.slice(output.lastIndexOf('=== SUMMARY ===')) }));
    });
  } finally {
    rmSync(cwd, { recursive: true, force: true });
    await fw.close();
  }
}

/**
 * Failing scenarios of a run that the revision scores: the summary lists every scenario run,
 * then under "Not scored" those that do not count (with the reason in parentheses).
 */
function scoredFailures(summary: string): string[] {
  const cut = summary.indexOf('Not scored');
  const main = cut < 0 ? summary : summary.slice(0, cut);
  const notScored = new Set(cut < 0 ? [] : [...summary.slice(cut).matchAll(/[✓✗] ([\w/-]+) \((\w[\w-]*)\)/g)].map((m) => m[1]));
  return [...main.matchAll(/✗ ([\w/-]+):/g)].map((m) => m[1] as string).filter((s) => !notScored.has(s));
}

test('conformance 0.2.0-alpha.12 --requirements 2026-07-28: every required scenario passes', { skip, timeout: 170_000 }, async () => {
  const { code, summary } = await run(['--requirements', '2026-07-28']);
  assert.equal(code, 0, `conformance failed:\n${summary}`);
  assert.match(summary, /server-stateless: \d+ passed, 0 failed/);
  assert.match(summary, /input-required-result-tampered-state: \d+ passed, 0 failed/);
  assert.deepEqual(scoredFailures(summary), [], summary);
});

test('conformance 0.2.0-alpha.12 --requirements 2025-11-25: the same fixture serves the legacy era', {
  skip,
  timeout: 170_000,
}, async () => {
  const { code, summary } = await run(['--requirements', '2025-11-25']);
  assert.equal(code, 0, `conformance failed:\n${summary}`);
  assert.match(summary, /server-initialize: \d+ passed, 0 failed/);
  assert.deepEqual(scoredFailures(summary), [], summary);
  assert.doesNotMatch(summary, /✗/, summary);
});

test('conformance 0.2.0-alpha.12 --suite all: every scenario passes, the tasks extension included', {
  skip,
  timeout: 170_000,
}, async () => {
  const { code, summary } = await run(['--suite', 'all', '--expected-failures', baseline]);
  assert.equal(code, 0, `conformance failed:\n${summary}`);
  assert.doesNotMatch(summary, /✗/, summary);
  assert.match(summary, /tasks-lifecycle: \d+ passed, 0 failed/);
  assert.match(summary, /tasks-mrtr-composition: \d+ passed, 0 failed/);
});
