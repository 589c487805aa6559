import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { Agent, agents, agentModuleOf, mountAgent, OfflineProvider, type ModelProvider } from '../dist/index.js';

@Agent({ name: 'auto', description: 'mounted by the module' })
class Auto {}

@Agent({ name: 'auto', description: 'a second class with the same name' })
class AutoTwin {}

@Agent({ name: 'later', headless: true })
class Later {}

test('agents({ agents }): installs the module and mounts the classes given; mountAgent queues until then; a decorated class alone is not served', async () => {
  const fw = new Framework({ configFile: false, env: {}, 'fw.data-dir': '', 'fw.ai.auto': false });
  try {
    mountAgent(fw, Later); // before the module exists: kept on the framework
    await fw.use(agents({ agents: [Auto] }));
    await fw.start();
    const view = fw.services.get('agent')!;
    assert.ok(view);
    assert.equal(view.agent('auto')?.description, 'mounted by the module');
    assert.equal(view.agent('later')?.headless, true);
    assert.deepEqual(
      view
        .agents()
        .map((a) => a.name)
        .sort(),
      ['auto', 'later'],
      'decorated but never mounted classes are not served',
    );
    assert.equal(view.activeRuntime()?.name, 'offline');
    mountAgent(fw, Auto); // same class again: a no-op
    assert.throws(
      () => agentModuleOf(fw)!.mount(AutoTwin),
      (e: { code?: string }) => e.code === 'agent_exists',
    );
  } finally {
    await fw.close();
  }
});

test('fw.agent.enabled=false: agents() mounts nothing, no agent service', async () => {
  const fw = new Framework({ configFile: false, env: {}, 'fw.data-dir': '', 'fw.agent.enabled': false });
  try {
    await fw.use(agents());
    await fw.start();
    assert.equal(fw.services.get('agent'), undefined);
    assert.equal(agentModuleOf(fw), undefined);
  } finally {
    await fw.close();
  }
});

test("agents({ runtimes }): the module with the app's own runtimes", async () => {
  const fw = new Framework({ configFile: false, env: {}, 'fw.data-dir': '', 'fw.ai.auto': false });
  const mine: ModelProvider = {
    name: 'mine',
    priority: 5,
    capabilities: ['streaming'],
    models: ['m1'],
    isAvailable: () => true,
    async *stream() {
      yield { type: 'text', delta: 'hi' };
    },
  };
  try {
    const module = agents({ providers: [mine] });
    await fw.use(module);
    await fw.start();
    assert.equal(agentModuleOf(fw), module);
    const view = fw.services.get('agent')!;
    assert.deepEqual(
      view
        .runtimes()
        .map((r) => r.name)
        .sort(),
      ['mine', 'offline'],
    );
    assert.equal(view.activeRuntime()?.name, 'mine');
  } finally {
    await fw.close();
  }
});

test('a runtime with a name already registered replaces that one: the admin plane lists each name once', async () => {
  const fw = new Framework({ configFile: false, env: {}, 'fw.data-dir': '' });
  try {
    const module = agents();
    await fw.use(module);
    const paced = new OfflineProvider({ tokenDelayMs: 5, priority: 1 });
    const remove = module.addProvider(paced);
    const view = fw.services.get('agent')!;
    assert.deepEqual(
      view.runtimes().map((r) => r.name),
      ['offline'],
    );
    assert.equal(view.activeRuntime()?.priority, 1, 'the replacement is the one in use');
    remove();
    assert.deepEqual(view.runtimes(), []);
  } finally {
    await fw.close();
  }
});
