/**
 * Attack: read `/fw/metrics` without a credential from loopback (a local process, or anyone
 * behind a reverse proxy on the same host) while authentication is configured. docs/security.md
 * says every admin surface needs a credential then; the endpoint answered anyway. With any
 * authenticator configured it now needs its scrape token or a credential with the `viewer` role;
 * only with no authentication at all is loopback open by default.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AUTH_TOKENS, bearer, expectProblem, startAdmin, TOKENS } from './helpers.js';

const METRICS = '/fw/metrics';

test('default (no authentication): a loopback scraper reads the metrics without a credential', async () => {
  const app = await startAdmin();
  try {
    const res = await app.get(METRICS);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /^fw_connections/m);
  } finally {
    await app.close();
  }
});

test('with fw.auth.tokens: a credential-less loopback caller is refused; the scrape token or a viewer credential reads', async () => {
  const app = await startAdmin({ 'fw.auth.tokens': AUTH_TOKENS, 'fw.metrics.token': 'scrape-token-0123456789' });
  try {
    const refused = await app.get(METRICS);
    const body = await expectProblem(refused, 401, 'metrics_unauthorized');
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="fw-metrics"');
    assert.doesNotMatch(JSON.stringify(body), /fw_connections/, 'no metric in the refusal');
    await expectProblem(await app.get(METRICS, bearer('not-a-token-at-all')), 401, 'metrics_unauthorized');
    for (const token of ['scrape-token-0123456789', TOKENS.viewer, TOKENS.operator, TOKENS.admin]) {
      const res = await app.get(METRICS, bearer(token));
      assert.equal(res.status, 200, token);
      assert.match(await res.text(), /^fw_connections/m);
    }
    // A revoked principal's credential no longer reads.
    app.fw.credentials.revoke('vera');
    await expectProblem(await app.get(METRICS, bearer(TOKENS.viewer)), 401, 'metrics_unauthorized');
  } finally {
    await app.close();
  }
});

test('with only fw.admin.auth.token: loopback needs it too, and it is accepted', async () => {
  const app = await startAdmin({ 'fw.admin.auth.token': 'admin-secret-0123456789' });
  try {
    await expectProblem(await app.get(METRICS), 401, 'metrics_unauthorized');
    assert.equal((await app.get(METRICS, bearer('admin-secret-0123456789'))).status, 200);
  } finally {
    await app.close();
  }
});

test('fw.metrics.allow-loopback set to true explicitly keeps loopback open with authentication configured (the documented opt-in)', async () => {
  const app = await startAdmin({ 'fw.auth.tokens': AUTH_TOKENS, 'fw.metrics.allow-loopback': true });
  try {
    assert.equal((await app.get(METRICS)).status, 200);
    assert.equal(app.fw.config.get('fw.metrics.allow-loopback'), true);
  } finally {
    await app.close();
  }
});
