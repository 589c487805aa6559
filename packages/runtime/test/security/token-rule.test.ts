import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework, MIN_TOKEN_LENGTH, frameworkAuthenticator, tokenWeakness } from '../../dist/index.js';
import { startFw } from '../helpers.js';

const AT_LIMIT = '0123456789abcdef'; // 16 characters
const ONE_SHORT = '0123456789abcde'; // 15

test('one token rule: 16 characters pass, 15 do not, whitespace never', () => {
  assert.equal(MIN_TOKEN_LENGTH, 16);
  assert.equal(AT_LIMIT.length, 16);
  assert.equal(tokenWeakness(AT_LIMIT), undefined);
  assert.equal(tokenWeakness(ONE_SHORT), 'is shorter than 16 characters (15)');
  assert.equal(tokenWeakness('sixteen chars ok'), 'contains whitespace or a control character');
});

test('fw.auth.tokens: a token one character short is refused naming its source; one at the limit authenticates', async () => {
  const short = new Framework({ configFile: false, env: { FW_AUTH_TOKENS: `ops:operator:${ONE_SHORT}` } });
  assert.throws(() => frameworkAuthenticator(short), {
    code: 'invalid_config',
    message: `fw.auth.tokens has a token that is shorter than 16 characters (15), the one of 'ops' (from the environment variable FW_AUTH_TOKENS)`,
  });
  const app = await startFw({ 'fw.auth.tokens': `ops:operator:${AT_LIMIT}` });
  try {
    const authenticate = frameworkAuthenticator(app.fw)!;
    const req = { headers: { authorization: `Bearer ${AT_LIMIT}` } } as Parameters<typeof authenticate>[0];
    assert.equal((await authenticate(req, new URL(`${app.base}/fw/x`)))?.id, 'ops');
  } finally {
    await app.close();
  }
});

test('fw.metrics.token follows the same rule: refused at start naming its source; at the limit it scrapes', async () => {
  assert.throws(() => new Framework({ configFile: false, env: {}, 'fw.metrics.token': ONE_SHORT }), {
    code: 'invalid_config',
    message:
      /^fw\.metrics\.token is shorter than 16 characters \(15\): use a random secret.*\(from the option 'fw\.metrics\.token' given to new Framework\(\)\)$/,
  });
  const app = await startFw({ 'fw.metrics.allow-loopback': false, 'fw.metrics.token': AT_LIMIT });
  try {
    const res = await fetch(`${app.base}/fw/metrics`, { headers: { authorization: `Bearer ${AT_LIMIT}` } });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  } finally {
    await app.close();
  }
});
