import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectWs, openStream, recordEvents, startFw } from '../helpers.js';
import { waitFor } from '@fw/testing';

type Frame = { t: string; id?: number; d?: string; uuid?: string; resumed?: boolean; lost?: number; reason?: string; recovered?: boolean };

test('resume: the server kills the socket in the middle of a 1000-message stream; every message arrives exactly once, in order', async () => {
  const app = await startFw({}, (fw) => fw.handle('/stream', {}));
  try {
    const received: string[] = [];
    let last = 0;
    let resumed = 0;
    let recoveries = 0;
    const base = `${app.ws}/fw/stream?fw=1`;
    let c = await connectWs(base);
    const hs = JSON.parse(await c.messages.next()) as Frame;
    await waitFor('app.fw.runtime.stats().connections === 1', () => app.fw.runtime.stats().connections === 1);
    // The publisher keeps going while the client is away.
    const publisher = (async () => {
      for (let i = 0; i < 1000; i++) {
        app.fw.runtime.broadcast('/fw/stream', `msg ${i}`);
        if (i % 20 === 19) await new Promise((r) => setImmediate(r));
      }
    })();
    while (received.length < 1000) {
      const raw = c.messages.length > 0 ? await c.messages.next() : await Promise.race([c.messages.next(), c.closed.then(() => null)]);
      if (raw === null) {
        assert.equal((await c.closed).code, 1006);
        c = await connectWs(`${base}&tracking=${hs.uuid}&last=${last}`);
        continue;
      }
      const f = JSON.parse(raw) as Frame;
      if (f.t === 'hs') {
        assert.equal(f.uuid, hs.uuid);
        if (f.resumed) resumed++;
        continue;
      }
      if (f.t === 'rec') {
        // The resume's summary: everything after `last` was replayed.
        assert.equal(f.recovered, true);
        recoveries++;
        continue;
      }
      assert.equal(f.t, 'm');
      assert.equal(f.id, last + 1, 'in order, no duplicates');
      last = f.id!;
      received.push(f.d!);
      if (received.length === 300) app.fw.resources.get(hs.uuid!)!.connection!.destroy();
    }
    await publisher;
    assert.deepEqual(
      received,
      Array.from({ length: 1000 }, (_, i) => `msg ${i}`),
    );
    assert.equal(resumed, 1);
    assert.equal(recoveries, 1);
    assert.equal(app.fw.runtime.stats().resumes, 1);
    assert.equal(app.fw.runtime.stats().connections, 1);
  } finally {
    await app.close();
  }
});

test('resume: buffer overflow during the outage yields a gap frame with the lost count (counted); the rest replays', async () => {
  const app = await startFw({ 'fw.resume.buffer': 5 }, (fw) => fw.handle('/stream', {}));
  try {
    const c = await connectWs(`${app.ws}/fw/stream?fw=1`);
    const hs = JSON.parse(await c.messages.next()) as Frame;
    app.fw.resources.get(hs.uuid!)!.connection!.destroy();
    await c.closed;
    await waitFor('app.fw.runtime.diagnostics().detachedResources === 1', () => app.fw.runtime.diagnostics().detachedResources === 1);
    for (let i = 1; i <= 20; i++) app.fw.runtime.broadcast('/fw/stream', `m${i}`);
    const again = await connectWs(`${app.ws}/fw/stream?fw=1&tracking=${hs.uuid}&last=0`);
    const frames = (await again.messages.take(8)).map((s) => JSON.parse(s) as Frame);
    assert.deepEqual(frames[0], {
      t: 'hs',
      uuid: hs.uuid,
      transport: 'websocket',
      heartbeat: 25000,
      resumed: true,
      epoch: app.fw.runtime.epoch,
      ack: 0,
    });
    // The gap names the resource's message ids it cannot replay, and why.
    assert.deepEqual(frames[1], { t: 'gap', lost: 15, reason: 'replay-window-exceeded', from: 1, to: 15 });
    assert.deepEqual(
      frames.slice(2, 7).map((f) => [f.id, f.d]),
      [
        [16, 'm16'],
        [17, 'm17'],
        [18, 'm18'],
        [19, 'm19'],
        [20, 'm20'],
      ],
    );
    assert.deepEqual(frames[7], { t: 'rec', recovered: false });
    assert.equal(app.fw.runtime.stats().gaps, 1);
    assert.equal(app.fw.runtime.stats().lost, 15);
    again.socket.close(1000);
  } finally {
    await app.close();
  }
});

test('resume: a resource not resumed within fw.resume.grace is gone (one ResourceDisconnected), then 404 unknown_tracking_id', async () => {
  const app = await startFw({ 'fw.resume.grace': 100 }, (fw) => fw.handle('/stream', {}));
  const events = recordEvents(app.fw);
  try {
    const c = await connectWs(`${app.ws}/fw/stream?fw=1`);
    const hs = JSON.parse(await c.messages.next()) as Frame;
    c.socket.terminate();
    await waitFor('app.fw.runtime.diagnostics().detachedResources === 1', () => app.fw.runtime.diagnostics().detachedResources === 1);
    // Still a member during the grace period: broadcasts are buffered for it.
    assert.equal(app.fw.runtime.broadcast('/fw/stream', 'while away'), 1);
    await waitFor('app.fw.runtime.stats().connections === 0', () => app.fw.runtime.stats().connections === 0, 2000);
    const disc = events.filter((e) => e.type === 'ResourceDisconnected');
    assert.equal(disc.length, 1);
    assert.match(String(disc[0]!.reason), /connection lost/);
    assert.equal(app.fw.runtime.diagnostics().timers, 0);
    const late = await fetch(`${app.base}/fw/stream?transport=sse&fw=1&tracking=${hs.uuid}&last=0`);
    assert.equal(late.status, 404);
    assert.equal(late.headers.get('content-type'), 'application/problem+json');
    assert.equal(((await late.json()) as { code: string }).code, 'unknown_tracking_id');
    const ahead = await connectWs(`${app.ws}/fw/stream?fw=1`);
    const hs2 = JSON.parse(await ahead.messages.next()) as Frame;
    const bad = await fetch(`${app.base}/fw/stream?transport=sse&fw=1&tracking=${hs2.uuid}&last=99`);
    assert.equal(bad.status, 400);
    ahead.socket.close(1000);
  } finally {
    await app.close();
  }
});

test('resume: a WebSocket resource can come back over SSE and continue its sequence', async () => {
  const app = await startFw({}, (fw) => fw.handle('/stream', {}));
  try {
    const c = await connectWs(`${app.ws}/fw/stream?fw=1`);
    const hs = JSON.parse(await c.messages.next()) as Frame;
    app.fw.runtime.broadcast('/fw/stream', 'a');
    assert.equal((JSON.parse(await c.messages.next()) as Frame).id, 1);
    c.socket.terminate();
    await waitFor('app.fw.runtime.diagnostics().detachedResources === 1', () => app.fw.runtime.diagnostics().detachedResources === 1);
    app.fw.runtime.broadcast('/fw/stream', 'b');
    const s = await openStream(`${app.base}/fw/stream?transport=sse&fw=1&tracking=${hs.uuid}&last=1`, true);
    const frames = (await s.events.take(2)).map((e) => JSON.parse(e.data) as Frame);
    assert.equal(frames[0]!.resumed, true);
    assert.deepEqual([frames[1]!.id, frames[1]!.d], [2, 'b']);
    assert.equal(app.fw.runtime.getResource(hs.uuid!)?.transport, 'sse');
    assert.equal(app.fw.runtime.listResources({ transport: 'websocket' }).total, 0);
    assert.equal(app.fw.runtime.listResources({ transport: 'sse' }).total, 1);
    s.abort();
  } finally {
    await app.close();
  }
});
