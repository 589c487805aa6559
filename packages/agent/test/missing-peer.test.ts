import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MissingPeerError } from '../dist/index.js';
import { missingPeer } from '../dist/errors.js';

// The AI SDK runtime imports its optional peers (`ai`, `@ai-sdk/openai`) on first use; the pack
// check (scripts/pack-check.mjs) exercises the real absence in an app without them. Here: the
// mapping from a real failed import to the error the application sees.
const absent = 'fw-test-peer-that-is-not-installed';

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
