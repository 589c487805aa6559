/**
 * Attack: structurally malformed requests in bulk (issue 25 item 8: a fuzz found 271 of 100,000
 * A2A cases answered 500). 20,000 seeded cases per endpoint kind (A2A 1.0, A2A 0.3, AG-UI runs),
 * each a valid request with up to four mutations somewhere in it (`null`, a wrong type, a member
 * removed or added, an empty or wrapped value, an edge number or string), sent over keep-alive
 * connections. No answer may be a 5xx, an A2A -32603 (an internal error is never the right answer
 * to a client's mistake), or show an internal detail. With credentials the same code runs after
 * authentication, so that configuration gets a smaller sample. A failure prints its case number:
 * `new JsonFuzzer({ seed, maxMutations }).case(templates, n)` rebuilds it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent as HttpAgent, request } from 'node:http';
import { JsonFuzzer, waitFor, type Json } from '@fw/testing';
import { Agent, OnPrompt } from '../../dist/index.js';
import { startApp, type TestApp } from '../helpers.js';
import { CONFIGURATIONS, INTERNALS, rpc } from './helpers.js';

@Agent({ name: 'target' })
class Target {
  @OnPrompt()
  prompt(message: string): string {
    return `ok: ${message.length}`;
  }
}

const SEED = 24_25;
const MAX_MUTATIONS = 4;
/** Concurrent keep-alive connections the cases are spread over. */
const CONNECTIONS = 8;

/** Limits out of the way: the fuzz is about parsing, not about the caps (tested on their own). */
const UNLIMITED = {
  'fw.agent.prompts.per-minute': 0,
  'fw.agent.tasks.max-per-principal': 0,
  'fw.agent.tasks.max-per-address': 0,
  'fw.agent.agui.max-runs-per-principal': 0,
  'fw.agent.agui.max-runs-per-address': 0,
};

interface Kind {
  name: string;
  path: string;
  headers: Record<string, string>;
  /** Valid requests (JSON values) the cases are mutated from. */
  templates(known: { taskId: string; contextId: string }): unknown[];
  /** What is wrong with an answer of this kind (undefined: fine). */
  judge(status: number, text: string): string | undefined;
}

/** A JSON-RPC answer (one object, or SSE `data:` lines) must not be a -32603. */
function judgeRpc(status: number, text: string): string | undefined {
  if (status >= 500) return `HTTP ${status}`;
  if (INTERNALS.test(text)) return 'an internal detail';
  if (/"code":\s*-32603/.test(text)) return 'JSON-RPC -32603';
  return undefined;
}

const KINDS: Kind[] = [
  {
    name: 'A2A 1.0',
    path: '/fw/agent/target/a2a',
    headers: { 'a2a-version': '1.0' },
    templates: ({ taskId, contextId }) => {
      const message = {
        messageId: 'm-1',
        role: 'ROLE_USER',
        parts: [{ text: 'hello' }, { data: { k: 1 } }],
        contextId,
        metadata: { a: 1 },
      };
      return [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message, configuration: { historyLength: 2, acceptedOutputModes: ['text/plain'] } },
        },
        { jsonrpc: '2.0', id: 'a', method: 'SendStreamingMessage', params: { message, metadata: {} } },
        { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: taskId, historyLength: 1 } },
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'ListTasks',
          params: { contextId, pageSize: 10, status: 'TASK_STATE_COMPLETED', includeArtifacts: true },
        },
        { jsonrpc: '2.0', id: 4, method: 'CancelTask', params: { id: taskId, metadata: {} } },
        { jsonrpc: '2.0', id: 5, method: 'SubscribeToTask', params: { id: taskId } },
        { jsonrpc: '2.0', id: 6, method: 'GetTaskPushNotificationConfig', params: { taskId, id: 'p' } },
        { jsonrpc: '2.0', id: 7, method: 'GetExtendedAgentCard', params: {} },
      ];
    },
    judge: judgeRpc,
  },
  {
    name: 'A2A 0.3',
    path: '/fw/agent/target/a2a',
    headers: {},
    templates: ({ taskId, contextId }) => {
      const message = {
        kind: 'message',
        messageId: 'm-1',
        role: 'user',
        contextId,
        parts: [
          { kind: 'text', text: 'hello' },
          { kind: 'data', data: { k: 1 } },
          { kind: 'file', file: { uri: 'https://example.com/a.txt', mimeType: 'text/plain' } },
        ],
      };
      return [
        { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message, configuration: { blocking: true, historyLength: 2 } } },
        { jsonrpc: '2.0', id: 'a', method: 'message/stream', params: { message } },
        { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: taskId, historyLength: 1 } },
        { jsonrpc: '2.0', id: 3, method: 'tasks/cancel', params: { id: taskId } },
        { jsonrpc: '2.0', id: 4, method: 'tasks/resubscribe', params: { id: taskId } },
        { jsonrpc: '2.0', id: 5, method: 'tasks/pushNotificationConfig/get', params: { id: taskId } },
        { jsonrpc: '2.0', id: 6, method: 'agent/getAuthenticatedExtendedCard' },
      ];
    },
    judge: judgeRpc,
  },
  {
    name: 'AG-UI',
    path: '/fw/agent/target/agui',
    headers: {},
    templates: () => [
      {
        threadId: 't-1',
        runId: 'r-1',
        messages: [
          { id: 'u1', role: 'user', content: 'hello' },
          {
            id: 'a1',
            role: 'assistant',
            content: 'hi',
            toolCalls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }],
          },
          { id: 't1', role: 'tool', toolCallId: 'c1', content: 'done' },
          { id: 'u2', role: 'user', content: [{ type: 'text', text: 'again' }] },
        ],
        tools: [{ name: 'f', description: 'a tool', parameters: { type: 'object', properties: { x: { type: 'number' } } } }],
        context: [{ description: 'where', value: 'here' }],
        state: { step: 1 },
        forwardedProps: { p: true },
      },
    ],
    judge: (status, text) => {
      if (status >= 500) return `HTTP ${status}`;
      if (INTERNALS.test(text)) return 'an internal detail';
      if (status !== 200 && status !== 400) return `HTTP ${status}`;
      return undefined;
    },
  },
];

/** POSTs over a pool of keep-alive connections. */
function poster(base: string, token: string | undefined) {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: CONNECTIONS });
  const url = new URL(base);
  const post = (path: string, body: string, headers: Record<string, string>) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path,
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return { post, close: () => agent.destroy() };
}

test('the fuzzer is reproducible: a seed gives the same cases, and case(i) alone equals the i-th of the sequence', () => {
  const templates: Json[] = [{ a: [1, { b: 'x' }], c: null }];
  const one = [...new JsonFuzzer({ seed: 7 }).cases(templates, 50)].map((c) => JSON.stringify(c));
  const two = [...new JsonFuzzer({ seed: 7 }).cases(templates, 50)].map((c) => JSON.stringify(c));
  assert.deepEqual(one, two);
  assert.equal(JSON.stringify(new JsonFuzzer({ seed: 7 }).case(templates, 31)), one[31]);
  assert.ok(new Set(one).size > 25, 'the cases differ from one another');
  assert.notDeepEqual(
    [...new JsonFuzzer({ seed: 8 }).cases(templates, 50)].map((c) => JSON.stringify(c)),
    one,
  );
});

for (const config of CONFIGURATIONS) {
  const cases = config.token('alice') === undefined ? 20_000 : 2_000;

  describe(`fuzzing the agent endpoints, ${config.name}`, () => {
    let app: TestApp;
    const known = { taskId: '', contextId: '' };
    before(async () => {
      app = await startApp((m) => m.mount(Target), { ...config.options, ...UNLIMITED });
      const sent = await rpc(
        app,
        'target',
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: 'seed', role: 'ROLE_USER', parts: [{ text: 'seed' }] } },
        },
        { token: config.token('alice'), version: '1.0' },
      );
      const task = (sent.body.result as { task: { id: string; contextId: string } }).task;
      known.taskId = task.id;
      known.contextId = task.contextId;
    });
    after(() => app.close());

    for (const kind of KINDS) {
      test(`${kind.name}: ${cases} mutated requests, no 5xx, no internal error, no internal detail`, { timeout: 170_000 }, async () => {
        const fuzz = new JsonFuzzer({ seed: SEED, maxMutations: MAX_MUTATIONS });
        const templates = kind.templates(known) as Json[];
        const { post, close } = poster(app.base, config.token('alice'));
        const failures: string[] = [];
        let next = 0;
        try {
          const worker = async (): Promise<void> => {
            for (let i = next++; i < cases; i = next++) {
              const body = JSON.stringify(fuzz.case(templates, i));
              const { status, text } = await post(kind.path, body, kind.headers);
              const wrong = kind.judge(status, text);
              if (wrong && failures.length < 10)
                failures.push(`case ${i}: ${wrong}\n  sent ${body.slice(0, 400)}\n  got  ${status} ${text.slice(0, 400)}`);
            }
          };
          await Promise.all(Array.from({ length: CONNECTIONS }, worker));
        } finally {
          close();
        }
        assert.deepEqual(failures, [], failures.join('\n'));
        // Nothing held on: every run and every live task of the cases gave its share back.
        const limits = app.module.host.limits;
        await waitFor('every share given back', () => limits.runs.inUse() === 0 && limits.tasks.inUse() === 0, 20_000);
      });
    }
  });
}
