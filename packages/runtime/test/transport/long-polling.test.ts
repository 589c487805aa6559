import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordEvents, startFw } from '../helpers.js';
import { waitFor } from '@fw/testing';

type Frame = { t: string; [k: string]: unknown };

async function poll(url: string): Promise<Frame[]> {
  const res = await fetch(url);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as Frame[];
}

test('long-polling: handshake, held polls answered by broadcasts, POSTs, acknowledgment with last, timeout []', async () => {
  const app = await startFw({ 'fw.long-polling.timeout': 300 }, (fw) => fw.handle('/chat/{room}', {}));
  const events = recordEvents(app.fw);
  try {
    const url = `${app.base}/fw/chat/lobby?transport=long-polling&fw=1`;
    const [hs] = await poll(url);
    assert.equal(hs?.t, 'hs');
    assert.equal(hs?.transport, 'long-polling');
    const uuid = hs!.uuid as string;

    const held = poll(`${url}&tracking=${uuid}&last=0`);
    await new Promise((r) => setTimeout(r, 50));
    app.fw.runtime.broadcast('/fw/chat/lobby', 'm1');
    assert.deepEqual(await held, [{ t: 'm', id: 1, d: 'm1', b: '/fw/chat/lobby', bid: 1 }]);

    assert.equal((await fetch(`${app.base}/fw/chat/lobby?tracking=${uuid}`, { method: 'POST', body: 'm2' })).status, 204);
    app.fw.runtime.broadcast('/fw/chat/lobby', 'm3');
    // The previous answer was lost? Asking again with last=0 replays it; last=1 gives only what is new.
    assert.deepEqual(
      (await poll(`${url}&tracking=${uuid}&last=0`)).map((f) => f.id),
      [1, 2, 3],
    );
    assert.deepEqual(
      (await poll(`${url}&tracking=${uuid}&last=2`)).map((f) => f.d),
      ['m3'],
    );
    assert.deepEqual(await poll(`${url}&tracking=${uuid}&last=3`), []);

    const del = await fetch(`${app.base}/fw/chat/lobby?tracking=${uuid}`, { method: 'DELETE' });
    assert.equal(del.status, 204);
    assert.equal(app.fw.runtime.stats().connections, 0);
    assert.equal(app.fw.runtime.diagnostics().timers, 0);
    assert.deepEqual(
      events.filter((e) => e.type === 'ResourceConnected').map((e) => e.transport),
      ['long-polling'],
    );
    assert.deepEqual(
      events.filter((e) => e.type === 'ResourceDisconnected').map((e) => e.reason),
      ['client closed'],
    );
  } finally {
    await app.close();
  }
});

test('long-polling: refused without fw=1; a resource the server closed answers the next poll with its close frame', async () => {
  const app = await startFw({}, (fw) => fw.handle('/chat/{room}', {}));
  try {
    const raw = await fetch(`${app.base}/fw/chat/a?transport=long-polling`);
    assert.equal(raw.status, 400);
    assert.equal(((await raw.json()) as { code: string }).code, 'fw_protocol_required');
    const url = `${app.base}/fw/chat/a?transport=long-polling&fw=1`;
    const [hs] = await poll(url);
    app.fw.runtime.disconnect(hs!.uuid as string, 'kicked');
    assert.deepEqual(await poll(`${url}&tracking=${hs!.uuid}&last=0`), [{ t: 'close', reason: 'kicked' }]);
    await waitFor('app.fw.runtime.stats().connections === 0', () => app.fw.runtime.stats().connections === 0);
  } finally {
    await app.close();
  }
});

test('long-polling: shutdown answers a held poll with a reconnect frame, never a close frame (the client reconnects elsewhere)', async () => {
  const app = await startFw({}, (fw) => fw.handle('/chat/{room}', {}));
  const url = `${app.base}/fw/chat/c?transport=long-polling&fw=1`;
  const [hs] = await poll(url);
  const held = poll(`${url}&tracking=${hs!.uuid}&last=0`);
  await waitFor('app.fw.runtime.diagnostics().detachedResources === 0', () => app.fw.runtime.diagnostics().detachedResources === 0);
  await app.close();
  const frames = (await held) as { t: string }[];
  assert.deepEqual(
    frames.map((f) => f.t),
    ['reconnect'],
  );
  assert.equal(app.fw.runtime.diagnostics().timers, 0);
});
