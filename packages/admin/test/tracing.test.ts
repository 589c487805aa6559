import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanStatusCode } from '@opentelemetry/api';
import { DENY_ALL } from '../dist/index.js';
import { startHarness } from './harness.js';
import { parentOf, registerTracing, spanNamed } from '@fw/testing/tracing';

const exporter = registerTracing();
const API = '/api/admin';

test("admin writes are spans (`admin {action}`) in the caller's trace; a failed or refused write ends in error with its code", async () => {
  const h = await startHarness();
  try {
    h.runtime.addResource('u1', '/fw/chat/lobby');
    const traceId = '5b8efff798038103d269b633813fc60c';
    const parent = 'eee19b7ec3c1b174';
    const res = await h.send(
      'POST',
      `${API}/broadcasters/broadcast`,
      { broadcasterId: '/fw/chat/lobby', message: 'hello' },
      { traceparent: `00-${traceId}-${parent}-01` },
    );
    assert.equal(res.status, 200);
    const span = spanNamed(exporter, 'admin broadcast');
    assert.equal(span.spanContext().traceId, traceId);
    assert.equal(parentOf(span), parent);
    assert.deepEqual(
      [span.attributes['fw.admin.action'], span.attributes['fw.admin.target'], span.attributes['fw.admin.source']],
      ['broadcast', '/fw/chat/lobby', 'rest'],
    );
    assert.equal(span.status.code, SpanStatusCode.UNSET);

    assert.equal((await h.send('DELETE', `${API}/resources/nope`)).status, 404);
    const failed = spanNamed(exporter, 'admin disconnect');
    assert.equal(failed.status.code, SpanStatusCode.ERROR);
    assert.equal(failed.attributes['error.type'], 'not_found');
  } finally {
    await h.close();
  }

  const denied = await startHarness({}, { authorizer: DENY_ALL });
  try {
    denied.runtime.addResource('u1', '/fw/chat/lobby');
    assert.equal(
      (await denied.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/fw/chat/lobby', message: 'x' })).status,
      403,
    );
    const refused = spanNamed(exporter, 'admin broadcast');
    assert.equal(refused.status.code, SpanStatusCode.ERROR);
    assert.equal(refused.attributes['error.type'], 'forbidden');
  } finally {
    await denied.close();
  }
});
