import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkRoomFrame,
  encodeMembers,
  encodePresence,
  encodeRefused,
  parseServerFrame,
  ProtocolError,
  ROOM_LIMITS,
  type RoomMember,
} from '@fw/protocol';

/** A room frame as the room layer decodes it. */
const decode = (text: string) => checkRoomFrame(JSON.parse(text) as Record<string, unknown>);

const ada: RoomMember = { id: 'u1', principal: 'ada', meta: { name: 'Ada' }, joinedAt: 1_700_000_000_000 };

test('room frames round-trip through their encoders and the checked decoder', () => {
  assert.deepEqual(decode(encodePresence('/fw/chat/lobby', 'join', ada)), {
    t: 'presence',
    b: '/fw/chat/lobby',
    ev: 'join',
    m: ada,
  });
  assert.deepEqual(decode(encodeMembers('/fw/chat/lobby', [ada], 3)), { t: 'members', b: '/fw/chat/lobby', m: [ada], total: 3 });
  assert.deepEqual(decode(encodeRefused('/r', 'rate_limited', 250)), {
    t: 'refused',
    b: '/r',
    action: 'publish',
    reason: 'rate_limited',
    retryAfter: 250,
  });
  assert.deepEqual(decode(encodeRefused('/r', 'not_allowed')), {
    t: 'refused',
    b: '/r',
    action: 'publish',
    reason: 'not_allowed',
  });
  const anonymous = { ...ada, principal: null };
  assert.deepEqual(decode(encodePresence('/r', 'leave', anonymous)), { t: 'presence', b: '/r', ev: 'leave', m: anonymous });
});

test('the core decoder skips room frames as unknown kinds; checkRoomFrame leaves other kinds alone', () => {
  assert.equal(parseServerFrame(encodePresence('/r', 'join', ada)), undefined);
  assert.equal(checkRoomFrame({ t: 'm', id: 1, d: 'x' }), undefined);
});

test('room frames past the protocol ceilings or of the wrong shape are not fw frames', () => {
  const atCeiling = { ...ada, meta: { v: 'x'.repeat(ROOM_LIMITS.maxMetaBytes - 8) } };
  assert.equal(JSON.stringify(atCeiling.meta).length, ROOM_LIMITS.maxMetaBytes);
  assert.ok(decode(encodePresence('/r', 'join', atCeiling)));
  const bad = [
    encodePresence('/r', 'join', { ...ada, meta: { v: 'x'.repeat(ROOM_LIMITS.maxMetaBytes - 7) } }),
    encodeMembers(
      '/r',
      Array.from({ length: ROOM_LIMITS.maxMembersListed + 1 }, () => ada),
      5000,
    ),
    encodeMembers('/r', [ada, ada], 1), // a total below what is listed
    '{"t":"presence","b":"/r","ev":"moved","m":{"id":"u","principal":null,"meta":{},"joinedAt":1}}',
    '{"t":"presence","b":"/r","ev":"join","m":{"id":"u","principal":7,"meta":{},"joinedAt":1}}',
    '{"t":"presence","b":"/r","ev":"join","m":{"id":"u","principal":null,"meta":[],"joinedAt":1}}',
    '{"t":"refused","b":"/r","action":"join","reason":"x"}',
    '{"t":"refused","b":"/r","action":"publish","reason":"rate_limited","retryAfter":-1}',
  ];
  for (const text of bad) assert.throws(() => decode(text), ProtocolError, text.slice(0, 80));
  assert.ok(
    decode(
      encodeMembers(
        '/r',
        Array.from({ length: ROOM_LIMITS.maxMembersListed }, () => ada),
        5000,
      ),
    ),
  );
});
