/** The room layer (`@fw/client/room`) against the real runtime's rooms, over each transport. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '@fw/testing';
import { authenticate, useRooms } from '@fw/runtime';
import { connect, type TransportName } from '../dist/node.js';
import { room, type RoomMember } from '../dist/room.js';
import { serve, until } from './helpers.js';

const ADA = 'ada-token-0123456789abcdef';
const BEA = 'bea-token-0123456789abcdef';
const TRANSPORTS: TransportName[] = ['websocket', 'sse', 'long-polling', 'streaming'];

for (const transport of TRANSPORTS) {
  test(`${transport}: members, joins and leaves, a refused publish and the history of the room`, async () => {
    const server = await serve({ 'fw.auth.tokens': `ada:operator:${ADA},bea:viewer:${BEA}` }, (fw) => {
      const rooms = useRooms(fw, {
        rooms: [{ pattern: '/chat/{room}', publish: { roles: ['operator'] }, meta: (p) => ({ name: p?.id }) }],
      });
      fw.handle('/chat/{room}', {}, { interceptors: [authenticate(fw), rooms.interceptor] });
    });
    try {
      const ada = connect(server.url('/fw/chat/lobby'), { transports: [transport], token: ADA });
      const adaRoom = room(ada, { token: ADA });
      const joined: RoomMember[] = [];
      const left: RoomMember[] = [];
      adaRoom.onJoin((m) => joined.push(m));
      adaRoom.onLeave((m) => left.push(m));
      await until(ada, 'open');
      await waitFor('ada listed', () => adaRoom.members.size === 1);
      assert.equal([...adaRoom.members.values()][0]!.meta.name, 'ada');
      assert.equal(adaRoom.name, '/fw/chat/lobby');

      const bea = connect(server.url('/fw/chat/lobby'), { transports: [transport], token: BEA });
      const beaRoom = room(bea);
      const refusals: string[] = [];
      beaRoom.onRefused((f) => refusals.push(f.reason));
      await until(bea, 'open');
      await waitFor('bea joined, seen by ada', () => joined.length === 1);
      assert.equal(joined[0]!.principal, 'bea');
      assert.equal(adaRoom.total, 2);
      await waitFor('bea lists both', () => beaRoom.members.size === 2);

      await bea.send('may I?'); // taken by the server, refused by the room
      await waitFor('a refused frame', () => refusals.length === 1);
      assert.deepEqual(refusals, ['not_allowed']);

      for (const n of [1, 2, 3]) await ada.send(`m${n}`);
      await waitFor('three in the cache', () => server.fw.runtime.getBroadcaster('/fw/chat/lobby')!.messages === 3);
      const history = await adaRoom.history({ last: 2 });
      assert.deepEqual(
        history.messages.map((m) => m.d),
        ['m2', 'm3'],
      );
      assert.deepEqual(history.gaps, []);
      const since = await adaRoom.history({ since: 1 });
      assert.deepEqual(
        since.messages.map((m) => m.bid),
        [2, 3],
      );

      bea.close();
      await waitFor('bea left', () => left.length === 1);
      assert.equal(adaRoom.members.size, 1);
      assert.equal(adaRoom.total, 1);
      ada.close();
    } finally {
      await server.close();
    }
  });
}

test('history(): a refused read is an http_error naming the server’s code', async () => {
  const server = await serve({ 'fw.auth.tokens': `ada:operator:${ADA}` }, (fw) => {
    const rooms = useRooms(fw, { rooms: [{ pattern: '/vip', join: { principals: ['ada'] } }] });
    fw.handle('/vip', {}, { interceptors: [authenticate(fw, { required: false }), rooms.interceptor] });
  });
  try {
    // A refused join: the client hears the server's code (over an HTTP transport) and does not get in.
    const errors: { code: string; status?: number; problemCode?: string }[] = [];
    const refused = connect(server.url('/fw/vip'), { transports: ['sse'], reconnect: false });
    refused.onError((e) => errors.push(e));
    await until(refused, 'closed');
    assert.deepEqual(
      errors.map((e) => [e.code, e.status, e.problemCode]),
      [['http_error', 403, 'room_join_refused']],
    );

    const ada = connect(server.url('/fw/vip'), { token: ADA });
    await until(ada, 'open');
    const anonymous = room(ada); // no token for history()
    await assert.rejects(anonymous.history({ last: 1 }), (e: { code: string; status: number; problemCode: string }) => {
      assert.equal(e.code, 'http_error');
      assert.equal(e.status, 403);
      assert.equal(e.problemCode, 'room_history_refused');
      return true;
    });
    ada.close();
  } finally {
    await server.close();
  }
});

test('history after a reconnect: what was missed since the last message seen, or the gap when the cache no longer holds it', async () => {
  const server = await serve({ 'fw.broadcaster.replay-cache': 4 }, (fw) => {
    const rooms = useRooms(fw);
    fw.handle('/chat/{room}', {}, { interceptors: [rooms.interceptor] });
  });
  try {
    const stay = connect(server.url('/fw/chat/lobby')); // keeps the room (and its broadcaster) alive
    await until(stay, 'open');
    const first = connect(server.url('/fw/chat/lobby'));
    let last = 0;
    first.onMessage((_d, meta) => (last = meta.broadcasterSeq ?? last));
    await until(first, 'open');
    const lobby = () => server.fw.broadcasters.lookup('/fw/chat/lobby')!;
    lobby().broadcast('a');
    await waitFor('a seen', () => last === 1 || undefined);
    first.close();
    for (const m of ['b', 'c', 'd']) lobby().broadcast(m);

    const again = connect(server.url('/fw/chat/lobby'));
    await until(again, 'open');
    const missed = await room(again).history({ since: last });
    assert.deepEqual(
      missed.messages.map((m) => m.d),
      ['b', 'c', 'd'],
    );
    assert.deepEqual(missed.gaps, []);

    for (const m of ['e', 'f', 'g']) lobby().broadcast(m); // the cache (4) now holds d…g: b and c are gone
    const later = await room(again).history({ since: last });
    assert.deepEqual(
      later.messages.map((m) => m.d),
      ['d', 'e', 'f', 'g'],
    );
    assert.deepEqual(later.gaps, [{ b: '/fw/chat/lobby', from: 2, to: 3, lost: 2, reason: 'replay-window-exceeded' }]);
    for (const c of [stay, again]) c.close();
  } finally {
    await server.close();
  }
});
