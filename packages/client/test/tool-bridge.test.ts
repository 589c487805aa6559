import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerToolCall, parseToolCall } from '../dist/tool-bridge.js';

test('tool calls are recognised only in their exact shape', () => {
  assert.deepEqual(parseToolCall('{"type":"tool-call","id":"c1","toolName":"add","arguments":{"a":1}}'), {
    id: 'c1',
    toolName: 'add',
    arguments: { a: 1 },
  });
  assert.deepEqual(parseToolCall('{"type": "tool-call", "id": 7, "toolName": "x"}'), { id: 7, toolName: 'x', arguments: {} });
  for (const no of [
    'hello "tool-call"',
    '{"type":"tool-response","id":"c","result":"tool-call"}',
    '{"type":"tool-call","toolName":"x"}',
    '{"type":"tool-call","id":"c"}',
    '"tool-call"',
    '{"type":"chat"}',
  ]) {
    assert.equal(parseToolCall(no), undefined, no);
  }
});

test('answers: string results as is, others JSON-encoded, failures and missing handlers as error', async () => {
  const call = { id: 'c1', toolName: 't', arguments: { a: 2, b: 3 } };
  assert.deepEqual(JSON.parse(await answerToolCall((args) => String(Number(args.a) + Number(args.b)), call)), {
    type: 'tool-response',
    id: 'c1',
    result: '5',
  });
  assert.deepEqual(JSON.parse(await answerToolCall(async () => ({ ok: true }), call)), {
    type: 'tool-response',
    id: 'c1',
    result: '{"ok":true}',
  });
  assert.deepEqual(JSON.parse(await answerToolCall(() => undefined, call)), { type: 'tool-response', id: 'c1', result: '' });
  assert.deepEqual(
    JSON.parse(
      await answerToolCall(() => {
        throw new Error('boom');
      }, call),
    ),
    { type: 'tool-response', id: 'c1', error: 'boom' },
  );
  assert.deepEqual(JSON.parse(await answerToolCall(async () => Promise.reject(new Error('late')), call)), {
    type: 'tool-response',
    id: 'c1',
    error: 'late',
  });
  assert.deepEqual(JSON.parse(await answerToolCall(undefined, call)), {
    type: 'tool-response',
    id: 'c1',
    error: "no handler registered for tool 't'",
  });
});
