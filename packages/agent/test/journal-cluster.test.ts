import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import type { ClusterMethod, ClusterService } from '@fw/runtime/adapter';
import { openStore } from '@fw/store';
import { AGENT_CONFIG, AgentHost, AgentModule } from '../dist/index.js';

test('cluster mode: every journal event is also appended to the shared journal of the cluster service', async () => {
  const fw = new Framework({ configFile: false, env: {}, 'fw.data-dir': '' });
  fw.config.declare(AGENT_CONFIG);
  const store = await openStore({});
  const host = new AgentHost(fw, store);
  await host.recover();
  // Alone: recording works and nothing is sent anywhere.
  host.journal.record({ kind: 'dispatch', coordinationId: 'k', coordinator: 'lead', agent: 'x', skill: 's' });
  const shared: [string, object][] = [];
  fw.services.provide('cluster', {
    append: async (name: string, entry: object) => (shared.push([name, entry]), true),
  } as unknown as ClusterService);
  const e = host.journal.record({ kind: 'completion', coordinationId: 'k', coordinator: 'lead', agent: 'x', skill: 's', durationMs: 3 });
  assert.deepEqual(shared, [['journal', e]]);
  // Redis failing never breaks the journal.
  fw.services.provide('cluster', {
    append: async () => {
      throw new Error('down');
    },
  } as unknown as ClusterService);
  assert.equal(host.journal.record({ kind: 'dispatch', coordinationId: 'k2', coordinator: 'lead', agent: 'y' }).seq, 3);
  await fw.close();
  await store.close();
});

test('cluster mode: the agent module registers its routable methods on the cluster service, whichever is installed first', async () => {
  for (const clusterFirst of [true, false]) {
    const handlers = new Map<string, ClusterMethod>();
    const cluster = {
      handle: (method: string, fn: ClusterMethod) => (handlers.set(method, fn), () => handlers.delete(method)),
    } as unknown as ClusterService;
    const fw = new Framework({ configFile: false, env: {}, 'fw.ai.auto': false, 'fw.data-dir': '' });
    if (clusterFirst) fw.services.provide('cluster', cluster);
    await fw.use(new AgentModule());
    if (!clusterFirst) fw.services.provide('cluster', cluster);
    assert.deepEqual([...handlers.keys()].sort(), ['agent.cancel-task', 'agent.journal']);
    // A task this node does not hold is a 404, which the cluster reads as "not here".
    assert.throws(
      () => handlers.get('agent.cancel-task')!({ taskId: 'nope' }),
      (err: Error & { status?: number }) => err.status === 404,
    );
    assert.ok(Array.isArray(await handlers.get('agent.journal')!({})));
    await fw.close();
    assert.equal(handlers.size, 0, 'closing the module unregisters them');
  }
});
