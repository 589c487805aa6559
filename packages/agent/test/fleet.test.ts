import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '@fw/testing';
import { openStore } from '@fw/store';
import {
  Agent,
  CircuitBreaker,
  Coordinator,
  CoordinationJournal,
  OnPrompt,
  type CoordinatorContext,
  type JournalTreeNode,
} from '../dist/index.js';
import { startApp } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('circuit breaker: a failing remote A2A agent drives CLOSED → OPEN → HALF_OPEN → OPEN → HALF_OPEN → CLOSED', async () => {
  // The remote agent, on its own node: fails while `failing`, takes 150 ms while `slow`.
  const remoteState = { failing: true, slow: false, calls: 0 };
  @Agent({ name: 'flaky', headless: true })
  class Flaky {
    @OnPrompt()
    async prompt(): Promise<string> {
      remoteState.calls++;
      if (remoteState.slow) await sleep(150);
      if (remoteState.failing) throw new Error('flaky is down');
      return 'flaky answered';
    }
  }
  const remote = await startApp((m) => m.mount(Flaky));
  class Lead {
    @OnPrompt()
    async prompt(message: string, ctx: CoordinatorContext): Promise<string> {
      return (await ctx.dispatch('flaky', message)).text;
    }
  }
  Coordinator({ name: 'lead', fleet: [{ name: 'flaky', url: `${remote.base}/fw/agent/flaky/a2a` }, 'helper'] })(Lead);
  @Agent({ name: 'helper', headless: true })
  class Helper {
    @OnPrompt()
    prompt(): string {
      return 'helped';
    }
  }
  // Per-agent settings for flaky (2 failures, 300 ms open); helper keeps the defaults (5, 30 s).
  const app = await startApp((m) => [Lead, Helper].forEach((c) => m.mount(c)), { 'fw.agent.circuit.per-agent': 'flaky=2/300ms' });
  const run = () =>
    app.module.host.run('lead', { message: 'go' }, new AbortController().signal).then(
      (text) => ({ ok: true as const, text }),
      (err: { code?: string; message?: string }) => ({ ok: false as const, code: err.code, message: err.message ?? '' }),
    );
  const health = () => app.module.view.fleetHealth!('lead')!;
  const flaky = () => health().agents.find((a) => a.name === 'flaky')!;
  const transitions = () =>
    app.events.filter((e) => e.type === 'CircuitStateChanged').map((e) => `${(e as { from: string }).from}>${(e as { to: string }).to}`);
  try {
    const fresh = health();
    assert.equal(fresh.coordinator, 'lead');
    assert.deepEqual(
      fresh.agents.map((a) => [a.name, a.location, a.available, a.circuitState, a.recentFailures, a.failureThreshold, a.openDurationMs]),
      [
        ['flaky', 'remote', true, 'CLOSED', 0, 2, 300],
        ['helper', 'local', true, 'CLOSED', 0, 5, 30_000],
      ],
    );

    // Two real failures over A2A: the second opens the breaker.
    assert.equal((await run()).ok, false);
    assert.deepEqual([flaky().circuitState, flaky().recentFailures], ['CLOSED', 1]);
    const second = await run();
    assert.equal(second.ok, false);
    // The remote node does not send its internal error over A2A: the failed task's reference is what comes back.
    assert.match(second.ok ? '' : second.message, /internal error \(ref [0-9a-f]+\)/);
    assert.equal(remoteState.calls, 2);
    assert.equal(flaky().circuitState, 'OPEN');
    assert.equal(flaky().available, false);
    assert.match(flaky().lastError ?? '', /internal error/);
    assert.ok(flaky().retryAt);

    // OPEN: refused at once, the remote agent is not called, the refusal is journaled.
    const refused = await run();
    assert.equal(refused.ok ? '' : refused.code, 'circuit_open');
    assert.equal(remoteState.calls, 2);
    const failures = await app.module.view.journal({ agent: 'flaky', kind: 'failure' });
    assert.match(failures.at(-1)!.error ?? '', /circuit breaker of coordinator 'lead' is OPEN/);

    // After the open duration the breaker half-opens by itself (announced without a dispatch).
    await waitFor('HALF_OPEN', () => transitions().includes('OPEN>HALF_OPEN') || undefined, 3000);
    assert.equal(flaky().circuitState, 'HALF_OPEN');
    assert.equal(flaky().available, true);

    // The probe fails: open again for a full duration.
    assert.equal((await run()).ok, false);
    assert.equal(remoteState.calls, 3);
    assert.equal(flaky().circuitState, 'OPEN');

    // Half-open again, and the agent recovers (slowly): exactly one probe goes through, the
    // dispatch beside it is refused; the probe's success closes the breaker.
    await waitFor('HALF_OPEN again', () => (flaky().circuitState === 'HALF_OPEN' ? true : undefined), 3000);
    remoteState.failing = false;
    remoteState.slow = true;
    const [probe, beside] = await Promise.all([run(), run()]);
    assert.deepEqual(probe, { ok: true, text: 'flaky answered' });
    assert.equal(beside.ok ? '' : beside.code, 'circuit_open');
    assert.equal(remoteState.calls, 4);
    assert.deepEqual([flaky().circuitState, flaky().recentFailures, flaky().available], ['CLOSED', 0, true]);
    assert.deepEqual(transitions(), ['CLOSED>OPEN', 'OPEN>HALF_OPEN', 'HALF_OPEN>OPEN', 'OPEN>HALF_OPEN', 'HALF_OPEN>CLOSED']);
    const opened = app.events.find((e) => e.type === 'CircuitStateChanged') as unknown as Record<string, unknown>;
    assert.equal(opened.coordinator, 'lead');
    assert.equal(opened.agent, 'flaky');
    assert.equal(opened.consecutiveFailures, 2);
    assert.match(String(opened.error), /internal error/);

    // A closed breaker lets everything through again.
    remoteState.slow = false;
    assert.deepEqual(await run(), { ok: true, text: 'flaky answered' });
    assert.equal(app.module.view.fleetHealth!('nobody'), undefined);
    assert.equal(app.module.view.fleetHealth!('helper'), undefined, 'an agent is not a coordinator');
  } finally {
    await app.close();
    await remote.close();
  }
});

test('circuit breaker: the default threshold is 5 consecutive failures; fw.agent.circuit.failure-threshold 0 never opens', async () => {
  let failing = true;
  @Agent({ name: 'shaky', headless: true })
  class Shaky {
    @OnPrompt()
    prompt(): string {
      if (failing) throw new Error('shaky failed');
      return 'fine';
    }
  }
  class Boss {
    @OnPrompt()
    async prompt(message: string, ctx: CoordinatorContext): Promise<string> {
      return (await ctx.dispatch('shaky', message)).text;
    }
  }
  Coordinator({ name: 'boss', fleet: ['shaky'] })(Boss);
  for (const [options, opensAt] of [
    [{}, 5],
    [{ 'fw.agent.circuit.failure-threshold': 0 }, undefined],
  ] as const) {
    failing = true;
    const app = await startApp((m) => [Shaky, Boss].forEach((c) => m.mount(c)), options);
    try {
      const state = () => app.module.view.fleetHealth!('boss')!.agents[0]!;
      for (let i = 1; i <= 6; i++) {
        await app.module.host.run('boss', { message: 'x' }, new AbortController().signal).catch(() => undefined);
        // Edge: 4 failures leave it closed, the 5th opens it.
        assert.equal(state().circuitState, opensAt !== undefined && i >= opensAt ? 'OPEN' : 'CLOSED', `after ${i} failures`);
      }
      if (opensAt === undefined) {
        // A success resets the count.
        failing = false;
        await app.module.host.run('boss', { message: 'x' }, new AbortController().signal);
        assert.equal(state().recentFailures, 0);
      }
    } finally {
      await app.close();
    }
  }
});

test('fw.agent.circuit.per-agent that does not parse fails the start with an error naming the key', async () => {
  await assert.rejects(
    startApp(() => {}, { 'fw.agent.circuit.per-agent': 'research=3/10s, writer=three/10s' }),
    /fw\.agent\.circuit\.per-agent.*'writer=three\/10s' is not agent=threshold\/duration/s,
  );
});

test('causality: a coordination reads as a tree with a fan-out, a retry, an evaluation and a handoff as branches; the flow graph aggregates it', async () => {
  let betaCalls = 0;
  @Agent({ name: 'scout', headless: true })
  class Scout {
    @OnPrompt()
    prompt(m: string): string {
      return `scouted ${m}`;
    }
  }
  @Agent({ name: 'alpha', headless: true })
  class Alpha {
    @OnPrompt()
    async prompt(): Promise<string> {
      await sleep(5);
      return 'alpha done';
    }
  }
  @Agent({ name: 'beta', headless: true })
  class Beta {
    @OnPrompt()
    prompt(): string {
      if (++betaCalls === 1) throw new Error('beta hiccup');
      return 'beta done';
    }
  }
  class Planner {
    @OnPrompt()
    async prompt(message: string, ctx: CoordinatorContext): Promise<string> {
      await ctx.dispatch('scout', message);
      // A fan-out: both started from the scout's answer; beta is retried once.
      await Promise.all([ctx.dispatch('alpha', message), ctx.dispatch('beta', message, { retries: 1 })]);
      ctx.evaluate('alpha', { evaluator: 'critic', score: 0.9, passed: true });
      ctx.handoff('beta', 'alpha', 'polish');
      return ctx.coordinationId;
    }
  }
  Coordinator({ name: 'planner', fleet: ['scout', 'alpha', 'beta'] })(Planner);
  const app = await startApp((m) => [Scout, Alpha, Beta, Planner].forEach((c) => m.mount(c)));
  try {
    const coordinationId = await app.module.host.run('planner', { message: 'map' }, new AbortController().signal);
    const tree = (await app.module.view.journalTree!(coordinationId))!;
    const shape = (n: JournalTreeNode): unknown => [
      `${n.kind}:${n.agent}${n.attempt ? `#${n.attempt}` : ''}`,
      ...(n.children ?? []).map(shape),
    ];
    assert.deepEqual(tree.map(shape), [
      [
        'dispatch:scout',
        [
          'completion:scout',
          ['dispatch:alpha', ['completion:alpha', ['evaluation:alpha']]],
          ['dispatch:beta', ['failure:beta', ['dispatch:beta#2', ['completion:beta', ['handoff:alpha']]]]],
        ],
      ],
    ]);
    // Every link is an id of an event of the same coordination; the root has none.
    const events = await app.module.view.journal({ coordinationId });
    const ids = new Set(events.map((e) => e.eventId));
    assert.equal(ids.size, events.length);
    assert.equal(tree[0]!.parentEventId, null);
    for (const e of events) if (e.parentEventId !== null) assert.ok(ids.has(e.parentEventId), `${e.kind} names a known parent`);
    // The readable log names the retry.
    assert.match((await app.module.view.journalLog(coordinationId))!, /dispatch {4}planner → beta {2}skill=default {2}attempt=2/);

    const flow = await app.module.view.flow!({ lookbackMinutes: 5 });
    assert.equal(flow.lookbackMinutes, 5);
    assert.equal(flow.truncated, false);
    assert.deepEqual(
      flow.nodes.map((n) => `${n.id}:${n.kind}`),
      ['planner:coordinator', 'scout:agent', 'alpha:agent', 'beta:agent'],
    );
    const edge = (to: string) => flow.edges.find((e) => e.from === 'planner' && e.to === to)!;
    assert.deepEqual([edge('beta').dispatches, edge('beta').successes, edge('beta').failures], [2, 1, 1]);
    assert.deepEqual([edge('alpha').dispatches, edge('alpha').successes, edge('alpha').failures], [1, 1, 0]);
    assert.ok(edge('alpha').averageDurationMs >= 5 && edge('alpha').p95DurationMs >= 5);
    const one = (await app.module.view.coordinationFlow!(coordinationId))!;
    assert.equal(one.coordinationId, coordinationId);
    assert.deepEqual(one.edges, flow.edges);
    assert.equal(await app.module.view.coordinationFlow!('unknown'), undefined);
    assert.equal(await app.module.view.journalTree!('unknown'), undefined);

    // The protocol bridges: every agent on A2A and AG-UI, chat for the one that is not headless
    // (none has tools: no MCP endpoint), no A2A client (no remote fleet agent).
    const bridges = app.module.view.protocols!();
    assert.deepEqual(
      bridges.map((b) => `${b.name}:${b.direction}:${b.agents.join('+')}`),
      ['a2a:inbound:scout+alpha+beta+planner', 'agui:inbound:scout+alpha+beta+planner', 'chat:inbound:planner'],
    );
    assert.deepEqual(bridges[2]!.endpoints, ['/fw/agent/planner']);
  } finally {
    await app.close();
  }
});

test('causality: rows journaled before migration 0013 (no event ids) read as roots with an id of their own', async () => {
  const store = await openStore({});
  try {
    // As an older fw wrote them: no event_id, no parent_event_id.
    await store.journal.append([
      { id: 1, at: 1000, kind: 'dispatch', coordination_id: 'old', coordinator: 'k', agent: 'a', other: null, body: '{"skill":"s"}' },
      { id: 2, at: 1001, kind: 'completion', coordination_id: 'old', coordinator: 'k', agent: 'a', other: null, body: '{"durationMs":1}' },
    ]);
    const journal = new CoordinationJournal(store, () => ({ maxEvents: 0, maxAgeMs: 0 }));
    await journal.open();
    const events = await journal.query({ coordinationId: 'old' });
    assert.deepEqual(
      events.map((e) => [e.eventId, e.parentEventId, e.skill ?? e.durationMs]),
      [
        ['seq-1', null, 's'],
        ['seq-2', null, 1],
      ],
    );
    const tree = (await journal.tree('old'))!;
    assert.deepEqual(
      tree.map((n) => [n.kind, n.children]),
      [
        ['dispatch', undefined],
        ['completion', undefined],
      ],
    );
    // A new event may name an old one as its parent.
    journal.record({
      kind: 'evaluation',
      coordinationId: 'old',
      coordinator: 'k',
      agent: 'a',
      evaluator: 'e',
      score: 1,
      passed: true,
      parentEventId: 'seq-2',
    });
    assert.equal((await journal.tree('old'))![1]!.children![0]!.kind, 'evaluation');
  } finally {
    await store.close();
  }
});

test('circuit breaker: the state machine at its edges, with a clock of its own', () => {
  let now = 0;
  const changes: string[] = [];
  const b = new CircuitBreaker(
    () => ({ failureThreshold: 2, openDurationMs: 100 }),
    (t) => changes.push(`${t.from}>${t.to}`),
    () => now,
  );
  try {
    assert.equal(b.tryAcquire(), true);
    b.failure('x');
    b.success();
    b.failure('x');
    assert.equal(b.state, 'CLOSED', 'a success in between resets the count');
    b.failure('y');
    assert.equal(b.state, 'OPEN');
    now = 99;
    assert.equal(b.tryAcquire(), false, 'still open 1 ms before the end');
    now = 100;
    assert.equal(b.tryAcquire(), true, 'the probe');
    assert.equal(b.tryAcquire(), false, 'only one probe');
    b.release();
    assert.equal(b.tryAcquire(), true, 'a cancelled probe gives its turn back');
    b.success();
    assert.equal(b.state, 'CLOSED');
    assert.deepEqual(changes, ['CLOSED>OPEN', 'OPEN>HALF_OPEN', 'HALF_OPEN>CLOSED']);
  } finally {
    b.close();
  }
});
