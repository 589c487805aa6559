/**
 * Client → server exactly once (issue #25): an fw client numbers its messages (`s` in a WebSocket
 * frame, `seq` on a message POST) and sends each until it is acknowledged; the server takes each
 * number once per resource, in order, acknowledges it (an `ack` frame on WebSocket, the POST's
 * answer over HTTP) and says in every handshake how far it got (`ack`), so a resumed client
 * resends exactly what was not taken. Unnumbered messages (older clients, raw) are taken as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectWs, openStream, startFw } from '../helpers.js';
import { waitFor } from '@fw/testing';

interface Frame {
  t: string;
  uuid?: string;
  s?: number;
  ack?: number;
  resumed?: boolean;
}

const m = (d: string, s?: number): string => JSON.stringify({ t: 'm', d, s });

test('websocket: each number is taken once, in order, and acknowledged; a resend is acknowledged, not taken; a skipped number closes 1002', async (t) => {
  const taken: string[] = [];
  const app = await startFw({}, (fw) => fw.handle('/in', { message: (_r, data) => void taken.push(data) }, { broadcaster: null }));
  t.after(() => app.close());
  const c = await connectWs(`${app.ws}/fw/in?fw=1`);
  const hs = JSON.parse(await c.messages.next()) as Frame;
  assert.equal(hs.ack, 0, 'the handshake says how far the server got');
  c.socket.send(m('a', 1));
  c.socket.send(m('b', 2));
  c.socket.send(m('b', 2)); // a resend (its ack was lost)
  c.socket.send(m('old', 1));
  c.socket.send(m('c', 3));
  c.socket.send(m('plain')); // unnumbered: taken as it is
  await waitFor('the messages taken', () => taken.length === 4);
  let last = 0;
  while (last < 3) last = (JSON.parse(await c.messages.next()) as Frame).s!;
  assert.equal(last, 3, 'acknowledged up to 3');
  assert.deepEqual(taken, ['a', 'b', 'c', 'plain']);

  // A dropped connection resumes: the handshake says 3 were taken; the client resends from 4.
  app.fw.resources.get(hs.uuid!)!.connection!.destroy();
  await c.closed;
  const again = await connectWs(`${app.ws}/fw/in?fw=1&tracking=${hs.uuid}&last=0`);
  const resumed = JSON.parse(await again.messages.next()) as Frame;
  assert.deepEqual([resumed.t, resumed.resumed, resumed.ack], ['hs', true, 3]);
  again.socket.send(m('c', 3));
  again.socket.send(m('d', 4));
  await waitFor('d taken', () => taken.length === 5);
  assert.deepEqual(taken, ['a', 'b', 'c', 'plain', 'd']);

  // Number 6 before 5: a client that skips one is broken; the resource ends (1002, protocol error).
  again.socket.send(m('f', 6));
  assert.equal((await again.closed).code, 1002);
  assert.deepEqual(taken, ['a', 'b', 'c', 'plain', 'd']);
  await waitFor('the resource ended', () => app.fw.runtime.stats().connections === 0);
});

test('http: a POST with seq is taken once (the idempotency key); a resend is answered 204, not taken; a skipped seq is 409', async (t) => {
  const taken: string[] = [];
  const app = await startFw({}, (fw) => fw.handle('/in', { message: (_r, data) => void taken.push(data) }, { broadcaster: null }));
  t.after(() => app.close());
  const s = await openStream(`${app.base}/fw/in?fw=1`, true);
  t.after(() => s.abort());
  const hs = JSON.parse((await s.events.next()).data) as Frame;
  const post = (body: string, seq?: string): Promise<Response> =>
    fetch(`${app.base}/fw/in?tracking=${hs.uuid}${seq === undefined ? '' : `&seq=${seq}`}`, { method: 'POST', body });
  assert.equal((await post('a', '1')).status, 204);
  assert.equal((await post('a', '1')).status, 204, 'a resend after a lost answer');
  const skipped = await post('c', '3');
  assert.equal(skipped.status, 409);
  assert.deepEqual(((await skipped.json()) as { code: string; expected: number }).expected, 2, 'the answer names the number expected');
  assert.equal((await post('b', '2')).status, 204);
  assert.equal((await post('plain')).status, 204);
  for (const bad of ['0', '-1', '1.5', 'x', '9999999999999999']) {
    const res = await post('bad', bad);
    assert.equal(res.status, 400, bad);
    assert.equal(((await res.json()) as { code: string }).code, 'invalid_query');
  }
  assert.deepEqual(taken, ['a', 'b', 'plain']);
  // The same numbering across transports: a WebSocket resume of this resource continues it.
  const ws = await connectWs(`${app.ws}/fw/in?fw=1&tracking=${hs.uuid}&last=0`);
  assert.equal((JSON.parse(await ws.messages.next()) as Frame).ack, 2);
  ws.socket.terminate();
});

test('shutdown: the last thing a WebSocket gets before 1012 is the acknowledgement of everything taken', async (t) => {
  const taken: string[] = [];
  const app = await startFw({}, (fw) => fw.handle('/in', { message: (_r, data) => void taken.push(data) }, { broadcaster: null }));
  t.after(() => app.close());
  const c = await connectWs(`${app.ws}/fw/in?fw=1`);
  await c.messages.next();
  for (let i = 1; i <= 50; i++) c.socket.send(m(`m${i}`, i));
  await waitFor('all taken', () => taken.length === 50);
  await app.close();
  assert.equal((await c.closed).code, 1012);
  const frames: Frame[] = [];
  while (c.messages.length > 0) frames.push(JSON.parse(await c.messages.next()) as Frame);
  assert.deepEqual(frames.at(-1), { t: 'ack', s: 50 });
});
