import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { hidePackages } from '@fw/testing';
import { MissingPeerError } from '../dist/index.js';
import { missingPeer } from '../dist/errors.js';

// The AI SDK runtime imports its optional peers (`ai`, `@ai-sdk/openai`) on first use; the pack
// check (scripts/pack-check.mjs) exercises the real absence in an app without them. Here: the
// mapping from a real failed import to the error the application sees.
const absent = 'fw-test-peer-that-is-not-installed';
const run = promisify(execFile);
/** packages/agent: where `@fw/agent` resolves from (a workspace link) and `ai` would too. */
const agentPackageDir = fileURLToPath(new URL('..', import.meta.url));

test('a peer that is not installed: a MissingPeerError naming it and how to install it', async () => {
  const err = await import(absent).then(
    () => undefined,
    (e: unknown) => missingPeer(e, absent, 'the AI runtime'),
  );
  assert.ok(err instanceof MissingPeerError);
  assert.equal(err.code, 'peer_missing');
  assert.equal(err.status, 503);
  assert.match(err.message, new RegExp(`the AI runtime needs the package '${absent}', which is not installed: npm install ${absent}`));
});

test('any other failure (a broken install, another missing package) keeps its own error', async () => {
  const other = await import(absent).then(
    () => undefined,
    (e: unknown) => missingPeer(e, 'ai', 'the AI runtime'),
  );
  assert.ok(!(other instanceof MissingPeerError));
  const thrown = new SyntaxError('Unexpected token');
  assert.equal(missingPeer(thrown, 'ai', 'the AI runtime'), thrown);
});

/**
 * A child process in which `ai` and `@ai-sdk/*` are not installed (hidden by a resolve hook), with
 * FW_AI_BASE_URL set: start-up says what is missing with the one install command, and the first
 * run's error names every missing package, not only the first one it tripped on.
 */
test('FW_AI_BASE_URL set and the AI SDK absent: reported at start with one install command; the first run names both packages', async () => {
  const hidden = hidePackages(['ai', '@ai-sdk/']);
  const script = `
    import { Framework } from '@fw/runtime';
    import { agents } from '@fw/agent';
    const fw = new Framework({ configFile: false, 'fw.data-dir': '', 'fw.close.signals': '' });
    await fw.use(agents());
    const provider = fw.services.get('agent.module').host.providers.all().find((p) => p.name === 'openai-compatible');
    try {
      for await (const part of provider.stream({ messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal)) void part;
    } catch (err) {
      console.log(JSON.stringify({ runError: err.message, code: err.code }));
    }
    await fw.close();
  `;
  try {
    const { stdout } = await run(process.execPath, [...hidden.args, '--input-type=module', '-e', script], {
      cwd: agentPackageDir,
      env: { PATH: process.env.PATH ?? '', FW_AI_BASE_URL: 'http://127.0.0.1:9/v1', FW_LOG_LEVEL: 'info' },
      timeout: 60_000,
    });
    const lines = stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const warnings = lines.filter((l) => l.level === 40 && l.module === 'agent');
    assert.equal(warnings.length, 1, stdout);
    assert.equal(
      warnings[0]!.msg,
      "the AI runtime 'openai-compatible' (set up because the environment variable FW_AI_BASE_URL is set) needs ai and @ai-sdk/openai, not installed: npm install ai @ai-sdk/openai",
    );
    assert.equal(warnings[0]!.install, 'npm install ai @ai-sdk/openai');
    const run1 = lines.find((l) => 'runError' in l);
    assert.equal(run1?.code, 'peer_missing');
    assert.equal(
      run1?.runError,
      "the AI runtime 'openai-compatible' needs the packages 'ai', '@ai-sdk/openai', which are not installed: npm install ai @ai-sdk/openai",
    );
  } finally {
    hidden.remove();
  }
});
