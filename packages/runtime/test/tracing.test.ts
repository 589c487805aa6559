import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { fwTracer, sendJson, traced } from '../dist/index.js';
import { startFw } from './helpers.js';
import { parentOf, registerTracing, spanNamed } from '@fw/testing/tracing';

// Before any SDK is registered: the api's no-op tracer, nothing recorded.
const unregistered = fwTracer.startSpan('before');
const recordedBeforeRegistration = unregistered.isRecording();
unregistered.end();
const exporter = registerTracing();

test('without an SDK spans are no-ops; once one is registered the same tracer records (no re-lookup needed)', () => {
  assert.equal(recordedBeforeRegistration, false);
  const span = fwTracer.startSpan('after');
  assert.equal(span.isRecording(), true);
  span.end();
  assert.equal(spanNamed(exporter, 'after').instrumentationScope.name, 'fw');
});

test('an incoming W3C traceparent continues the trace over a real HTTP request; without one a new trace starts', async () => {
  const app = await startFw({}, (fw) =>
    fw.route('GET', '/fw/traced', async (_req, res) => {
      await traced('route work', { kind: SpanKind.INTERNAL }, async () => {
        await traced('inner', {}, () => undefined);
      });
      sendJson(res, 200, { ok: true });
    }),
  );
  try {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    const res = await fetch(`${app.base}/fw/traced`, { headers: { traceparent: `00-${traceId}-${parentId}-01` } });
    assert.equal(res.status, 200);
    const work = spanNamed(exporter, 'route work');
    assert.equal(work.spanContext().traceId, traceId);
    assert.equal(parentOf(work), parentId);
    const inner = spanNamed(exporter, 'inner');
    assert.equal(inner.spanContext().traceId, traceId);
    assert.equal(parentOf(inner), work.spanContext().spanId, 'children nest under the active span');

    exporter.reset();
    assert.equal((await fetch(`${app.base}/fw/traced`)).status, 200);
    const fresh = spanNamed(exporter, 'route work');
    assert.notEqual(fresh.spanContext().traceId, traceId);
    assert.equal(parentOf(fresh), undefined);

    exporter.reset();
    // A malformed traceparent is ignored, not an error.
    assert.equal((await fetch(`${app.base}/fw/traced`, { headers: { traceparent: 'garbage' } })).status, 200);
    assert.equal(parentOf(spanNamed(exporter, 'route work')), undefined);
  } finally {
    await app.close();
  }
});

test('traced(): a throw ends the span in error with error.type and the exception, and is rethrown', async () => {
  const err = Object.assign(new Error('no such thing'), { code: 'not_found' });
  await assert.rejects(
    traced('failing', {}, () => {
      throw err;
    }),
    err,
  );
  const span = spanNamed(exporter, 'failing');
  assert.equal(span.status.code, SpanStatusCode.ERROR);
  assert.equal(span.status.message, 'no such thing');
  assert.equal(span.attributes['error.type'], 'not_found');
  assert.equal(span.events[0]?.name, 'exception');
});
