import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '../dist/index.js';

test('runtime configuration: defaults, environment names, and an invalid slow-consumer policy refused', () => {
  const fw = new Framework({ configFile: false, env: { FW_RESUME_GRACE: '30s', FW_SLOW_CONSUMER_POLICY: 'disconnect' } });
  assert.equal(fw.runtime.settings.grace, 30_000);
  assert.equal(fw.runtime.settings.slowConsumerPolicy, 'disconnect');
  assert.equal(fw.runtime.settings.maxPayload, 65_536);
  assert.equal(fw.runtime.settings.resumeBuffer, 1024);
  assert.equal(fw.runtime.settings.heartbeat, 25_000);
  assert.throws(() => new Framework({ configFile: false, env: {}, 'fw.slow-consumer.policy': 'explode' }), { code: 'invalid_config' });
  assert.throws(() => new Framework({ configFile: false, env: {}, 'fw.resume.grace': 'soon' }), { code: 'invalid_config' });
});
