import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkRoomFrame, parseServerFrame, type RoomFrame, type ServerFrame } from '@fw/protocol';
import { addresses, authenticate, useRooms, type Framework, type RoomsOptions } from '../../dist/index.js';
import { connectWs, recordEvents, refusedUpgrade, startFw, type Running, type WsClient } from '../helpers.js';

const ADA = 'ada-token-0123456789abcdef';
const BEA = 'bea-token-0123456789abcdef';
const TOKENS = `ada:operator:${ADA},bea:viewer:${BEA}`;

async function roomsApp(options: RoomsOptions, config: Record<string, unknown> = {}): Promise<Running> {
  return startFw({ 'fw.auth.tokens': TOKENS, ...config } as never, (fw: Framework) => {
    const rooms = useRooms(fw, options);
    fw.handle('/chat/{room}', {}, { interceptors: [authenticate(fw, { required: false }), rooms.interceptor] });
  });
}

/** The next frame of one of `types` (heartbeats and others skipped). */
type Frame = ServerFrame | RoomFrame;
async function frame<T extends Frame['t']>(c: WsClient, ...types: T[]): Promise<Extract<Frame, { t: T }>> {
  for (;;) {
    const text = await c.messages.next();
    const f = parseServerFrame(text) ?? checkRoomFrame(JSON.parse(text) as Record<string, unknown>);
    if (f !== undefined && (types as string[]).includes(f.t)) return f as Extract<Frame, { t: T }>;
  }
}

function join(app: Running, token: string | undefined, query = ''): Promise<WsClient> {
  return connectWs(`${app.ws}/fw/chat/lobby?fw=1${token ? `&access_token=${token}` : ''}${query}`);
}

test('presence: the members when joining, then a join and a leave for each member, with server metadata winning', async () => {
  const app = await roomsApp({ rooms: [{ pattern: '/chat/{room}', meta: (p) => ({ name: p?.id === 'ada' ? 'Ada L.' : 'guest' }) }] });
  try {
    const events = recordEvents(app.fw);
    const ada = await join(app, ADA, `&meta=${encodeURIComponent(JSON.stringify({ name: 'forged', color: 'red' }))}`);
    const first = await frame(ada, 'members');
    assert.equal(first.b, '/fw/chat/lobby');
    assert.equal(first.total, 1);
    assert.equal(first.m[0]!.principal, 'ada');
    assert.deepEqual(first.m[0]!.meta, { name: 'Ada L.', color: 'red' });

    const bea = await join(app, BEA);
    const joined = await frame(ada, 'presence');
    assert.equal(joined.ev, 'join');
    assert.equal(joined.m.principal, 'bea');
    const second = await frame(bea, 'members');
    assert.deepEqual(
      second.m.map((m) => m.principal),
      ['ada', 'bea'],
    );
    assert.deepEqual(
      app.fw.services
        .get('rooms')!
        .list()
        .map((r) => [r.name, r.members]),
      [['/fw/chat/lobby', 2]],
    );

    bea.socket.close(1000);
    const left = await frame(ada, 'presence');
    assert.equal(left.ev, 'leave');
    assert.equal(left.m.id, joined.m.id);
    assert.equal(app.fw.services.get('rooms')!.get('/fw/chat/lobby')!.members, 1);
    assert.deepEqual(
      events.filter((e) => e.type.startsWith('RoomMember')).map((e) => e.type),
      ['RoomMemberJoined', 'RoomMemberJoined', 'RoomMemberLeft'],
    );
    ada.socket.close(1000);
    await ada.closed;
  } finally {
    await app.close();
  }
});

test('a refused join is a 403 before any socket and a RoomRefused event; presence is hidden from who may not see it', async () => {
  const app = await roomsApp({
    rooms: [
      { pattern: '/chat/vip', join: { principals: ['ada'] } },
      { pattern: '/chat/{room}', presence: { roles: ['operator'] } },
    ],
  });
  try {
    const events = recordEvents(app.fw);
    const refused = await refusedUpgrade(`${app.base}/fw/chat/vip?fw=1&access_token=${BEA}`);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'room_join_refused');
    assert.match(String(refused.body.detail), /'bea' may not join the room \/fw\/chat\/vip/);
    const anonymous = await refusedUpgrade(`${app.base}/fw/chat/vip?fw=1`);
    assert.equal(anonymous.status, 403);
    assert.deepEqual(
      events.filter((e) => e.type === 'RoomRefused').map((e) => [e.room, e.action, e.principal]),
      [
        ['/fw/chat/vip', 'join', 'bea'],
        ['/fw/chat/vip', 'join', null],
      ],
    );
    const vip = await connectWs(`${app.ws}/fw/chat/vip?fw=1&access_token=${ADA}`);
    assert.equal((await frame(vip, 'members')).total, 1);

    // bea (a viewer) is in the lobby but sees no presence; ada (an operator) does.
    const bea = await join(app, BEA);
    const ada = await join(app, ADA);
    assert.equal((await frame(ada, 'members')).total, 2);
    app.fw.broadcasters.lookup('/fw/chat/lobby')!.broadcast('hello');
    const next = await frame(bea, 'members', 'presence', 'm');
    assert.equal(next.t, 'm', 'bea got a presence frame it may not see');
    for (const c of [vip, bea, ada]) c.socket.close(1000);
  } finally {
    await app.close();
  }
});

test('a refused publish is a refused frame; the message reaches nobody', async () => {
  const app = await roomsApp({ rooms: [{ pattern: '/chat/{room}', publish: { roles: ['operator'] } }] });
  try {
    const events = recordEvents(app.fw);
    const ada = await join(app, ADA);
    const bea = await join(app, BEA);
    bea.socket.send(JSON.stringify({ t: 'm', d: 'from bea' }));
    const refused = await frame(bea, 'refused');
    assert.deepEqual(refused, { t: 'refused', b: '/fw/chat/lobby', action: 'publish', reason: 'not_allowed' });
    ada.socket.send(JSON.stringify({ t: 'm', d: 'from ada' }));
    assert.equal((await frame(bea, 'm')).d, 'from ada');
    assert.equal((await frame(ada, 'm')).d, 'from ada', 'the first message ada gets is her own: bea’s never went out');
    assert.deepEqual(
      events.filter((e) => e.type === 'RoomRefused').map((e) => [e.action, e.reason, e.principal]),
      [['publish', 'not_allowed', 'bea']],
    );
    for (const c of [ada, bea]) c.socket.close(1000);
  } finally {
    await app.close();
  }
});

test('fw.rooms.publish-burst messages at once are taken, the next one is refused with retryAfter', async () => {
  const app = await roomsApp({}, { 'fw.rooms.publish-rate': 1, 'fw.rooms.publish-burst': 3 });
  try {
    const ada = await join(app, ADA);
    for (let i = 1; i <= 4; i++) ada.socket.send(JSON.stringify({ t: 'm', d: `n${i}` }));
    const seen: string[] = [];
    let refused: Extract<Frame, { t: 'refused' }> | undefined;
    while (seen.length < 3 || refused === undefined) {
      const f = await frame(ada, 'm', 'refused');
      if (f.t === 'm') seen.push(f.d);
      else refused = f;
    }
    assert.deepEqual(seen, ['n1', 'n2', 'n3']);
    assert.equal(refused.reason, 'rate_limited');
    assert.ok(refused.retryAfter! > 0 && refused.retryAfter! <= 1000, `retryAfter ${refused.retryAfter}`);
    ada.socket.close(1000);
  } finally {
    await app.close();
  }
});

test('member metadata: at fw.rooms.max-meta-bytes it is taken, one more character or not an object is a 400', async () => {
  const app = await roomsApp({}, { 'fw.rooms.max-meta-bytes': 20 });
  try {
    const exact = JSON.stringify({ n: 'x'.repeat(12) });
    assert.equal(exact.length, 20);
    const ok = await join(app, ADA, `&meta=${encodeURIComponent(exact)}`);
    assert.deepEqual((await frame(ok, 'members')).m[0]!.meta, { n: 'x'.repeat(12) });
    const over = await refusedUpgrade(`${app.base}/fw/chat/lobby?fw=1&meta=${encodeURIComponent(JSON.stringify({ n: 'x'.repeat(13) }))}`);
    assert.equal(over.status, 400);
    assert.equal(over.body.code, 'invalid_room_meta');
    assert.match(String(over.body.detail), /at most 20/);
    for (const bad of ['[1]', 'nope', '"s"']) {
      const r = await refusedUpgrade(`${app.base}/fw/chat/lobby?fw=1&meta=${encodeURIComponent(bad)}`);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.code, 'invalid_room_meta');
    }
    ok.socket.close(1000);
  } finally {
    await app.close();
  }
});

test('fw.rooms.members-listed bounds the list, not the count', async () => {
  const app = await roomsApp({}, { 'fw.rooms.members-listed': 1 });
  try {
    const a = await join(app, ADA);
    const b = await join(app, BEA);
    const members = await frame(b, 'members');
    assert.equal(members.m.length, 1);
    assert.equal(members.total, 2);
    assert.equal(app.fw.services.get('rooms')!.get('/fw/chat/lobby')!.memberDetails.length, 1);
    for (const c of [a, b]) c.socket.close(1000);
  } finally {
    await app.close();
  }
});

test('configured limits outside their range refuse to start', async () => {
  for (const [key, value] of [
    ['fw.rooms.max-meta-bytes', 9000],
    ['fw.rooms.members-listed', 0],
    ['fw.rooms.history-max', 0],
  ] as const) {
    await assert.rejects(roomsApp({}, { [key]: value }), new RegExp(key.replaceAll('.', '\\.')));
  }
});

test('history: last N and since a bid, from the replay cache, with the gap said; every bad query a 400', async () => {
  const app = await roomsApp(
    { rooms: [{ pattern: '/chat/vip', join: { principals: ['ada'] } }] },
    { 'fw.broadcaster.replay-cache': 3, 'fw.rooms.history-max': 4 },
  );
  try {
    const ada = await join(app, ADA);
    const lobby = app.fw.broadcasters.lookup('/fw/chat/lobby')!;
    for (let i = 1; i <= 5; i++) lobby.broadcast(`m${i}`);
    const get = async (q: string, token?: string) => {
      const res = await fetch(`${app.base}/fw/rooms/history?${q}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
      return { status: res.status, body: (await res.json()) as Record<string, unknown> & { messages: { bid: number; d: string }[] } };
    };
    const room = encodeURIComponent('/fw/chat/lobby');
    const last = await get(`room=${room}&last=4`);
    assert.equal(last.status, 200);
    assert.deepEqual(
      last.body.messages.map((m) => m.bid),
      [3, 4, 5],
    );
    assert.deepEqual(last.body.gaps, [{ b: '/fw/chat/lobby', from: 2, to: 2, lost: 1, reason: 'replay-window-exceeded' }]);
    const since = await get(`room=${room}&since=3`);
    assert.deepEqual(
      since.body.messages.map((m) => m.d),
      ['m4', 'm5'],
    );
    assert.deepEqual(since.body.gaps, []);
    assert.equal(since.body.more, false);
    const restarted = await get(`room=${room}&since=3&epoch=another`);
    assert.deepEqual(
      (restarted.body.gaps as { reason: string }[]).map((g) => g.reason),
      ['server-restarted', 'replay-window-exceeded'],
    );

    for (const [q, parameter] of [
      ['', 'room'],
      [`room=${room}&last=0`, 'last'],
      [`room=${room}&last=5`, 'last'],
      [`room=${room}&last=x`, 'last'],
      [`room=${room}&since=-1`, 'since'],
      [`room=${room}&since=1&last=1`, 'last'],
    ] as const) {
      const r = await get(q);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'invalid_query');
      assert.equal(r.body.parameter, parameter, q);
    }
    const unknown = await get(`room=${encodeURIComponent('/fw/chat/nobody')}&last=1`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'unknown_room');
    const vip = encodeURIComponent('/fw/chat/vip');
    const refused = await get(`room=${vip}&last=1`, BEA);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'room_history_refused');
    const anonymous = await get(`room=${vip}&last=1`);
    assert.equal(anonymous.status, 403);
    assert.match(String(anonymous.body.detail), /an anonymous caller may not read/);
    assert.equal((await get(`room=${vip}&last=1`, ADA)).status, 404, 'ada may read it; nobody is in it');
    ada.socket.close(1000);
  } finally {
    await app.close();
  }
});

test('a virtual member is in the presence, hears what the room took and streams its reply to the room', async () => {
  const app = await roomsApp({ rooms: [{ pattern: '/chat/{room}', publish: { roles: ['operator'] } }] });
  try {
    const rooms = app.fw.services.get('rooms') as import('../../dist/index.js').Rooms;
    const heard: [string, string | null][] = [];
    const leave = rooms.addVirtualMember('/fw/chat/lobby', {
      name: 'echo',
      meta: { name: 'Echo' },
      message(data, from, room) {
        heard.push([data, from.principal]);
        if (!addresses(data, 'echo')) return;
        for (const chunk of ['one ', 'two ', 'three']) room.publish({ from: 'echo', chunk });
        room.publish({ from: 'echo', done: true, as: room.principal });
      },
    });
    assert.throws(() => rooms.addVirtualMember('/fw/chat/lobby', { name: 'echo', message() {} }), /virtual member 'echo' already/);
    const ada = await join(app, ADA);
    const bea = await join(app, BEA);
    const list = await frame(ada, 'members');
    assert.deepEqual(
      list.m.map((m) => [m.id, m.principal, m.meta]),
      [
        ['virtual:echo', 'room:/fw/chat/lobby', { name: 'Echo', virtual: true }],
        [list.m[1]!.id, 'ada', {}],
      ],
    );
    bea.socket.send(JSON.stringify({ t: 'm', d: '@echo from a viewer' })); // refused: the member never hears it
    await frame(bea, 'refused');
    ada.socket.send(JSON.stringify({ t: 'm', d: 'no mention here' }));
    ada.socket.send(JSON.stringify({ t: 'm', d: 'hey @echo, count' }));
    const got: string[] = [];
    while (got.length < 6) got.push((await frame(ada, 'm')).d);
    assert.deepEqual(got, [
      'no mention here',
      'hey @echo, count',
      '{"from":"echo","chunk":"one "}',
      '{"from":"echo","chunk":"two "}',
      '{"from":"echo","chunk":"three"}',
      '{"from":"echo","done":true,"as":"room:/fw/chat/lobby"}',
    ]);
    assert.deepEqual(heard, [
      ['no mention here', 'ada'],
      ['hey @echo, count', 'ada'],
    ]);
    leave();
    const left = await frame(ada, 'presence');
    assert.deepEqual([left.ev, left.m.id], ['leave', 'virtual:echo']);
    for (const c of [ada, bea]) c.socket.close(1000);
  } finally {
    await app.close();
  }
});

test('addresses: @name as a word of its own, any case', () => {
  assert.ok(addresses('@assistant hi', 'assistant'));
  assert.ok(addresses('hi @Assistant!', 'assistant'));
  assert.ok(!addresses('hi @assistants', 'assistant'));
  assert.ok(!addresses('mail me at x@assistant', 'assistant'));
  assert.ok(!addresses('assistant, hi', 'assistant'));
  assert.ok(addresses('(@a.b)', 'a.b'));
});
