// docs/configuration.md is the one place a user looks up a key. Its tables are generated from the
// modules' `defineConfig` declarations by scripts/config-docs.mjs; this fails when someone adds or
// changes a key without regenerating them (`npm run docs:config`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../../../../scripts/config-docs.mjs', import.meta.url));

test('docs/configuration.md lists every declared key with its environment variable, type, default and meaning', () => {
  const run = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr || run.stdout);
});
