import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFixture } from './fixtures/conformance-server.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const cli = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const baseline = join(root, 'packages/mcp/test/fixtures/conformance-expected-failures.yml');

test('@modelcontextprotocol/conformance 0.1.13 (server mode, all scenarios) passes against the decorator fixture', {
  timeout: 110_000,
}, async () => {
  const { fw, url } = await startFixture();
  const cwd = mkdtempSync(join(tmpdir(), 'fw-mcp-conformance-'));
  try {
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, [cli, 'server', '--url', url, '--suite', 'all', '--expected-failures', baseline], {
        cwd,
        env: { ...process.env, NO_COLOR: '1' },
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      child.on('exit', (c) => resolve({ code: c, output }));
    });
    const summary = output.slice(output.lastIndexOf('=== SUMMARY ==='));
    assert.equal(code, 0, `conformance failed:\n${summary}`);
    assert.match(summary, /server-initialize: \d+ passed, 0 failed/);
    assert.doesNotMatch(summary, /✗/);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
    await fw.close();
  }
});
