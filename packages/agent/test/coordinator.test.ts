import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '@fw/store';
import { Agent, Coordinator, CoordinationJournal, OnPrompt, type CoordinatorContext } from '../dist/index.js';
import { startApp } from './helpers.js';

@Agent({ name: 'writer', headless: true })
class Writer {
  @OnPrompt()
  prompt(message: string): string {
    return `draft about ${message}`;
  }
}

@Agent({ name: 'broken', headless: true })
class Broken {
  @OnPrompt()
  prompt(): string {
    throw new Error('source unavailable');
  }
}

@Agent({ name: 'researcher', headless: true, description: 'Finds facts' })
class Researcher {
  @OnPrompt()
  prompt(message: string): string {
    return `facts on ${message}`;
  }
}

test('a scripted coordination (local + remote A2A fleet): journal, events, queries, log and graph', async () => {
  const remote = await startApp((m) => m.mount(Researcher));
  class Conductor {
    @OnPrompt()
    async prompt(message: string, ctx: CoordinatorContext): Promise<string> {
      const draft = await ctx.dispatch('writer', message, { skill: 'draft' });
      await ctx.dispatch('broken', message, { skill: 'fact-check' }).catch(() => undefined);
      ctx.handoff('writer', 'critic', 'needs review');
      ctx.evaluate('writer', { evaluator: 'critic', score: 0.8, passed: true });
      const facts = await ctx.dispatch('remote-researcher', message, { skill: 'research' });
      return `${ctx.coordinationId}|${draft.text}|${facts.text}`;
    }
  }
  Coordinator({
    name: 'conductor',
    fleet: ['writer', 'broken', { name: 'remote-researcher', url: `${remote.base}/fw/agent/researcher/a2a` }],
  })(Conductor);
  const app = await startApp((m) => [Writer, Broken, Conductor].forEach((c) => m.mount(c)));
  try {
    const answer = await app.module.host.run('conductor', { message: 'tides' }, new AbortController().signal);
    const [coordinationId, draft, facts] = answer.split('|');
    assert.equal(draft, 'draft about tides');
    assert.equal(facts, 'facts on tides');
    const view = app.module.view;

    const journal = await view.journal({ coordinationId });
    assert.deepEqual(
      journal.map((e) => `${e.kind}:${e.agent}`),
      [
        'dispatch:writer',
        'completion:writer',
        'dispatch:broken',
        'failure:broken',
        'handoff:critic',
        'evaluation:writer',
        'dispatch:remote-researcher',
        'completion:remote-researcher',
      ],
    );
    assert.ok(journal.every((e, i) => e.coordinator === 'conductor' && e.seq === journal[0]!.seq + i));
    assert.equal(journal[3]!.error, 'source unavailable');
    assert.equal(typeof journal[1]!.durationMs, 'number');
    assert.deepEqual(
      { from: journal[4]!.from, to: journal[4]!.to, reason: journal[4]!.reason },
      { from: 'writer', to: 'critic', reason: 'needs review' },
    );
    assert.deepEqual({ e: journal[5]!.evaluator, s: journal[5]!.score, p: journal[5]!.passed }, { e: 'critic', s: 0.8, p: true });

    assert.deepEqual(
      (await view.journal({ agent: 'writer' })).map((e) => e.kind),
      ['dispatch', 'completion', 'handoff', 'evaluation'],
    );
    assert.deepEqual(
      (await view.journal({ agent: 'critic' })).map((e) => e.kind),
      ['handoff', 'evaluation'],
    );
    assert.deepEqual(
      (await view.journal({ agent: 'writer', limit: 2 })).map((e) => e.kind),
      ['handoff', 'evaluation'],
    );
    assert.equal((await view.journal({ from: Date.now() + 60_000 })).length, 0);
    assert.equal((await view.journal({ to: new Date(Date.now() - 60_000).toISOString() })).length, 0);
    assert.equal((await view.journal({ coordinationId: 'nope' })).length, 0);

    const log = (await view.journalLog(coordinationId!))!;
    const lines = log.split('\n');
    assert.equal(lines.length, 9);
    assert.match(lines[0]!, /coordination .* \(coordinator conductor, 8 events\)/);
    assert.match(lines[1]!, /dispatch\s+conductor → writer\s+skill=draft/);
    assert.match(lines[4]!, /failure\s+broken\s+skill=fact-check\s+\d+ ms\s+error: source unavailable/);
    assert.match(lines[5]!, /handoff\s+writer → critic\s+reason: needs review/);
    assert.match(lines[6]!, /evaluation\s+critic rated writer: score 0.8 \(passed\)/);
    assert.equal(await view.journalLog('nope'), undefined);

    const graph = (await view.journalGraph(coordinationId!))!;
    assert.deepEqual(
      graph.nodes.map((n) => `${n.id}:${n.kind}`),
      ['conductor:coordinator', 'writer:agent', 'broken:agent', 'critic:agent', 'remote-researcher:agent'],
    );
    const edge = (from: string, to: string) => graph.edges.find((e) => e.from === from && e.to === to)!;
    assert.deepEqual(
      { ...edge('conductor', 'writer'), totalDurationMs: 0 },
      { from: 'conductor', to: 'writer', kind: 'dispatch', count: 1, failures: 0, totalDurationMs: 0, outcome: 'success' },
    );
    assert.equal(edge('conductor', 'broken').outcome, 'failure');
    assert.equal(edge('conductor', 'broken').failures, 1);
    assert.equal(edge('writer', 'critic').kind, 'handoff');
    assert.equal(edge('critic', 'writer').kind, 'evaluation');
    assert.equal(edge('conductor', 'remote-researcher').outcome, 'success');
    assert.equal(graph.edges.length, 5);

    const bus = app.events.filter((e) => e.type === 'AgentDispatched' || e.type === 'AgentCompleted');
    assert.deepEqual(
      bus.map((e) => `${e.type}:${'agent' in e ? e.agent : ''}:${'success' in e ? e.success : ''}`),
      [
        'AgentDispatched:writer:',
        'AgentCompleted:writer:true',
        'AgentDispatched:broken:',
        'AgentCompleted:broken:false',
        'AgentDispatched:remote-researcher:',
        'AgentCompleted:remote-researcher:true',
      ],
    );
    assert.ok(bus.every((e) => 'coordinationId' in e && e.coordinationId === coordinationId));
    assert.equal((bus[0] as { skill: string }).skill, 'draft');
    // The remote call was a real A2A task on the other node.
    assert.equal(remote.module.view.tasks({ agentName: 'researcher' })[0]?.state, 'completed');

    const coordinators = view.coordinators();
    assert.deepEqual(coordinators[0]!.fleet, [
      { name: 'writer', location: 'local' },
      { name: 'broken', location: 'local' },
      { name: 'remote-researcher', location: 'remote', url: `${remote.base}/fw/agent/researcher/a2a` },
    ]);
    assert.deepEqual(view.agent('conductor')?.fleet, ['writer', 'broken', 'remote-researcher']);
    await assert.rejects(app.module.host.run('conductor', { message: 'x' }, AbortSignal.abort()));
  } finally {
    await app.close();
    await remote.close();
  }
});

test('journal retention: by count and by age, at the configured edges; nothing is capped in between', async () => {
  const store = await openStore({});
  let now = 1_000_000;
  const retention = { maxEvents: 3, maxAgeMs: 0 };
  const j = new CoordinationJournal(
    store,
    () => retention,
    () => now,
  );
  await j.open();
  for (let i = 0; i < 5; i++) j.record({ kind: 'dispatch', coordinationId: 'c', coordinator: 'k', agent: `a${i}` });
  assert.equal(await j.size(), 5, 'no cap between retention runs');
  assert.equal(await j.prune(), 2);
  assert.deepEqual(
    (await j.query()).map((e) => e.agent),
    ['a2', 'a3', 'a4'],
  );
  // By age: an event older than max-age goes, one exactly at the edge stays.
  retention.maxEvents = 0;
  retention.maxAgeMs = 1000;
  now += 1000;
  j.record({ kind: 'completion', coordinationId: 'c', coordinator: 'k', agent: 'a5' });
  now += 1;
  assert.equal(await j.prune(), 3);
  assert.deepEqual(
    (await j.query()).map((e) => e.agent),
    ['a5'],
  );
  // Numbering continues across a reopen of the same store.
  const again = new CoordinationJournal(
    store,
    () => retention,
    () => now,
  );
  await again.open();
  assert.equal(again.record({ kind: 'dispatch', coordinationId: 'c', coordinator: 'k', agent: 'a6' }).seq, 7);
  await store.close();

  class Tiny {
    @OnPrompt()
    async prompt(_m: string, ctx: CoordinatorContext): Promise<string> {
      await ctx.dispatch('writer', 'a');
      await ctx.dispatch('writer', 'b');
      return 'ok';
    }
  }
  Coordinator({ name: 'tiny', fleet: ['writer'] })(Tiny);
  const app = await startApp((m) => [Writer, Tiny].forEach((c) => m.mount(c)), { 'fw.agent.journal.max-events': 3 });
  try {
    await app.module.host.run('tiny', { message: 'go' }, new AbortController().signal);
    await app.module.host.journal.prune();
    assert.deepEqual(
      (await app.module.view.journal()).map((e) => e.kind),
      ['completion', 'dispatch', 'completion'],
    );
    await assert.rejects(app.module.host.run('tiny', { message: 'go' }, AbortSignal.abort()));
  } finally {
    await app.close();
  }
});

test('dispatching outside the fleet is refused with a typed error and journaled as a failure', async () => {
  class Rogue {
    @OnPrompt()
    async prompt(_m: string, ctx: CoordinatorContext): Promise<string> {
      return (await ctx.dispatch('researcher', 'x', { skill: 'search' })).text;
    }
  }
  Coordinator({ name: 'rogue', fleet: ['writer'] })(Rogue);
  const app = await startApp((m) => [Writer, Researcher, Rogue].forEach((c) => m.mount(c)));
  try {
    await assert.rejects(
      app.module.host.run('rogue', { message: 'go' }, new AbortController().signal),
      (e: { code?: string }) => e.code === 'not_in_fleet',
    );
    const journal = await app.module.view.journal();
    assert.deepEqual(
      journal.map((e) => [e.kind, e.coordinator, e.agent, e.skill]),
      [['failure', 'rogue', 'researcher', 'search']],
    );
    assert.match(journal[0]!.error ?? '', /not in the fleet of coordinator 'rogue'/);
  } finally {
    await app.close();
  }
});
