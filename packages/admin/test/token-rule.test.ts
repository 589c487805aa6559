import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { admin } from '../dist/index.js';
import { startHarness } from './harness.js';

// fw.admin.auth.token follows the rule of fw.auth.tokens and fw.metrics.token: 16 characters or more.
const AT_LIMIT = '0123456789abcdef';
const ONE_SHORT = '0123456789abcde';

test('fw.admin.auth.token one character short is refused at install, naming where it was set', async () => {
  for (const [options, origin] of [
    [{ env: { FW_ADMIN_AUTH_TOKEN: ONE_SHORT } }, 'the environment variable FW_ADMIN_AUTH_TOKEN'],
    [{ env: {}, 'fw.admin.auth.token': ONE_SHORT }, "the option 'fw.admin.auth.token' given to new Framework()"],
  ] as const) {
    const fw = new Framework({ configFile: false, 'fw.data-dir': '', ...options });
    await assert.rejects(fw.use(admin()), {
      code: 'invalid_config',
      message: `fw.admin.auth.token is shorter than 16 characters (15): use a random secret, e.g. \`openssl rand -hex 24\` (from ${origin})`,
    });
    await fw.close();
  }
  // The docs' old example token.
  const fw = new Framework({ configFile: false, env: {}, 'fw.data-dir': '', 'fw.admin.auth.token': 's3cret' });
  await assert.rejects(fw.use(admin()), { message: /^fw\.admin\.auth\.token is shorter than 16 characters \(6\)/ });
  await fw.close();
});

test('fw.admin.auth.token at the limit (16 characters) is accepted and admits its bearer', async () => {
  const h = await startHarness({ env: {}, 'fw.admin.auth.token': AT_LIMIT });
  try {
    const without = await h.get('/api/admin/overview');
    assert.equal(without.status, 401);
    await without.body?.cancel();
    const withToken = await h.get('/api/admin/overview', { authorization: `Bearer ${AT_LIMIT}` });
    assert.equal(withToken.status, 200);
    await withToken.body?.cancel();
  } finally {
    await h.close();
  }
});
