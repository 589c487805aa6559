import { test } from 'node:test';
import assert from 'node:assert/strict';
import { notOnBun, openStream, recordEvents, startFw } from '../helpers.js';
import { waitFor } from '@fw/testing';

test('streaming (fw protocol): NDJSON frames, POSTed messages, close frame on disconnect; events once', async () => {
  const app = await startFw({}, (fw) => fw.handle('/chat/{room}', {}));
  const events = recordEvents(app.fw);
  try {
    const s = await openStream(`${app.base}/fw/chat/lobby?transport=streaming&fw=1`, false);
    assert.match(s.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    const hs = JSON.parse((await s.events.next()).data) as { t: string; uuid: string; transport: string };
    assert.deepEqual([hs.t, hs.transport], ['hs', 'streaming']);
    app.fw.runtime.broadcast('/fw/chat/lobby', 'x');
    assert.deepEqual(JSON.parse((await s.events.next()).data), { t: 'm', id: 1, d: 'x', b: '/fw/chat/lobby', bid: 1 });
    assert.equal((await fetch(`${app.base}/fw/chat/lobby?tracking=${hs.uuid}`, { method: 'POST', body: 'y' })).status, 204);
    assert.deepEqual(JSON.parse((await s.events.next()).data), { t: 'm', id: 2, d: 'y', b: '/fw/chat/lobby', bid: 2 });
    app.fw.runtime.disconnect(hs.uuid, 'bye');
    assert.deepEqual(JSON.parse((await s.events.next()).data), { t: 'close', reason: 'bye' });
    await s.ended;
    assert.deepEqual(
      events.filter((e) => e.type === 'ResourceDisconnected').map((e) => e.reason),
      ['bye'],
    );
    assert.equal(events.filter((e) => e.type === 'ResourceConnected' && e.transport === 'streaming').length, 1);
  } finally {
    await app.close();
  }
});

test(
  'streaming (raw): one payload per line; a dropped raw connection ends its resource at once',
  notOnBun("Bun sends a stream's headers with its first bytes, and a raw stream has none until its first message"),
  async () => {
    const app = await startFw({}, (fw) => fw.handle('/feed', {}));
    try {
      const s = await openStream(`${app.base}/fw/feed?transport=streaming`, false);
      assert.match(s.headers.get('content-type') ?? '', /^text\/plain/);
      await waitFor('app.fw.runtime.stats().connections === 1', () => app.fw.runtime.stats().connections === 1);
      app.fw.runtime.broadcast('/fw/feed', 'p1');
      app.fw.runtime.broadcast('/fw/feed', 'p2');
      assert.deepEqual(await s.events.take(2), [{ data: 'p1' }, { data: 'p2' }]);
      s.abort();
      await waitFor('app.fw.runtime.stats().connections === 0', () => app.fw.runtime.stats().connections === 0);
      assert.equal(app.fw.runtime.diagnostics().timers, 0);
    } finally {
      await app.close();
    }
  },
);
