/**
 * The audit sink takes part in readiness: while it cannot be written, the node refuses admin
 * writes (fail closed) and /fw/ready says so, so a balancer sends traffic elsewhere; once a
 * record is written again, the node is ready again. The sink here fails the way a full disk does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditEntry, AuditSink } from '../dist/audit.js';
import { MemoryLogger } from '@fw/runtime';
import { startHarness } from './harness.js';

const API = '/api/admin';

class FlakySink implements AuditSink {
  readonly description = 'flaky test sink';
  broken = false;
  readonly written: AuditEntry[] = [];
  load(): AuditEntry[] {
    return [];
  }
  append(entry: AuditEntry): void {
    if (this.broken) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    this.written.push(entry);
  }
}

test('/fw/ready is 503 with an audit check while the audit sink fails, and 200 again once it is written', { timeout: 30_000 }, async () => {
  const sink = new FlakySink();
  const h = await startHarness({ logger: new MemoryLogger() }, { auditSink: sink });
  h.runtime.addResource('u1', '/fw/chat/lobby');
  try {
    let ready = await h.get('/fw/ready');
    assert.equal(ready.status, 200, 'ready with a working sink');
    assert.deepEqual(((await ready.json()) as { checks: Record<string, unknown> }).checks.audit, { ready: true });

    sink.broken = true;
    const refused = await h.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/fw/chat/lobby', message: 'hello' });
    assert.equal(refused.status, 503, 'the write is refused: it could not be recorded');
    assert.equal(((await refused.json()) as { code: string }).code, 'audit_unavailable');

    ready = await h.get('/fw/ready');
    assert.equal(ready.status, 503);
    const body = (await ready.json()) as { status: string; checks: Record<string, { ready: boolean; detail?: string }> };
    assert.equal(body.status, 'not_ready');
    assert.deepEqual(body.checks.audit, { ready: false, detail: 'the audit log cannot be written' });
    assert.ok(!JSON.stringify(body).includes('ENOSPC'), 'the error text is not exposed');

    sink.broken = false;
    const ok = await h.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/fw/chat/lobby', message: 'again' });
    assert.equal(ok.status, 200, 'the sink takes records again');
    assert.equal((await h.get('/fw/ready')).status, 200, 'ready again');
  } finally {
    await h.close();
  }
});

test('close() flushes the audit records written before it to the sink', { timeout: 30_000 }, async () => {
  const sink = new FlakySink();
  const h = await startHarness({ logger: new MemoryLogger() }, { auditSink: sink });
  h.runtime.addResource('u1', '/fw/chat/lobby');
  try {
    const sent = await h.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/fw/chat/lobby', message: 'last words' });
    assert.equal(sent.status, 200);
  } finally {
    await h.close();
  }
  assert.ok(
    sink.written.some((e) => e.action === 'broadcast' && e.outcome === 'allowed'),
    'the broadcast is in the sink after close',
  );
});
