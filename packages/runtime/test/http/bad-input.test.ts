import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStream, startFw } from '../helpers.js';

async function problem(res: Response): Promise<{ status: number; code: string }> {
  assert.equal(res.headers.get('content-type'), 'application/problem+json');
  const body = (await res.json()) as { code: string; status: number };
  assert.equal(body.status, res.status);
  return { status: res.status, code: body.code };
}

test('bad input on HTTP transports gets 4xx problem+json and leaves no resource behind', async () => {
  const app = await startFw({ 'fw.websocket.max-payload': 16 }, (fw) => fw.handle('/chat/{room}', {}));
  const url = `${app.base}/fw/chat/x`;
  try {
    const cases: [string, RequestInit | undefined, number, string][] = [
      [`${url}?transport=xyz`, undefined, 400, 'invalid_query'],
      [`${url}?transport=sse&fw=1&last=-1`, undefined, 400, 'invalid_query'],
      [`${url}?transport=sse&fw=1&tracking=1234`, undefined, 400, 'invalid_query'],
      [`${url}?transport=sse&fw=1&since=bm90IGpzb24`, undefined, 400, 'invalid_query'],
      [`${url}?transport=sse&fw=1&since=${Buffer.from('{"a":-1}').toString('base64url')}`, undefined, 400, 'invalid_query'],
      [`${url}?transport=sse&tracking=00000000-0000-4000-8000-000000000000`, undefined, 400, 'invalid_query'],
      [`${url}?transport=sse&fw=1&tracking=00000000-0000-4000-8000-000000000000`, undefined, 404, 'unknown_tracking_id'],
      [url, undefined, 400, 'transport_required'],
      [`${url}?transport=websocket`, undefined, 426, 'upgrade_required'],
      [url, { method: 'POST', body: 'x' }, 400, 'tracking_required'],
      [`${url}?tracking=00000000-0000-4000-8000-000000000000`, { method: 'POST', body: 'x' }, 404, 'unknown_tracking_id'],
      [`${url}?tracking=nope`, { method: 'POST', body: 'x' }, 400, 'invalid_query'],
      [`${url}?tracking=00000000-0000-4000-8000-000000000000`, { method: 'DELETE' }, 404, 'unknown_tracking_id'],
      [url, { method: 'PUT', body: 'x' }, 405, 'method_not_allowed'],
    ];
    for (const [u, init, status, code] of cases) {
      assert.deepEqual(await problem(await fetch(u, init)), { status, code }, `${init?.method ?? 'GET'} ${u}`);
    }

    const s = await openStream(`${url}?transport=sse&fw=1`, true);
    const { uuid } = JSON.parse((await s.events.next()).data) as { uuid: string };
    // fw.websocket.max-payload bounds POSTed messages too: 16 bytes pass, 17 are refused.
    assert.equal((await fetch(`${url}?tracking=${uuid}`, { method: 'POST', body: 'x'.repeat(16) })).status, 204);
    assert.deepEqual(await problem(await fetch(`${url}?tracking=${uuid}`, { method: 'POST', body: 'x'.repeat(17) })), {
      status: 413,
      code: 'payload_too_large',
    });
    // The tracking id belongs to another path.
    assert.deepEqual(await problem(await fetch(`${app.base}/fw/chat/y?tracking=${uuid}`, { method: 'POST', body: 'x' })), {
      status: 404,
      code: 'unknown_tracking_id',
    });
    app.fw.runtime.disconnect(uuid, 'gone now');
    await s.ended;
    // A POST to a resource the server closed: 410 with the reason.
    assert.deepEqual(await problem(await fetch(`${url}?tracking=${uuid}`, { method: 'POST', body: 'x' })), {
      status: 410,
      code: 'resource_closed',
    });
    assert.equal(app.fw.runtime.stats().connections, 0);
    assert.equal(app.fw.runtime.diagnostics().timers, 0);
  } finally {
    await app.close();
  }
});

test('CORS: allowed cross origins get headers and preflights; others are refused', async () => {
  const app = await startFw({ 'fw.security.allowed-origins': 'https://app.example' }, (fw) => fw.handle('/chat/{room}', {}));
  try {
    const ok = await fetch(`${app.base}/fw/chat/x`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(ok.status, 204);
    assert.equal(ok.headers.get('access-control-allow-origin'), 'https://app.example');
    assert.match(ok.headers.get('access-control-allow-methods') ?? '', /POST/);
    const no = await fetch(`${app.base}/fw/chat/x`, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
    assert.equal(no.status, 403);
    const sse = await fetch(`${app.base}/fw/chat/x?transport=sse`, { headers: { origin: 'https://evil.example' } });
    assert.deepEqual(await problem(sse), { status: 403, code: 'origin_not_allowed' });
  } finally {
    await app.close();
  }
});
