import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ImplicitIds, parseServerFrame } from '@fw/protocol';
import { connectWs, startFw, type WsClient } from '../helpers.js';

/**
 * `ids=implicit` (docs/protocol.md, *Implicit ids*): a client that numbers frames itself gets a
 * broadcast's frame without its id, the same bytes as every other such recipient, so that a
 * server can build it once (and on Bun publish it once). The first numbered frame on each
 * connection carries its id, and so does any frame that does not follow the previous one. The
 * next broadcast of the broadcaster of the last one is a sequel frame, `{"t":"s","d":…}`, without
 * `b` and `bid` either: the decoder puts all three back.
 */

type Frame = Record<string, unknown> & { t: string };

async function frames(c: WsClient, n: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < n) {
    const text = await c.messages.next();
    if ((JSON.parse(text) as Frame).t !== 'hb') out.push(text);
  }
  return out;
}

/** Decodes like the fw client: one numbering per connection. */
function decode(texts: string[], ids: ImplicitIds = { last: 0 }): Frame[] {
  return texts.map((t) => parseServerFrame(t, ids) as unknown as Frame);
}

test('implicit ids: after the first, a broadcast frame has no id and is the same bytes for every recipient; the decoder numbers it', async (t) => {
  const app = await startFw({}, (fw) => fw.handle('/room', {}));
  t.after(() => app.close());
  const a = await connectWs(`${app.ws}/fw/room?fw=1&ids=implicit`);
  const b = await connectWs(`${app.ws}/fw/room?fw=1&ids=implicit`);
  t.after(() => {
    a.socket.terminate();
    b.socket.terminate();
  });
  const [hsA] = await frames(a, 1);
  const [hsB] = await frames(b, 1);
  assert.equal((JSON.parse(hsA!) as Frame).t, 'hs');
  assert.equal((JSON.parse(hsB!) as Frame).t, 'hs');
  const room = app.fw.broadcasters.lookup('/fw/room')!;
  room.broadcast('one');
  const [firstA] = await frames(a, 1);
  const [firstB] = await frames(b, 1);
  // The first numbered frame on a connection says its id.
  assert.equal((JSON.parse(firstA!) as Frame).id, 1);
  assert.equal((JSON.parse(firstB!) as Frame).id, 1);
  // Then one per turn and three in one turn: none carries an id.
  room.broadcast('two');
  await new Promise((r) => setImmediate(r));
  for (const m of ['three', 'four', 'five']) room.broadcast(m);
  const restA = await frames(a, 4);
  const restB = await frames(b, 4);
  assert.deepEqual(restA, restB, 'the same bytes for both recipients');
  // The first says its broadcaster and sequence; the next ones follow it: sequels, the payload and 16 bytes.
  assert.equal(firstA, '{"t":"m","id":1,"d":"one","b":"/fw/room","bid":1}');
  assert.deepEqual(restA, ['{"t":"s","d":"two"}', '{"t":"s","d":"three"}', '{"t":"s","d":"four"}', '{"t":"s","d":"five"}']);
  const idsA: ImplicitIds = { last: 0 };
  const decoded = decode([firstA!, ...restA], idsA);
  assert.deepEqual(
    decoded.map((f) => [f.t, f.id, f.d, f.b, f.bid]),
    [
      ['m', 1, 'one', '/fw/room', 1],
      ['m', 2, 'two', '/fw/room', 2],
      ['m', 3, 'three', '/fw/room', 3],
      ['m', 4, 'four', '/fw/room', 4],
      ['m', 5, 'five', '/fw/room', 5],
    ],
  );
  // A unicast between broadcasts is in the same sequence: a's next ids are 6 and 7, b's 6; the
  // broadcast after the unicast is still the sequel of the last broadcast.
  const idsB: ImplicitIds = { last: 5, b: '/fw/room', bid: 5 };
  const resourceA = [...room.resources].find((r) => r.uuid === (JSON.parse(hsA!) as Frame).uuid)!;
  resourceA.write('just you');
  room.broadcast('six');
  const [unicast, six] = await frames(a, 2);
  assert.equal(unicast, '{"t":"m","d":"just you"}');
  assert.equal(six, '{"t":"s","d":"six"}');
  assert.deepEqual(
    decode([unicast!, six!], idsA).map((f) => [f.id, f.d, f.bid]),
    [
      [6, 'just you', undefined],
      [7, 'six', 6],
    ],
  );
  assert.deepEqual(
    decode(await frames(b, 1), idsB).map((f) => [f.id, f.d]),
    [[6, 'six']],
  );
});

test('implicit ids: a resumed connection says the id of its first frame again; a client that did not ask gets every id', async (t) => {
  const app = await startFw({}, (fw) => fw.handle('/room', {}));
  t.after(() => app.close());
  const room = () => app.fw.broadcasters.lookup('/fw/room')!;
  const a = await connectWs(`${app.ws}/fw/room?fw=1&ids=implicit`);
  const plain = await connectWs(`${app.ws}/fw/room?fw=1`);
  t.after(() => plain.socket.terminate());
  const hs = JSON.parse((await frames(a, 1))[0]!) as Frame;
  await frames(plain, 1);
  for (const m of ['1', '2', '3']) room().broadcast(m);
  const ids: ImplicitIds = { last: 0 };
  assert.deepEqual(
    decode(await frames(a, 3), ids).map((f) => f.id),
    [1, 2, 3],
  );
  for (const text of await frames(plain, 3)) assert.equal(typeof (JSON.parse(text) as Frame).id, 'number', text);
  // The connection drops after message 2 reached the client; 4 and 5 are broadcast meanwhile.
  a.socket.terminate();
  await a.closed;
  await new Promise((r) => setTimeout(r, 50));
  for (const m of ['4', '5']) room().broadcast(m);
  const back = await connectWs(`${app.ws}/fw/room?fw=1&ids=implicit&tracking=${hs.uuid as string}&last=2`);
  t.after(() => back.socket.terminate());
  const resumed = await frames(back, 5);
  const [handshake, ...rest] = resumed.map((x) => JSON.parse(x) as Frame);
  assert.equal(handshake!.t, 'hs');
  assert.equal(handshake!.resumed, true);
  // 3 is replayed (the client lost it with the old socket) with its id said, 4 and 5 follow it.
  assert.equal(rest[0]!.id, 3);
  assert.equal(rest[1]!.id, undefined);
  const again = decode(resumed.slice(1), { last: 0 });
  assert.deepEqual(
    again.filter((f) => f.t === 'm').map((f) => [f.id, f.d]),
    [
      [3, '3'],
      [4, '4'],
      [5, '5'],
    ],
  );
});

test('implicit ids: a frame without an id before any numbered frame is not an fw frame; ids=<other> is refused with 400', async (t) => {
  assert.throws(() => parseServerFrame('{"t":"m","d":"x"}', { last: 0 }), /not an fw frame/);
  assert.throws(() => parseServerFrame('{"t":"m","d":"x"}'), /not an fw frame/);
  assert.equal((parseServerFrame('{"t":"m","d":"x"}', { last: 41 }) as { id: number }).id, 42);
  assert.equal((parseServerFrame('{"t":"tool-call","d":"{}"}', { last: 7 }) as { id: number }).id, 8);
  // A sequel needs a sequenced broadcast before it on the connection, and never names one itself.
  assert.throws(() => parseServerFrame('{"t":"s","d":"x"}', { last: 3 }), /not an fw frame/);
  assert.throws(() => parseServerFrame('{"t":"s","d":"x"}'), /not an fw frame/);
  assert.throws(() => parseServerFrame('{"t":"s","d":"x","b":"/fw/a","bid":2}', { last: 3, b: '/fw/a', bid: 1 }), /not an fw frame/);
  assert.deepEqual(parseServerFrame('{"t":"s","d":"x"}', { last: 3, b: '/fw/a', bid: 9 }), { t: 'm', id: 4, d: 'x', b: '/fw/a', bid: 10 });
  const app = await startFw({}, (fw) => fw.handle('/room', {}));
  t.after(() => app.close());
  const res = await fetch(`${app.base}/fw/room?fw=1&ids=sometimes&transport=sse`, { headers: { accept: 'text/event-stream' } });
  assert.equal(res.status, 400);
  const body = (await res.json()) as { code: string; parameter: string };
  assert.equal(body.code, 'invalid_query');
  assert.equal(body.parameter, 'ids');
});

test('implicit ids: unicasts and broadcasts mixed in one turn arrive in their order with consecutive ids, for clients in step and not (on Bun: topics and direct sends)', async (t) => {
  const app = await startFw({}, (fw) => fw.handle('/room', {}));
  t.after(() => app.close());
  const clients = await Promise.all(Array.from({ length: 3 }, () => connectWs(`${app.ws}/fw/room?fw=1&ids=implicit`)));
  const raw = await connectWs(`${app.ws}/fw/room`);
  t.after(() => {
    for (const c of [...clients, raw]) c.socket.terminate();
  });
  const uuids = await Promise.all(clients.map(async (c) => (JSON.parse((await frames(c, 1))[0]!) as Frame).uuid as string));
  const room = app.fw.broadcasters.lookup('/fw/room')!;
  const resource = (i: number) => [...room.resources].find((r) => r.uuid === uuids[i])!;
  const expected: string[][] = [[], [], []];
  const rawExpected: string[] = [];
  const broadcast = (m: string) => {
    room.broadcast(m);
    for (const e of expected) e.push(m);
    rawExpected.push(m);
  };
  const unicast = (i: number, m: string) => {
    resource(i).write(m);
    expected[i]!.push(m);
  };
  broadcast('b1');
  await new Promise((r) => setTimeout(r, 20));
  // One turn: a unicast before, between and after broadcasts, to different clients.
  unicast(0, 'u0-a');
  broadcast('b2');
  unicast(1, 'u1-a');
  broadcast('b3');
  unicast(0, 'u0-b');
  unicast(2, 'u2-a');
  await new Promise((r) => setImmediate(r));
  broadcast('b4');
  unicast(2, 'u2-b');
  broadcast('b5');
  for (let i = 0; i < clients.length; i++) {
    const got = decode(await frames(clients[i]!, expected[i]!.length));
    assert.deepEqual(
      got.map((f) => f.d),
      expected[i],
      `client ${i}`,
    );
    assert.deepEqual(
      got.map((f) => f.id),
      expected[i]!.map((_, k) => k + 1),
      `client ${i} ids`,
    );
  }
  assert.deepEqual(await raw.messages.take(rawExpected.length), rawExpected);
});

test('implicit ids: broadcasts a client never read (its socket dropped with them unread) are replayed on resume, numbered as sent (on Bun: sent through the topic)', async (t) => {
  const app = await startFw({}, (fw) => fw.handle('/room', {}));
  t.after(() => app.close());
  const room = () => app.fw.broadcasters.lookup('/fw/room')!;
  const a = await connectWs(`${app.ws}/fw/room?fw=1&ids=implicit`);
  const hs = JSON.parse((await frames(a, 1))[0]!) as Frame;
  // Two broadcasts read: the socket is in step (on Bun, in the broadcaster's cohort) from the second on.
  for (const m of ['1', '2', '3']) room().broadcast(m);
  const ids: ImplicitIds = { last: 0 };
  assert.deepEqual(
    decode(await frames(a, 3), ids).map((f) => f.id),
    [1, 2, 3],
  );
  // The client stops reading; ten more are sent to it and sit unread; then its socket is cut.
  (a.socket as unknown as { _socket: { pause(): void } })._socket.pause();
  for (let i = 4; i <= 13; i++) room().broadcast(String(i));
  await new Promise((r) => setTimeout(r, 100));
  a.socket.terminate();
  await new Promise((r) => setTimeout(r, 100));
  const back = await connectWs(`${app.ws}/fw/room?fw=1&ids=implicit&tracking=${hs.uuid as string}&last=3`);
  t.after(() => back.socket.terminate());
  const replay = await frames(back, 11);
  assert.equal((JSON.parse(replay[0]!) as Frame).resumed, true);
  assert.deepEqual(
    decode(replay.slice(1), { last: 0 }).map((f) => [f.id, f.d]),
    Array.from({ length: 10 }, (_, i) => [i + 4, String(i + 4)]),
  );
});
