import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseParser, type SseEvent } from '../dist/sse-parser.js';
import { ndjsonConsumer } from '../dist/transports/stream.js';

function parse(chunks: string[]): { events: SseEvent[]; comments: string[] } {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const p = new SseParser(
    (e) => events.push(e),
    (c) => comments.push(c),
  );
  for (const c of chunks) p.feed(c);
  return { events, comments };
}

test('sse: events with ids, multi-line data, comments, named events', () => {
  const { events, comments } = parse([
    'id: 1\ndata: {"t":"hb"}\n\n: keep-alive\n\nid: 2\ndata: line one\ndata: line two\n\nevent: x\ndata:nospace\n\n',
  ]);
  assert.deepEqual(events, [
    { id: '1', event: 'message', data: '{"t":"hb"}' },
    { id: '2', event: 'message', data: 'line one\nline two' },
    { id: undefined, event: 'x', data: 'nospace' },
  ]);
  assert.deepEqual(comments, ['keep-alive']);
});

test('sse: any chunking and CR, LF or CRLF line ends give the same events', () => {
  const text = 'id: 7\r\ndata: a\r\ndata: b\r\n\r\ndata: c\rdata: d\r\rdata: e\n\n';
  const expected = [
    { id: '7', event: 'message', data: 'a\nb' },
    { id: undefined, event: 'message', data: 'c\nd' },
    { id: undefined, event: 'message', data: 'e' },
  ];
  assert.deepEqual(parse([text]).events, expected);
  assert.deepEqual(parse([...text]).events, expected);
  for (let cut = 1; cut < text.length; cut++)
    assert.deepEqual(parse([text.slice(0, cut), text.slice(cut)]).events, expected, `cut at ${cut}`);
  // An event without its blank line is not dispatched yet; a data-less event is never.
  assert.deepEqual(parse(['data: pending\n', 'id: 3\n\n']).events, [{ id: '3', event: 'message', data: 'pending' }]);
  assert.deepEqual(parse(['id: 9\n\n', 'data: x']).events, []);
});

test('ndjson: one frame per line across chunk boundaries; blank lines are keep-alives', () => {
  const lines: string[] = [];
  let alive = 0;
  const feed = ndjsonConsumer(
    (l) => lines.push(l),
    () => alive++,
  );
  feed('{"t":"hs"');
  feed('}\n{"t":"m"}\n\n{"t"');
  feed(':"hb"}\n');
  assert.deepEqual(lines, ['{"t":"hs"}', '{"t":"m"}', '{"t":"hb"}']);
  assert.equal(alive, 1);
});
