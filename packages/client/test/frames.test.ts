import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeMessage, parseFrame } from '../src/frames.js';
import { ClientError } from '../src/errors.js';
import { encodeSince, endpointUrl, resolveEndpoint } from '../src/endpoint.js';

test('frames: every server frame type decodes; unknown types are skipped; junk is a protocol_error', () => {
  assert.deepEqual(parseFrame('{"t":"hs","uuid":"u1","transport":"sse","heartbeat":25000,"resumed":true}'), {
    t: 'hs', uuid: 'u1', transport: 'sse', heartbeat: 25000, resumed: true,
  });
  assert.deepEqual(parseFrame('{"t":"m","id":17,"d":"hi","b":"/fw/chat/lobby","bid":42}'), { t: 'm', id: 17, d: 'hi', b: '/fw/chat/lobby', bid: 42 });
  assert.deepEqual(parseFrame('{"t":"m","id":1,"d":""}'), { t: 'm', id: 1, d: '' });
  assert.deepEqual(parseFrame('{"t":"m","id":2,"d":"x","b":"/fw/a"}'), { t: 'm', id: 2, d: 'x', b: '/fw/a' });
  assert.deepEqual(parseFrame('{"t":"hb"}'), { t: 'hb' });
  assert.deepEqual(parseFrame('{"t":"gap","lost":12}'), { t: 'gap', reason: 'replay-window-exceeded', lost: 12 });
  assert.deepEqual(parseFrame('{"t":"gap","lost":2,"reason":"cluster-link-lost","b":"/fw/x","from":4,"to":5}'), { t: 'gap', reason: 'cluster-link-lost', lost: 2, b: '/fw/x', from: 4, to: 5 });
  assert.deepEqual(parseFrame('{"t":"rec","recovered":true}'), { t: 'rec', recovered: true });
  assert.deepEqual(parseFrame('{"t":"close","reason":"bye"}'), { t: 'close', reason: 'bye' });
  assert.equal(parseFrame('{"t":"future-frame"}'), undefined);
  for (const junk of ['hello', '[1]', 'null', '{"t":"m","id":"1","d":"x"}', '{"t":"m","id":1}', '{"t":"hs","uuid":"u","transport":"pigeon"}', '{"x":1}', '{"t":"m","id":1,"d":"x","bid":3}', '{"t":"m","id":1,"d":"x","b":7}']) {
    assert.throws(() => parseFrame(junk), (e: unknown) => e instanceof ClientError && e.code === 'protocol_error', junk);
  }
  assert.equal(encodeMessage('a "quoted"\nline'), '{"t":"m","d":"a \\"quoted\\"\\nline"}');
});

test('endpoints: scheme per transport, query parameters, base64url since', () => {
  const base = resolveEndpoint('http://127.0.0.1:8080/fw/chat/lobby#x');
  assert.equal(endpointUrl(base, 'ws', { fw: '1', tracking: undefined }), 'ws://127.0.0.1:8080/fw/chat/lobby?fw=1');
  assert.equal(endpointUrl(resolveEndpoint('wss://h/fw/a?k=v'), 'http', { last: '3' }), 'https://h/fw/a?k=v&last=3');
  assert.throws(() => resolveEndpoint('ftp://h/x'), TypeError);
  const since = encodeSince(new Map([['/fw/chat/lobby', 42], ['/fw/é?', 7]]));
  assert.match(since, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(JSON.parse(Buffer.from(since, 'base64url').toString('utf8')), { '/fw/chat/lobby': 42, '/fw/é?': 7 });
  // Over the limit the oldest cursors go first.
  const many = new Map(Array.from({ length: 100 }, (_, i) => [`/fw/room/${i}`, i] as [string, number]));
  const bounded = encodeSince(many, 300);
  assert.ok(bounded.length <= 300, `${bounded.length}`);
  const kept = Object.keys(JSON.parse(Buffer.from(bounded, 'base64url').toString('utf8')) as object);
  assert.ok(kept.length > 0 && kept.at(-1) === '/fw/room/99' && !kept.includes('/fw/room/0'), kept.join());
});
