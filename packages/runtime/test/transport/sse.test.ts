import { test } from 'node:test';
import assert from 'node:assert/strict';
import { notOnBun, openStream, recordEvents, startFw } from '../helpers.js';
import { waitFor } from '@fw/testing';

test('sse (fw protocol): handshake, broadcasts with ids, POSTed messages, DELETE ends the resource; events once', async () => {
  const app = await startFw({}, (fw) => fw.handle('/chat/{room}', {}));
  const events = recordEvents(app.fw);
  try {
    const s = await openStream(`${app.base}/fw/chat/lobby?fw=1`, true);
    assert.equal(s.status, 200);
    assert.match(s.headers.get('content-type') ?? '', /^text\/event-stream/);
    const hs = JSON.parse((await s.events.next()).data) as { t: string; uuid: string; transport: string };
    assert.equal(hs.t, 'hs');
    assert.equal(hs.transport, 'sse');

    app.fw.runtime.broadcast('/fw/chat/lobby', 'one');
    const m = await s.events.next();
    assert.equal(m.id, '1');
    assert.deepEqual(JSON.parse(m.data), { t: 'm', id: 1, d: 'one', b: '/fw/chat/lobby', bid: 1 });

    const post = await fetch(`${app.base}/fw/chat/lobby?tracking=${hs.uuid}`, { method: 'POST', body: 'two\nlines' });
    assert.equal(post.status, 204);
    assert.deepEqual(JSON.parse((await s.events.next()).data), { t: 'm', id: 2, d: 'two\nlines', b: '/fw/chat/lobby', bid: 2 });

    const del = await fetch(`${app.base}/fw/chat/lobby?tracking=${hs.uuid}`, { method: 'DELETE' });
    assert.equal(del.status, 204);
    await s.ended;
    assert.equal(app.fw.runtime.stats().connections, 0);
    const disc = events.filter((e) => e.type === 'ResourceDisconnected');
    assert.equal(disc.length, 1);
    assert.equal(disc[0]!.reason, 'client closed');
    assert.equal(events.filter((e) => e.type === 'ResourceConnected' && e.transport === 'sse').length, 1);

    // A POST to the resource that is gone: 404 problem+json.
    const gone = await fetch(`${app.base}/fw/chat/lobby?tracking=${hs.uuid}`, { method: 'POST', body: 'late' });
    assert.equal(gone.status, 404);
    assert.equal(gone.headers.get('content-type'), 'application/problem+json');
    assert.equal(((await gone.json()) as { code: string }).code, 'unknown_tracking_id');
  } finally {
    await app.close();
  }
});

test(
  'sse (raw): an EventSource-style client gets the payload as data lines with the resource sequence as id',
  notOnBun(
    "Bun sends a stream's headers with its first bytes, so a raw event stream opens with an SSE comment that this test reads as its first event",
  ),
  async () => {
    const app = await startFw({}, (fw) => fw.handle('/feed', {}));
    try {
      const s = await openStream(`${app.base}/fw/feed`, true);
      await waitFor('app.fw.runtime.stats().connections === 1', () => app.fw.runtime.stats().connections === 1);
      app.fw.runtime.broadcast('/fw/feed', 'a\nb');
      app.fw.runtime.broadcast('/fw/feed', { n: 2 });
      assert.deepEqual(await s.events.next(), { id: '1', data: 'a\nb' });
      assert.deepEqual(await s.events.next(), { id: '2', data: '{"n":2}' });
      s.abort();
      await waitFor('app.fw.runtime.stats().connections === 0', () => app.fw.runtime.stats().connections === 0);
    } finally {
      await app.close();
    }
  },
);

test('sse: the server disconnects a resource with a reason the client receives in a close frame', async () => {
  const app = await startFw({}, (fw) => fw.handle('/chat/{room}', {}));
  try {
    const s = await openStream(`${app.base}/fw/chat/x?transport=sse&fw=1`, false);
    const first = await s.events.next();
    const hs = JSON.parse(first.data.replace(/^data: /, '')) as { uuid: string };
    app.fw.runtime.disconnect(hs.uuid, 'maintenance');
    await s.ended;
    // A resume attempt after a deliberate close: 410 with the reason, so the client stops.
    const again = await fetch(`${app.base}/fw/chat/x?transport=sse&fw=1&tracking=${hs.uuid}`);
    assert.equal(again.status, 410);
    const body = (await again.json()) as { code: string; reason: string };
    assert.equal(body.code, 'resource_closed');
    assert.equal(body.reason, 'maintenance');
  } finally {
    await app.close();
  }
});
