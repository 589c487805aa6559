import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseServerFrame,
  parseClientFrame,
  encodeUpstream,
  encodeHandshake,
  encodeGap,
  encodeRecovery,
  encodeClose,
  encodeReconnect,
  ProtocolError,
  MESSAGE_FRAME_HEAD,
  HEARTBEAT_FRAME,
  FINAL_CLOSE_CODES,
  CloseCode,
  CredentialReason,
  encodeAck,
  isCredentialReason,
} from '@fw/protocol';

test('server frames: every type decodes; unknown types are skipped; junk is a protocol_error', () => {
  assert.deepEqual(parseServerFrame('{"t":"hs","uuid":"u1","transport":"sse","heartbeat":25000,"resumed":true}'), {
    t: 'hs',
    uuid: 'u1',
    transport: 'sse',
    heartbeat: 25000,
    resumed: true,
  });
  assert.deepEqual(parseServerFrame('{"t":"m","id":17,"d":"hi","b":"/fw/chat/lobby","bid":42}'), {
    t: 'm',
    id: 17,
    d: 'hi',
    b: '/fw/chat/lobby',
    bid: 42,
  });
  assert.deepEqual(parseServerFrame('{"t":"m","id":1,"d":""}'), { t: 'm', id: 1, d: '' });
  assert.deepEqual(parseServerFrame('{"t":"m","id":2,"d":"x","b":"/fw/a"}'), { t: 'm', id: 2, d: 'x', b: '/fw/a' });
  assert.deepEqual(parseServerFrame('{"t":"tool-call","id":3,"d":"{}"}'), { t: 'tool-call', id: 3, d: '{}' });
  assert.deepEqual(parseServerFrame('{"t":"hb"}'), { t: 'hb' });
  assert.deepEqual(parseServerFrame('{"t":"gap","lost":12}'), { t: 'gap', reason: 'replay-window-exceeded', lost: 12 });
  assert.deepEqual(parseServerFrame('{"t":"gap","lost":2,"reason":"cluster-link-lost","b":"/fw/x","from":4,"to":5}'), {
    t: 'gap',
    reason: 'cluster-link-lost',
    lost: 2,
    b: '/fw/x',
    from: 4,
    to: 5,
  });
  assert.deepEqual(parseServerFrame('{"t":"rec","recovered":true}'), { t: 'rec', recovered: true });
  assert.deepEqual(parseServerFrame('{"t":"close","reason":"bye"}'), { t: 'close', reason: 'bye' });
  assert.deepEqual(parseServerFrame('{"t":"reconnect","reason":"server shutting down"}'), {
    t: 'reconnect',
    reason: 'server shutting down',
  });
  assert.equal(parseServerFrame('{"t":"future-frame"}'), undefined);
  for (const junk of [
    'hello',
    '[1]',
    'null',
    '{"t":"m","id":"1","d":"x"}',
    '{"t":"m","id":1}',
    '{"t":"hs","uuid":"u","transport":"pigeon"}',
    '{"x":1}',
    '{"t":"m","id":1,"d":"x","bid":3}',
    '{"t":"m","id":1,"d":"x","b":7}',
  ]) {
    assert.throws(
      () => parseServerFrame(junk),
      (e: unknown) => e instanceof ProtocolError && e.code === 'protocol_error',
      junk,
    );
  }
});

test('encoders and decoders agree in both directions', () => {
  assert.equal(encodeUpstream('a "quoted"\nline'), '{"t":"m","d":"a \\"quoted\\"\\nline"}');
  assert.deepEqual(parseClientFrame(encodeUpstream('x')), { t: 'm', d: 'x' });
  assert.deepEqual(parseClientFrame(encodeUpstream('{"id":1}', 'tool-response')), { t: 'tool-response', d: '{"id":1}' });
  assert.deepEqual(parseClientFrame(HEARTBEAT_FRAME), { t: 'hb' });
  // A client may not send server frames, non-string data, or junk: the server closes with 1007.
  for (const junk of ['{"t":"tool-call","id":1,"d":"x"}', '{"t":"m","d":1}', '"m"', 'null', '{', '{"t":"hs"}'])
    assert.equal(parseClientFrame(junk), undefined, junk);

  const hs = encodeHandshake({ uuid: 'u', transport: 'websocket', heartbeat: 25_000, resumed: false, epoch: 'e1' });
  assert.deepEqual(parseServerFrame(hs), { t: 'hs', uuid: 'u', transport: 'websocket', heartbeat: 25_000, resumed: false, epoch: 'e1' });
  assert.deepEqual(parseServerFrame(encodeGap({ reason: 'server-restarted', lost: 3, b: '/fw/a', from: 4, to: 6 })), {
    t: 'gap',
    reason: 'server-restarted',
    lost: 3,
    b: '/fw/a',
    from: 4,
    to: 6,
  });
  assert.deepEqual(parseServerFrame(encodeRecovery(false)), { t: 'rec', recovered: false });
  assert.deepEqual(parseServerFrame(encodeClose('bye')), { t: 'close', reason: 'bye' });
  assert.deepEqual(parseServerFrame(encodeReconnect('server shutting down')), { t: 'reconnect', reason: 'server shutting down' });
  assert.deepEqual(parseServerFrame(`${MESSAGE_FRAME_HEAD}5,"d":"x"}`), { t: 'm', id: 5, d: 'x' });
});

test('close codes: the server ending a resource or refusing input is final; a drop or restart is not', () => {
  for (const code of [CloseCode.closedByServer, CloseCode.invalidPayload, CloseCode.messageTooBig, 1008])
    assert.ok(FINAL_CLOSE_CODES.has(code), String(code));
  for (const code of [CloseCode.goingAway, CloseCode.serviceRestart, 1006, 1011, 1013])
    assert.ok(!FINAL_CLOSE_CODES.has(code), String(code));
});

test("client messages exactly once: numbered upstream frames, acks, the handshake's ack; a bad number is junk", () => {
  assert.equal(encodeUpstream('x', 'm', 7), '{"t":"m","d":"x","s":7}');
  assert.deepEqual(parseClientFrame(encodeUpstream('x', 'm', 7)), { t: 'm', d: 'x', s: 7 });
  assert.deepEqual(parseClientFrame(encodeUpstream('{}', 'tool-response', 8)), { t: 'tool-response', d: '{}', s: 8 });
  // An unnumbered frame (an older client) is still a message.
  assert.deepEqual(parseClientFrame('{"t":"m","d":"x"}'), { t: 'm', d: 'x' });
  for (const junk of ['{"t":"m","d":"x","s":0}', '{"t":"m","d":"x","s":-1}', '{"t":"m","d":"x","s":1.5}', '{"t":"m","d":"x","s":"1"}'])
    assert.equal(parseClientFrame(junk), undefined, junk);

  assert.equal(encodeAck(12), '{"t":"ack","s":12}');
  assert.deepEqual(parseServerFrame(encodeAck(12)), { t: 'ack', s: 12 });
  assert.throws(() => parseServerFrame('{"t":"ack","s":"12"}'), ProtocolError);
  const hs = encodeHandshake({ uuid: 'u', transport: 'sse', heartbeat: 0, resumed: true, ack: 3 });
  assert.deepEqual(parseServerFrame(hs), { t: 'hs', uuid: 'u', transport: 'sse', heartbeat: 0, resumed: true, ack: 3 });
  // An older server's handshake has no ack: the client then knows it sends no acknowledgements.
  assert.equal(
    (parseServerFrame('{"t":"hs","uuid":"u","transport":"sse","heartbeat":0,"resumed":true}') as { ack?: number }).ack,
    undefined,
  );
});

test('credential close reasons: expired and revoked, on a close frame or WebSocket 1008 (final for clients that cannot renew)', () => {
  assert.equal(CloseCode.policyViolation, 1008);
  assert.ok(FINAL_CLOSE_CODES.has(CloseCode.policyViolation));
  assert.ok(isCredentialReason(CredentialReason.expired) && isCredentialReason(CredentialReason.revoked));
  assert.deepEqual([CredentialReason.expired, CredentialReason.revoked], ['credential_expired', 'credential_revoked']);
  assert.ok(!isCredentialReason('closed by server'));
  assert.deepEqual(parseServerFrame(encodeClose(CredentialReason.expired)), { t: 'close', reason: 'credential_expired' });
});

test('handshake: written by hand, it is byte for byte what JSON.stringify writes, whatever the strings hold', () => {
  const frames = [
    {
      uuid: '5f0c6b8e-1c2d-4e3f-9a0b-1c2d3e4f5a6b',
      transport: 'websocket' as const,
      heartbeat: 25_000,
      resumed: false,
      epoch: 'e1',
      ack: 0,
    },
    { uuid: 'u', transport: 'sse' as const, heartbeat: 0, resumed: true },
    { uuid: 'q"uote\\back\nline\u2028', transport: 'long-polling' as const, heartbeat: 1.5, resumed: false, epoch: '</script>' },
    { uuid: '', transport: 'streaming' as const, heartbeat: Number.NaN, resumed: true, ack: Number.POSITIVE_INFINITY },
  ];
  for (const f of frames) assert.equal(encodeHandshake(f), JSON.stringify({ t: 'hs', ...f }), f.uuid);
});
