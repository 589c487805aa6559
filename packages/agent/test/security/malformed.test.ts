/**
 * Attack: malformed bodies at every level (issue 25 item 8: a body of `null` answered 500, a
 * `null` part or an array as a task id reached the SDK and came back as -32603 "Internal error"
 * with a JavaScript message). Each endpoint answers with its protocol's error: A2A (1.0 and 0.3) a
 * JSON-RPC -32600/-32601/-32602 naming what is wrong, AG-UI a 400 problem, chat an error frame;
 * never a 5xx, and never a stack trace or a file path. Both configurations.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from '../../dist/index.js';
import { ProbeRuntime, startApp, type TestApp } from '../helpers.js';
import { ChatClient, CONFIGURATIONS, fetchAs, INTERNALS, rpc } from './helpers.js';

@Agent({ name: 'strict' })
class Strict {}

const msg1 = (over: Record<string, unknown> = {}) => ({ messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }], ...over });
const msg03 = (over: Record<string, unknown> = {}) => ({
  kind: 'message',
  messageId: 'm1',
  role: 'user',
  parts: [{ kind: 'text', text: 'hi' }],
  ...over,
});
const call = (method: string, params?: unknown, id: unknown = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

/** [body, expected JSON-RPC code] for both versions. */
const ENVELOPES: [string, number][] = [
  ['null', -32600],
  ['[]', -32600],
  [call('GetTask', { id: 'x' }).replace(/^/, '[').replace(/$/, ']'), -32600],
  ['"GetTask"', -32600],
  ['1', -32600],
  ['true', -32600],
  ['{}', -32600],
  [JSON.stringify({ jsonrpc: '2.0', id: {}, method: 'GetTask' }), -32600],
  [JSON.stringify({ jsonrpc: '2.0', id: 1.5, method: 'GetTask' }), -32600],
  [JSON.stringify({ jsonrpc: '2.0', id: 1, method: 5 }), -32600],
  [JSON.stringify({ jsonrpc: '2.0', id: 1, method: null }), -32600],
  [JSON.stringify({ jsonrpc: null, id: 1, method: 'GetTask' }), -32600],
  [call('__proto__', { id: 'x' }), -32601],
  [call('toString', { id: 'x' }), -32601],
  [call('constructor', { id: 'x' }), -32601],
  [call('hasOwnProperty', {}), -32601],
];

const V1: [string, number][] = [
  [call('GetTask', null), -32602],
  [call('GetTask', []), -32602],
  [call('GetTask', 'x'), -32602],
  [call('GetTask', {}), -32602],
  [call('GetTask', { id: null }), -32602],
  [call('GetTask', { id: 5 }), -32602],
  [call('GetTask', { id: ['x'] }), -32602],
  [call('GetTask', { id: { id: 'x' } }), -32602],
  [call('GetTask', { id: 'x', historyLength: 'all' }), -32602],
  [call('CancelTask', { id: 2 ** 53 }), -32602],
  [call('SubscribeToTask', { id: [] }), -32602],
  [call('ListTasks', { pageSize: 'ten' }), -32602],
  [call('ListTasks', { status: {} }), -32602],
  [call('ListTasks', { contextId: 5 }), -32602],
  [call('ListTasks', { includeArtifacts: 'yes' }), -32602],
  [call('SendMessage', null), -32602],
  [call('SendMessage', {}), -32602],
  [call('SendMessage', { message: null }), -32602],
  [call('SendMessage', { message: [] }), -32602],
  [call('SendMessage', { message: 'hi' }), -32602],
  [call('SendMessage', { message: msg1({ parts: null }) }), -32602],
  [call('SendMessage', { message: msg1({ parts: 'hi' }) }), -32602],
  [call('SendMessage', { message: msg1({ parts: [null] }) }), -32602],
  [call('SendMessage', { message: msg1({ parts: [{ text: 'hi' }, null] }) }), -32602],
  [call('SendMessage', { message: msg1({ parts: [1] }) }), -32602],
  [call('SendMessage', { message: msg1({ parts: [[]] }) }), -32602],
  [call('SendMessage', { message: msg1({ parts: [{ text: 5 }] }) }), -32602],
  [call('SendMessage', { message: msg1({ parts: [{ raw: 5 }] }) }), -32602],
  [call('SendMessage', { message: msg1({ parts: [{ text: 'hi', metadata: 'x' }] }) }), -32602],
  [call('SendMessage', { message: msg1({ messageId: null }) }), -32602],
  [call('SendMessage', { message: msg1({ messageId: 5 }) }), -32602],
  [call('SendMessage', { message: msg1({ contextId: 5 }) }), -32602],
  [call('SendMessage', { message: msg1({ taskId: [] }) }), -32602],
  [call('SendMessage', { message: msg1({ role: {} }) }), -32602],
  [call('SendMessage', { message: msg1({ referenceTaskIds: [null] }) }), -32602],
  [call('SendMessage', { message: msg1({ extensions: 'x' }) }), -32602],
  [call('SendMessage', { message: msg1(), configuration: [] }), -32602],
  [call('SendMessage', { message: msg1(), configuration: { historyLength: 'x' } }), -32602],
  [call('SendMessage', { message: msg1(), configuration: { acceptedOutputModes: [5] } }), -32602],
  [call('SendMessage', { message: msg1(), configuration: { taskPushNotificationConfig: { url: 'x' } } }), -32602],
  [call('SendMessage', { message: msg1(), metadata: [] }), -32602],
  [call('SendStreamingMessage', { message: msg1({ parts: [null] }) }), -32602],
  [call('SendStreamingMessage', { message: null }), -32602],
  [call('SendMessage', { message: msg1({ parts: [{ text: '   ' }] }) }), -32602],
];

const V03: [string, number][] = [
  [call('tasks/get', null), -32602],
  [call('tasks/get', []), -32602],
  [call('tasks/get', { id: 5 }), -32602],
  [call('tasks/get', { id: ['x'] }), -32602],
  [call('tasks/get', { id: null }), -32602],
  [call('tasks/cancel', { id: {} }), -32602],
  [call('tasks/resubscribe', { id: -1 }), -32602],
  [call('message/send', null), -32602],
  [call('message/send', { message: null }), -32602],
  [call('message/send', { message: msg03({ parts: null }) }), -32602],
  [call('message/send', { message: msg03({ parts: [null] }) }), -32602],
  [call('message/send', { message: msg03({ parts: [5] }) }), -32602],
  [call('message/send', { message: msg03({ parts: [{ kind: 'text', text: null }] }) }), -32602],
  [call('message/send', { message: msg03({ parts: [{ kind: 'text', text: 5 }] }) }), -32602],
  [call('message/send', { message: msg03({ parts: [{ kind: 'file', file: null }] }) }), -32602],
  [call('message/send', { message: msg03({ parts: [{ kind: 'file', file: {} }] }) }), -32602],
  [call('message/send', { message: msg03({ parts: [{ kind: 'file', file: { bytes: 5 } }] }) }), -32602],
  [call('message/send', { message: msg03({ parts: [{ kind: 'data', data: 5 }] }) }), -32602],
  [call('message/send', { message: msg03({ parts: [{ kind: '__proto__' }] }) }), -32602],
  [call('message/send', { message: msg03({ role: 'robot' }) }), -32602],
  [call('message/send', { message: msg03({ messageId: 5 }) }), -32602],
  [call('message/send', { message: msg03({ contextId: [] }) }), -32602],
  [call('message/send', { message: msg03(), configuration: { blocking: 'no' } }), -32602],
  [call('message/send', { message: msg03(), configuration: { pushNotificationConfig: { url: 'x' } } }), -32602],
  [call('message/stream', { message: msg03({ parts: [null] }) }), -32602],
];

const AGUI: string[] = [
  'null',
  '[]',
  '"run"',
  '5',
  '{}',
  JSON.stringify({ threadId: 't', runId: 'r', messages: null, tools: [], context: [] }),
  JSON.stringify({ threadId: 't', runId: 'r', messages: [null], tools: [], context: [] }),
  JSON.stringify({ threadId: 't', runId: 'r', messages: [{ id: 'm', role: 'user', content: null }], tools: [], context: [] }),
  JSON.stringify({ threadId: 't', runId: 'r', messages: [{ id: 'm', role: 'user', content: [null] }], tools: [], context: [] }),
  JSON.stringify({ threadId: 't', runId: 'r', messages: [{ id: 5, role: 'user', content: 'hi' }], tools: [], context: [] }),
  JSON.stringify({ threadId: 't', runId: 'r', messages: [{ id: 'm', role: 'user', content: 'hi' }], tools: [null], context: [] }),
  JSON.stringify({ threadId: null, runId: 'r', messages: [{ id: 'm', role: 'user', content: 'hi' }], tools: [], context: [] }),
  JSON.stringify({ threadId: 't', runId: ['r'], messages: [{ id: 'm', role: 'user', content: 'hi' }], tools: [], context: [] }),
  JSON.stringify({
    threadId: 't',
    runId: 'r',
    messages: [{ id: 'm', role: 'tool', content: 'x', toolCallId: 'nope' }],
    tools: [],
    context: [],
  }),
  JSON.stringify({ threadId: 't', runId: 'r', messages: [], tools: [], context: [] }),
];

for (const config of CONFIGURATIONS) {
  describe(`malformed requests to the agent endpoints, ${config.name}`, () => {
    let app: TestApp;
    before(async () => {
      app = await startApp((m) => m.mount(Strict), config.options, [new ProbeRuntime()]);
    });
    after(() => app.close());
    const token = () => config.token('alice');

    for (const [version, cases] of [
      ['1.0', [...ENVELOPES, ...V1]],
      ['0.3', [...ENVELOPES, ...V03]],
    ] as const) {
      test(`A2A ${version}: ${cases.length} malformed requests get their JSON-RPC error, never a 5xx or an internal detail`, async () => {
        for (const [body, code] of cases) {
          const answer = await rpc(app, 'strict', body, { token: token(), version });
          assert.equal(answer.status, 200, `${body} → ${answer.status} ${answer.text}`);
          assert.equal(answer.body.error?.code, code, `${body} → ${answer.text}`);
          assert.ok(!INTERNALS.test(answer.text), `${body} → ${answer.text}`);
          assert.ok(!/Cannot read|is not a function|undefined \(reading/.test(answer.text), `${body} → ${answer.text}`);
        }
        // The endpoint still serves.
        const ok = await rpc(
          app,
          'strict',
          call(version === '1.0' ? 'SendMessage' : 'message/send', { message: version === '1.0' ? msg1() : msg03() }),
          {
            token: token(),
            version,
          },
        );
        assert.ok(ok.body.result, ok.text);
      });
    }

    test(`AG-UI: ${AGUI.length} malformed RunAgentInputs and cancel bodies get a 400 problem, never a 5xx or an internal detail`, async () => {
      const post = fetchAs({ token: token() });
      for (const body of AGUI) {
        const res = await post(`${app.base}/fw/agent/strict/agui`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const text = await res.text();
        assert.equal(res.status, 400, `${body} → ${res.status} ${text}`);
        assert.equal(res.headers.get('content-type'), 'application/problem+json');
        assert.ok(!INTERNALS.test(text), `${body} → ${text}`);
      }
      for (const body of ['null', '[]', '"key"', '{"runKey":5}', '{"runKey":{}}', '{"runKey":["k"]}', '{']) {
        const res = await post(`${app.base}/fw/agent/strict/agui/runs/r/cancel`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const text = await res.text();
        assert.equal(res.status, 400, `cancel ${body} → ${res.status} ${text}`);
        assert.ok(!INTERNALS.test(text), text);
      }
      const plain = await post(`${app.base}/fw/agent/strict/agui/runs/r/cancel`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'x',
      });
      assert.equal(plain.status, 415);
    });

    test('chat: prompts of the wrong shape get a bad_request frame; the session goes on', async () => {
      const c = await ChatClient.connect(app, 'strict', { token: token() });
      await c.session();
      for (const frame of ['{"text":null}', '{"text":5}', '{"text":["hi"]}', '{"text":{}}', '{}', '{"__proto__":{"text":"x"}}', '   ']) {
        const answer = await c.ask(frame);
        assert.equal(answer.type, 'error', frame);
        assert.equal(answer.code, 'bad_request', frame);
      }
      assert.equal((await c.ask('{"text":"hello"}')).type, 'done');
      await c.close();
    });
  });
}
