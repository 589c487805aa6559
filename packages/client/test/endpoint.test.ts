import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeSince, endpointUrl, resolveEndpoint } from '../dist/endpoint.js';

test('endpoints: scheme per transport, query parameters, base64url since', () => {
  const base = resolveEndpoint('http://127.0.0.1:8080/fw/chat/lobby#x');
  assert.equal(endpointUrl(base, 'ws', { fw: '1', tracking: undefined }), 'ws://127.0.0.1:8080/fw/chat/lobby?fw=1');
  assert.equal(endpointUrl(resolveEndpoint('wss://h/fw/a?k=v'), 'http', { last: '3' }), 'https://h/fw/a?k=v&last=3');
  assert.throws(() => resolveEndpoint('ftp://h/x'), TypeError);
  const since = encodeSince(
    new Map([
      ['/fw/chat/lobby', 42],
      ['/fw/é?', 7],
    ]),
  );
  assert.match(since, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(JSON.parse(Buffer.from(since, 'base64url').toString('utf8')), { '/fw/chat/lobby': 42, '/fw/é?': 7 });
  // Over the limit the oldest cursors go first.
  const many = new Map(Array.from({ length: 100 }, (_, i) => [`/fw/room/${i}`, i] as [string, number]));
  const bounded = encodeSince(many, 300);
  assert.ok(bounded.length <= 300, `${bounded.length}`);
  const kept = Object.keys(JSON.parse(Buffer.from(bounded, 'base64url').toString('utf8')) as object);
  assert.ok(kept.length > 0 && kept.at(-1) === '/fw/room/99' && !kept.includes('/fw/room/0'), kept.join());
});
