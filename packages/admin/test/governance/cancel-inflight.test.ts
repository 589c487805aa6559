/**
 * Issue 26 item 4: POST /api/admin/sessions/{uuid}/cancel-inflight stops one chat session's model
 * call (the model's stream is aborted) and keeps the socket: the client gets a `cancelled` frame
 * and completes its next turn on the same socket. Idempotent, operator only, audited.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '@fw/testing';
import type { AuditEntry, CancelInflightResult } from '../../dist/index.js';
import { API, chat, startGovApp, TOKENS } from './apps.js';

test('cancel-inflight aborts the model stream, the client is told and goes on on the same socket; idempotent; a viewer is refused', async () => {
  const app = await startGovApp();
  const client = await chat(app, 'writer');
  try {
    const session = String(client.frames.find((f) => f.type === 'session')?.id);
    const path = `${API}/sessions/${session}/cancel-inflight`;
    let from = client.frames.length;
    client.prompt('write forever');
    await client.next('token', from);

    assert.equal((await app.send('POST', path, { reason: 'viewer' }, TOKENS.viewer)).status, 403);
    const res = await app.send('POST', path, { reason: 'too long' });
    assert.equal(res.status, 200);
    const result = (await res.json()) as CancelInflightResult;
    assert.deepEqual([result.session, result.cancelled], [session, true]);

    const cancelled = await client.next('cancelled', from);
    assert.equal(cancelled.reason, 'too long');
    assert.equal(
      client.frames.slice(from).some((f) => f.type === 'error'),
      false,
      'a cancel is not an error',
    );
    await waitFor('the model stream aborted', () => (app.model.aborted === 1 ? true : undefined));
    const run = await waitFor('the run recorded cancelled', async () => {
      const runs = (await (await app.get(`${API}/runs?protocol=chat`)).json()) as { state: string; error: string | null }[];
      return runs.find((r) => r.state === 'cancelled');
    });
    assert.equal(run.error, 'too long');

    // The same socket goes on.
    from = client.frames.length;
    client.prompt('hello');
    assert.equal((await client.next('done', from)).text, 'ok');

    // Nothing in flight: the same answer shape, nothing cancelled.
    const again = await app.send('POST', path);
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as CancelInflightResult).cancelled, false);
    assert.equal((await app.send('POST', `${API}/sessions/00000000-0000-4000-8000-000000000000/cancel-inflight`)).status, 404);

    const records = (await (await app.get(`${API}/audit?limit=100&action=session.cancel-inflight`)).json()) as AuditEntry[];
    assert.ok(records.some((e) => e.outcome === 'allowed' && e.principal === 'otto' && e.target === session));
    assert.ok(records.some((e) => e.outcome === 'refused' && e.principal === 'vera'));
  } finally {
    await client.close();
    await app.close();
  }
});
