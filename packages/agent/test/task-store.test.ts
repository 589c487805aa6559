import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskState, type Task } from '@a2a-js/sdk';
import { EventBus, type FwEvent } from '@fw/runtime';
import { openStore } from '@fw/store';
import { BoundedTaskStore } from '../dist/index.js';

const task = (id: string, state: TaskState): Task => ({
  id,
  contextId: 'ctx',
  artifacts: [],
  history: [],
  metadata: undefined,
  status: { state, message: undefined, timestamp: undefined },
});

test('task store: bounded (terminal evicted first, live refused), terminal tasks expire, transitions announced', async () => {
  const bus = new EventBus();
  const events: FwEvent[] = [];
  bus.onAny((e) => events.push(e));
  let now = 1_000;
  const db = await openStore({});
  const store = new BoundedTaskStore(
    bus,
    () => ({ max: 2, terminalTtlMs: 500 }),
    db.tasks,
    () => now,
  );
  await store.save('a', task('t1', TaskState.TASK_STATE_SUBMITTED));
  await store.save('a', task('t1', TaskState.TASK_STATE_WORKING));
  await store.save('a', task('t1', TaskState.TASK_STATE_WORKING));
  await store.save('b', task('t2', TaskState.TASK_STATE_WORKING));
  assert.deepEqual(
    events.map((e) => e.type === 'TaskStateChanged' && `${e.taskId}:${e.oldState}->${e.newState}`),
    ['t1:null->submitted', 't1:submitted->working', 't2:null->working'],
  );
  // Full of live tasks: a third is refused at the edge.
  await assert.rejects(store.save('a', task('t3', TaskState.TASK_STATE_SUBMITTED)), (e: { code?: string }) => e.code === 'limit_exceeded');
  // A finished task makes room.
  await store.save('a', task('t1', TaskState.TASK_STATE_COMPLETED));
  await store.save('a', task('t3', TaskState.TASK_STATE_SUBMITTED));
  assert.equal(store.info('t1'), undefined);
  assert.equal(store.size, 2);
  assert.deepEqual(
    store.infos({ agentName: 'a' }).map((t) => t.id),
    ['t3'],
  );
  // Terminal tasks expire after the TTL; live ones do not.
  await store.save('b', task('t2', TaskState.TASK_STATE_FAILED));
  now += 499;
  assert.equal(store.info('t2')?.state, 'failed');
  now += 1;
  assert.equal(store.info('t2'), undefined);
  assert.equal(store.info('t3')?.state, 'submitted');
  now += 10_000;
  assert.equal(store.info('t3')?.state, 'submitted');
  // The store holds what the cache holds: a second cache restored from it sees the same tasks.
  const again = new BoundedTaskStore(
    bus,
    () => ({ max: 2, terminalTtlMs: 500 }),
    db.tasks,
    () => now,
  );
  assert.deepEqual(await again.restore('interrupted'), ['t3'], 'a live task found at start was cut off by a crash');
  assert.equal(again.info('t3')?.state, 'failed');
  assert.equal(again.info('t3')?.message, 'interrupted');
  assert.equal(again.info('t1'), undefined, 'evicted tasks are gone from the store too');
  await db.close();
});
