import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { openStore } from '@fw/store';
import { AGENT_CONFIG, AgentHost } from '../src/index.js';

test('cluster mode: every journal event is also appended to the shared journal of the cluster service', async () => {
  const fw = new Framework({ configFile: false, env: {}, 'fw.modules.autoload': false });
  fw.config.declare(AGENT_CONFIG);
  const store = await openStore({});
  const host = new AgentHost(fw, store);
  await host.recover();
  // Alone: recording works and nothing is sent anywhere.
  host.journal.record({ kind: 'dispatch', coordinationId: 'k', coordinator: 'lead', agent: 'x', skill: 's' });
  const shared: [string, object][] = [];
  fw.services.provide('cluster', { append: async (name: string, entry: object) => (shared.push([name, entry]), true) });
  const e = host.journal.record({ kind: 'completion', coordinationId: 'k', coordinator: 'lead', agent: 'x', skill: 's', durationMs: 3 });
  assert.deepEqual(shared, [['journal', e]]);
  // Redis failing never breaks the journal.
  fw.services.provide('cluster', { append: async () => { throw new Error('down'); } });
  assert.equal(host.journal.record({ kind: 'dispatch', coordinationId: 'k2', coordinator: 'lead', agent: 'y' }).seq, 3);
  await fw.close();
  await store.close();
});
