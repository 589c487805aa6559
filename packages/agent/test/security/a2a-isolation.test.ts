/**
 * Attack: one A2A client reads, lists, cancels or resubscribes to another's tasks, or reads
 * another's conversation through its context (issue 24: an anonymous ListTasks returned every
 * client's prompts and answers; with fw.auth.tokens, bob listed, read and cancelled alice's task).
 * Performed with the official A2A SDK clients (1.0 and 0.3) and raw JSON-RPC, in both
 * configurations. A refusal must look exactly like an unknown task.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { waitFor } from '@fw/testing';
import { Agent } from '../../dist/index.js';
import { ProbeRuntime, startApp, type TestApp } from '../helpers.js';
import { a2aClient, CONFIGURATIONS, legacyTransport, rpc, sendRequest } from './helpers.js';

@Agent({ name: 'keeper', headless: true })
class Keeper {}

const list = (client: Client, contextId = '') =>
  client.listTasks({
    tenant: '',
    contextId,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageSize: 100,
    pageToken: '',
    historyLength: undefined,
    statusTimestampAfter: undefined,
    includeArtifacts: true,
  });

/** A JSON-RPC error with the task id in its message replaced, to compare two refusals. */
function shape(answer: { status: number; body: { error?: unknown; result?: unknown } }, id: string): string {
  return JSON.stringify({ status: answer.status, error: answer.body.error, result: answer.body.result }).replaceAll(id, '<id>');
}

for (const config of CONFIGURATIONS) {
  const anonymous = config.token('alice') === undefined;

  describe(`A2A tasks and contexts between callers, ${config.name}`, () => {
    const probe = new ProbeRuntime();
    let app: TestApp;
    before(async () => {
      app = await startApp((m) => m.mount(Keeper), config.options, [probe]);
    });
    after(() => app.close());

    test('ListTasks (1.0) shows bob none of the tasks, prompts or answers of alice', async () => {
      const alice = await a2aClient(app, 'keeper', config.token('alice'));
      const bob = await a2aClient(app, 'keeper', config.token('bob'));
      const mine = (await alice.sendMessage(sendRequest('alice-secret-prompt'))) as Task;
      assert.equal(mine.status?.state, TaskState.TASK_STATE_COMPLETED);
      const seen = await list(bob);
      assert.ok(!seen.tasks.some((t) => t.id === mine.id), 'bob lists alice’s task');
      assert.ok(!JSON.stringify(seen).includes('alice-secret-prompt'), 'bob reads alice’s prompt');
      assert.equal(seen.totalSize, 0);
      if (anonymous) {
        // An anonymous caller has no identity that could list "its" tasks: only a context it names.
        assert.equal((await list(alice)).tasks.length, 0);
        assert.deepEqual(
          (await list(alice, mine.contextId)).tasks.map((t) => t.id),
          [mine.id],
        );
      } else {
        assert.deepEqual(
          (await list(alice)).tasks.map((t) => t.id),
          [mine.id],
        );
        assert.equal((await list(bob, mine.contextId)).tasks.length, 0, 'naming alice’s context lists none of it');
      }
      // 0.3 has no ListTasks; 1.0 without the official client: the same filter.
      const raw = await rpc(
        app,
        'keeper',
        { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} },
        { token: config.token('bob'), version: '1.0' },
      );
      assert.ok(!raw.text.includes(mine.id) && !raw.text.includes('alice-secret-prompt'), raw.text);
    });

    test('GetTask, CancelTask, SubscribeToTask (1.0) and tasks/get, tasks/cancel, tasks/resubscribe (0.3) answer bob for alice’s running task exactly as for an unknown one', {
      skip: anonymous && 'anonymous callers: the server-generated task id is the capability of whoever was given it',
    }, async () => {
      const alice = await a2aClient(app, 'keeper', config.token('alice'));
      const stream = alice.sendMessageStream(sendRequest('slow alice-secret-work'))[Symbol.asyncIterator]();
      const first = await stream.next();
      const id = (first.value!.payload as { value: Task }).value.id;
      await waitFor("alice's task working", () => app.module.view.task(id)?.state === 'working');
      const aborts = probe.aborts;
      const bob = config.token('bob');
      const unknown = randomUUID();
      for (const [method, version] of [
        ['GetTask', '1.0'],
        ['CancelTask', '1.0'],
        ['SubscribeToTask', '1.0'],
        ['tasks/get', '0.3'],
        ['tasks/cancel', '0.3'],
        ['tasks/resubscribe', '0.3'],
      ] as const) {
        const refused = await rpc(app, 'keeper', { jsonrpc: '2.0', id: 7, method, params: { id } }, { token: bob, version });
        const missing = await rpc(app, 'keeper', { jsonrpc: '2.0', id: 7, method, params: { id: unknown } }, { token: bob, version });
        assert.equal(refused.body.error?.code, -32001, `${method}: ${refused.text}`);
        assert.equal(shape(refused, id), shape(missing, unknown), `${method}: bob can tell alice’s task from an unknown one`);
        assert.ok(!refused.text.includes('alice-secret-work'), refused.text);
      }
      // The official clients say the same.
      const bobClient = await a2aClient(app, 'keeper', bob);
      await assert.rejects(bobClient.getTask({ tenant: '', id, historyLength: undefined }), /not found/i);
      await assert.rejects(bobClient.cancelTask({ tenant: '', id, metadata: undefined }), /not found/i);
      await assert.rejects(legacyTransport(app, 'keeper', bob).getTask({ tenant: '', id, historyLength: undefined }), /not found/i);
      // Alice's task never noticed: still working, its run never aborted; she cancels it herself.
      assert.equal(app.module.view.task(id)?.state, 'working');
      assert.equal(probe.aborts, aborts);
      const cancelled = await alice.cancelTask({ tenant: '', id, metadata: undefined });
      assert.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED);
      for (let r = await stream.next(); !r.done; r = await stream.next()) {
        /* drain */
      }
    });

    test('a message naming alice’s context starts bob’s own conversation: none of her turns reach his run, and neither lists the other’s task', {
      skip: anonymous && 'anonymous callers: the context id is the capability, naming it continues that conversation',
    }, async () => {
      const alice = await a2aClient(app, 'keeper', config.token('alice'));
      const bob = await a2aClient(app, 'keeper', config.token('bob'));
      const hers = (await alice.sendMessage(sendRequest('alice-context-secret'))) as Task;
      const before = probe.requests.length;
      const his = (await bob.sendMessage(sendRequest('bob in her context', hers.contextId))) as Task;
      assert.equal(his.contextId, hers.contextId);
      const request = probe.requests[before]!;
      assert.ok(!JSON.stringify(request.messages).includes('alice-context-secret'), 'alice’s turn reached bob’s run');
      assert.deepEqual(
        (await list(alice, hers.contextId)).tasks.map((t) => t.id),
        [hers.id],
      );
      assert.deepEqual(
        (await list(bob, hers.contextId)).tasks.map((t) => t.id),
        [his.id],
      );
    });

    test('a caller continuing its own context gets its earlier turns back', async () => {
      const alice = await a2aClient(app, 'keeper', config.token('alice'));
      const first = (await alice.sendMessage(sendRequest('remember the word pelican'))) as Task;
      const before = probe.requests.length;
      await alice.sendMessage(sendRequest('what was the word?', first.contextId));
      assert.ok(JSON.stringify(probe.requests[before]!.messages).includes('pelican'));
    });

    test('push notification configs are not served: -32003 on 1.0 and 0.3, for any task id', async () => {
      const alice = await a2aClient(app, 'keeper', config.token('alice'));
      const task = (await alice.sendMessage(sendRequest('push me'))) as Task;
      for (const [method, version, params] of [
        ['GetTaskPushNotificationConfig', '1.0', { taskId: task.id, id: 'x' }],
        ['ListTaskPushNotificationConfigs', '1.0', { taskId: task.id }],
        ['CreateTaskPushNotificationConfig', '1.0', { taskId: task.id, url: 'http://127.0.0.1:1/hook' }],
        ['DeleteTaskPushNotificationConfig', '1.0', { taskId: task.id, id: 'x' }],
        ['tasks/pushNotificationConfig/get', '0.3', { id: task.id }],
        ['tasks/pushNotificationConfig/list', '0.3', { id: task.id }],
        ['tasks/pushNotificationConfig/set', '0.3', { taskId: task.id, pushNotificationConfig: { url: 'http://127.0.0.1:1/hook' } }],
        ['tasks/pushNotificationConfig/delete', '0.3', { id: task.id, pushNotificationConfigId: 'x' }],
      ] as const) {
        const answer = await rpc(app, 'keeper', { jsonrpc: '2.0', id: 1, method, params }, { token: config.token('bob'), version });
        assert.equal(answer.body.error?.code, -32003, `${method}: ${answer.text}`);
      }
    });
  });
}
