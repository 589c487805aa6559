/**
 * The run tape (issue 27, docs/runs.md): a run over a local OpenAI-compatible server is recorded
 * step by step with its usage; a replay feeds the recorded model outputs back, so the same tool
 * calls happen while the server gets no request; a changed tool shows as a divergence; a
 * redactor sees every step before it is stored; retention deletes ended tapes with their steps.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@fw/testing';
import {
  Agent,
  AgentTool,
  Coordinator,
  OnPrompt,
  type AgentContext,
  type CoordinatorContext,
  PriceTable,
  type TapeStep,
} from '../dist/index.js';
import { ProbeRuntime, startApp } from './helpers.js';

/** What the tool answers; a test changes it to stand for a changed tool. */
let unit = 'm';

@Agent({ name: 'surveyor', headless: true })
class Surveyor {
  @AgentTool({ description: 'Measures a thing', input: { type: 'object', properties: { thing: { type: 'string' } }, required: ['thing'] } })
  measure(input: { thing: string }): string {
    return `${input.thing}: ${input.thing.length} ${unit}`;
  }
}

@Agent({ name: 'helper', headless: true })
class Helper {
  @OnPrompt()
  prompt(message: string): string {
    return `helped with ${message}`;
  }
}

@Coordinator({ name: 'lead', fleet: ['helper'] })
class Lead {
  @OnPrompt()
  async prompt(message: string, ctx: CoordinatorContext): Promise<string> {
    ctx.handoff('lead', 'helper', 'it knows');
    const a = await ctx.dispatch('helper', `${message} 1`);
    const b = await ctx.dispatch('helper', `${message} 2`);
    return `${a.text}; ${b.text}`;
  }
}

/** Asks the model while `asks` is true, answers by itself otherwise (a changed prompt handler). */
let asks = true;
@Agent({ name: 'asker', headless: true })
class Asker {
  @OnPrompt()
  prompt(message: string, ctx: AgentContext) {
    return asks ? ctx.stream() : `no model for ${message}`;
  }
}

const chunk = (choices: unknown[], usage?: Record<string, number>) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'local-model', choices, ...(usage ? { usage } : {}) })}\n\n`;
const delta = (d: Record<string, unknown>, finish_reason: string | null = null) => [{ index: 0, delta: d, finish_reason }];

/**
 * A local server speaking OpenAI chat-completions streaming, counting its requests: the first
 * turn calls `measure` twice (one call per tool-call index), the turn after the tool results answers.
 */
async function openAiServer() {
  let requests = 0;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      requests++;
      const body = JSON.parse(raw) as { messages: { role: string }[] };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (body.messages.at(-1)?.role === 'tool') {
        res.write(chunk(delta({ role: 'assistant', content: 'The rope is ' })));
        res.write(chunk(delta({ content: 'longer.' })));
        res.write(chunk(delta({}, 'stop')));
        res.write(chunk([], { prompt_tokens: 40, completion_tokens: 5, total_tokens: 45 }));
      } else {
        res.write(
          chunk(
            delta({
              role: 'assistant',
              content: null,
              tool_calls: [
                { index: 0, id: 'call_1', type: 'function', function: { name: 'measure', arguments: '{"thing":"rope"}' } },
                { index: 1, id: 'call_2', type: 'function', function: { name: 'measure', arguments: '{"thing":"pole"}' } },
              ],
            }),
          ),
        );
        res.write(chunk(delta({}, 'tool_calls')));
        res.write(chunk([], { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42 }));
      }
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: () => requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const kinds = (steps: TapeStep[]) => steps.map((s) => s.kind);

test('a run with two tool calls over an OpenAI-compatible server is on the tape with every step and its usage; a replay makes the same calls with zero model requests; a changed tool diverges', async () => {
  unit = 'm';
  const server = await openAiServer();
  const app = await startApp((m) => m.mount(Surveyor), { 'fw.ai.auto': true, 'fw.ai.base-url': server.url, 'fw.ai.model': 'local-model' });
  try {
    const tape = app.module.tape!;
    const text = await app.module.host.run(
      'surveyor',
      { message: 'which is longer?', protocol: 'chat', ref: 's1', owner: 'principal:alice' },
      new AbortController().signal,
    );
    assert.equal(text, 'The rope is longer.');
    assert.equal(server.requests(), 2);

    const [run] = await tape.runs({ agent: 'surveyor' });
    assert.ok(run);
    assert.equal(run.status, 'completed');
    assert.equal(run.protocol, 'chat');
    assert.equal(run.principal, 'alice');
    assert.equal(run.owner, 'principal:alice');
    assert.equal(run.inputTokens, 70);
    assert.equal(run.outputTokens, 17);
    assert.ok(run.endedAt && run.durationMs !== null);
    const steps = await tape.steps(run.id);
    assert.deepEqual(kinds(steps), [
      'input',
      'model-request',
      'model-response',
      'tool-call',
      'tool-call',
      'model-request',
      'model-response',
      'end',
    ]);
    assert.deepEqual(
      steps.map((s) => s.seq),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    assert.equal(run.steps, 8);
    const [input, request0, response0, call1, call2, request1, response1, end] = steps;
    assert.equal(input?.kind === 'input' && input.body.message, 'which is longer?');
    assert.ok(request0?.kind === 'model-request');
    assert.deepEqual(
      request0.body.messages.map((m) => m.role),
      ['user'],
    );
    assert.deepEqual(request0.body.tools, ['measure']);
    assert.equal(request0.body.provider, 'openai-compatible');
    assert.ok(response0?.kind === 'model-response');
    assert.deepEqual(
      response0.body.toolCalls.map((c) => [c.toolName, c.input]),
      [
        ['measure', { thing: 'rope' }],
        ['measure', { thing: 'pole' }],
      ],
    );
    assert.deepEqual(response0.body.usage, { inputTokens: 30, outputTokens: 12 });
    assert.ok(call1?.kind === 'tool-call' && call2?.kind === 'tool-call');
    assert.deepEqual(
      [call1.body.toolCallId, call1.body.input, call1.body.ok, call1.body.output],
      ['call_1', { thing: 'rope' }, true, 'rope: 4 m'],
    );
    assert.equal(call2.body.output, 'pole: 4 m');
    assert.ok(typeof call1.durationMs === 'number');
    // The second request records only what the conversation gained: the assistant's calls and both results.
    assert.ok(request1?.kind === 'model-request');
    assert.deepEqual(
      request1.body.messages.map((m) => m.role),
      ['assistant', 'tool', 'tool'],
    );
    assert.equal(request1.body.messageCount, 4);
    assert.ok(response1?.kind === 'model-response');
    assert.equal(response1.body.text, 'The rope is longer.', 'the streamed text, coalesced');
    assert.deepEqual(response1.body.usage, { inputTokens: 40, outputTokens: 5 });
    assert.deepEqual(end?.body, { state: 'completed', text: 'The rope is longer.' });

    // Replay: the same calls, answered by the tape; the model server gets nothing.
    const before = server.requests();
    const replay = await tape.replay(run.id);
    assert.equal(server.requests() - before, 0, 'the model server received no request during the replay');
    assert.equal(replay.divergence, null);
    assert.equal(replay.state, 'completed');
    assert.equal(replay.text, 'The rope is longer.');
    assert.equal(replay.modelCalls, 2);
    assert.deepEqual(
      replay.toolCalls.map((c) => [c.toolName, c.input, c.output]),
      [
        ['measure', { thing: 'rope' }, 'rope: 4 m'],
        ['measure', { thing: 'pole' }, 'pole: 4 m'],
      ],
    );
    // The replay is a run of its own on the tape, told apart by its ref.
    const replayed = await tape.run(replay.replayRunId!);
    assert.match(replayed?.ref ?? '', new RegExp(`^replay:${run.id}:`));

    // The tool changed: the replay says where the run went another way.
    unit = 'cm';
    const changed = await tape.replay(run.id);
    assert.equal(server.requests() - before, 0);
    assert.ok(changed.divergence);
    assert.equal(changed.divergence.kind, 'tool-call');
    assert.equal(changed.divergence.index, 0);
    assert.match(changed.divergence.message, /measure.*another result/);
    assert.deepEqual(
      [(changed.divergence.recorded as { output: string }).output, (changed.divergence.replayed as { output: string }).output],
      ['rope: 4 m', 'rope: 4 cm'],
    );
  } finally {
    unit = 'm';
    await app.close();
    await server.close();
  }
});

test('fw.agent.prices gives each model output its cost when the tape is read; an unpriced model has none; a malformed table fails the start', async () => {
  const server = await openAiServer();
  const app = await startApp((m) => m.mount(Surveyor), {
    'fw.ai.auto': true,
    'fw.ai.base-url': server.url,
    'fw.ai.model': 'local-model',
    // The exact name before the pattern that also matches it.
    'fw.agent.prices': JSON.stringify({
      'local-*': { input: 100, output: 100 },
      'local-model': { input: 2, output: 10 },
      other: { input: 1, output: 1 },
    }),
  });
  try {
    const tape = app.module.tape!;
    // The table the module read at start is the one everyone prices with (admin's spend reads it here).
    assert.equal(app.module.prices.size, 3);
    assert.equal(app.module.prices.priceOf('local-model')?.output, 10);
    await app.module.host.run('surveyor', { message: 'which is longer?' }, new AbortController().signal);
    const [run] = await tape.runs({ agent: 'surveyor' });
    const costs = (await tape.steps(run!.id)).filter((s) => s.kind === 'model-response').map((s) => s.cost);
    // 30 in, 12 out then 40 in, 5 out, at 2 and 10 per million.
    assert.deepEqual(costs, [(30 * 2 + 12 * 10) / 1e6, (40 * 2 + 5 * 10) / 1e6]);
    const tree = await tape.tree(run!.id);
    assert.deepEqual(
      tree?.steps.filter((s) => s.kind === 'model-response').map((s) => s.cost),
      costs,
    );
    // Worked out at read time: a new table (here set in place, as the next start would) applies to the runs already taped.
    app.module.prices = new PriceTable({ other: { input: 1, output: 1 } });
    assert.deepEqual(
      (await tape.steps(run!.id)).filter((s) => s.kind === 'model-response').map((s) => s.cost),
      [undefined, undefined],
      'a model the table does not price has no cost',
    );
    app.module.prices = new PriceTable({ other: { input: 1, output: 1 }, '*': { input: 1, output: 1 } });
    assert.deepEqual(
      (await tape.steps(run!.id)).filter((s) => s.kind === 'model-response').map((s) => s.cost),
      [42 / 1e6, 45 / 1e6],
      '`*` prices every other model',
    );
    app.module.prices = new PriceTable();
    assert.ok(
      (await tape.steps(run!.id)).every((s) => s.cost === undefined),
      'an empty table shows no cost',
    );
  } finally {
    await app.close();
    await server.close();
  }
  await assert.rejects(
    startApp(() => {}, { 'fw.agent.prices': '{"local-model": {"input": "cheap", "output": 1}}' }),
    (err: Error) => err.message.includes('fw.agent.prices') && err.message.includes('/local-model/input: must be a number ≥ 0'),
  );
});

test('a redactor sees every step before it is stored', async () => {
  const server = await openAiServer();
  const app = await startApp((m) => m.mount(Surveyor), { 'fw.ai.auto': true, 'fw.ai.base-url': server.url, 'fw.ai.model': 'local-model' });
  try {
    const tape = app.module.tape!;
    const seen = new Set<string>();
    tape.redact((kind, body) => {
      seen.add(kind);
      return JSON.parse(JSON.stringify(body).replaceAll('rope', '[redacted]'));
    });
    await app.module.host.run('surveyor', { message: 'measure the rope' }, new AbortController().signal);
    const [run] = await tape.runs({ agent: 'surveyor', limit: 1 });
    const stored = JSON.stringify(await tape.steps(run!.id));
    assert.ok(!stored.includes('rope'), 'nothing unredacted reached the store');
    assert.ok(stored.includes('[redacted]'));
    assert.deepEqual([...seen].sort(), ['end', 'input', 'model-request', 'model-response', 'tool-call']);
    const tree = await tape.tree(run!.id);
    assert.equal(tree?.run.id, run!.id);
    assert.equal(tree?.steps.length, run!.steps);

    // A redactor that throws drops that step (logged), never the run.
    const off = tape.redact((kind, body) => {
      if (kind === 'tool-call') throw new Error('the redactor broke');
      return body;
    });
    const text = await app.module.host.run('surveyor', { message: 'again' }, new AbortController().signal);
    off();
    assert.equal(text, 'The rope is longer.', 'the client got the answer unredacted');
    const again = (await tape.runs({ agent: 'surveyor' })).find((r) => r.id !== run!.id);
    assert.equal(again?.status, 'completed');
    assert.deepEqual(kinds(await tape.steps(again!.id)), [
      'input',
      'model-request',
      'model-response',
      'model-request',
      'model-response',
      'end',
    ]);
  } finally {
    await app.close();
    await server.close();
  }
});

test('retention deletes ended tapes beyond fw.store.retention.tapes.max-rows, with their steps', async () => {
  const server = await openAiServer();
  const app = await startApp((m) => m.mount(Surveyor), {
    'fw.ai.auto': true,
    'fw.ai.base-url': server.url,
    'fw.ai.model': 'local-model',
    'fw.store.retention.tapes.max-rows': 1,
  });
  try {
    const host = app.module.host;
    for (let i = 0; i < 3; i++) {
      await host.run('surveyor', { message: `run ${i}` }, new AbortController().signal);
      // Distinct milliseconds: "the oldest" is then one run, not a tie.
      await new Promise((r) => setTimeout(r, 5));
    }
    const tape = app.module.tape!;
    const all = await tape.runs({ agent: 'surveyor' });
    assert.equal(all.length, 3);
    const report = await host.store.retention.run();
    assert.equal(report.pruned.fw_tape_runs, 2);
    assert.equal(report.pruned.fw_tape_steps, 16);
    const left = await tape.runs({ agent: 'surveyor' });
    assert.deepEqual(
      left.map((r) => r.id),
      [all[0]!.id],
      'the newest stays',
    );
    assert.equal((await tape.steps(all[2]!.id)).length, 0);
    assert.equal((await tape.steps(all[0]!.id)).length, 8);
  } finally {
    await app.close();
    await server.close();
  }
});

test('a coordination is a run tree on the tape: the dispatches are child runs of the coordinator run, the handoff a step of it', async () => {
  const app = await startApp((m) => {
    m.mount(Helper);
    m.mount(Lead);
  });
  try {
    const tape = app.module.tape!;
    await app.module.host.run('lead', { message: 'task', protocol: 'a2a', owner: 'principal:bob' }, new AbortController().signal);
    const [lead] = await tape.runs({ agent: 'lead' });
    const tree = await tape.tree(lead!.id);
    assert.ok(tree);
    assert.deepEqual(kinds(tree.steps), ['input', 'handoff', 'end']);
    assert.deepEqual(tree.steps[1]?.body, { from: 'lead', to: 'helper', reason: 'it knows' });
    assert.deepEqual(
      // Two dispatches may start within one millisecond: compared in a fixed order.
      tree.children
        .map((c) => [
          c.run.agent,
          c.run.protocol,
          c.run.parentRunId,
          c.run.principal,
          (c.steps.at(-1)?.body as { text?: string } | undefined)?.text,
        ])
        .sort((a, b) => String(a[4]).localeCompare(String(b[4]))),
      [
        ['helper', 'dispatch', lead!.id, 'bob', 'helped with task 1'],
        ['helper', 'dispatch', lead!.id, 'bob', 'helped with task 2'],
      ],
    );
    assert.equal(tree.children[0]?.run.coordinationId, lead!.coordinationId);
  } finally {
    await app.close();
  }
});

test('every run on the tape is announced when it starts and when it ends (TapeRunChanged), with metadata and no content', async () => {
  const app = await startApp((m) => {
    m.mount(Helper);
    m.mount(Lead);
  });
  try {
    const seen: { runId: string; agent: string; status: string; parentRunId: string | null; steps: number; durationMs: number | null }[] =
      [];
    app.fw.events.on('TapeRunChanged', (e) => seen.push(e));
    await app.module.host.run('lead', { message: 'secret task', protocol: 'a2a', owner: 'principal:bob' }, new AbortController().signal);
    const runs = await app.module.tape!.runs();
    const lead = runs.find((r) => r.agent === 'lead')!;
    // Each run twice, open first: the coordinator's and its two dispatches'.
    assert.equal(seen.length, 6);
    for (const run of runs) {
      const mine = seen.filter((e) => e.runId === run.id);
      assert.deepEqual(
        mine.map((e) => e.status),
        ['open', 'completed'],
        run.agent,
      );
      assert.equal(mine[1]?.steps, run.steps);
      assert.equal(mine[1]?.durationMs, run.durationMs);
      assert.equal(mine[0]?.parentRunId, run.agent === 'lead' ? null : lead.id);
    }
    assert.ok(!JSON.stringify(seen).includes('secret'), 'no input or output text');
    assert.ok(!JSON.stringify(seen).includes('bob'), 'no principal');
  } finally {
    await app.close();
  }
});

test('a failed and a cancelled run end the tape in one terminal state, with the error; a replay of a changed handler reports the model turn it skipped', async () => {
  asks = true;
  const probe = new ProbeRuntime();
  const app = await startApp((m) => m.mount(Asker), {}, [probe]);
  try {
    const tape = app.module.tape!;
    const host = app.module.host;
    await assert.rejects(host.run('asker', { message: 'explode' }, new AbortController().signal), /the model exploded/);
    const ac = new AbortController();
    const slow = host.run('asker', { message: 'slow' }, ac.signal);
    await waitFor('the slow stream started', () => probe.requests.length === 2);
    ac.abort(new Error('stop'));
    await assert.rejects(slow);
    await host.run('asker', { message: 'hello' }, new AbortController().signal);

    // Started within the same millisecond maybe: told apart by their status, not their order.
    assert.equal((await tape.runs({ agent: 'asker' })).length, 3);
    const [failed] = await tape.runs({ agent: 'asker', status: 'failed' });
    const [cancelled] = await tape.runs({ agent: 'asker', status: 'cancelled' });
    const [ok] = await tape.runs({ agent: 'asker', status: 'completed' });
    assert.deepEqual([failed?.status, failed?.error], ['failed', 'the model exploded']);
    const failedSteps = await tape.steps(failed!.id);
    assert.deepEqual(kinds(failedSteps), ['input', 'model-request', 'model-response', 'end']);
    assert.equal((failedSteps[2]?.body as { error?: string } | undefined)?.error, 'the model exploded');
    assert.equal(cancelled?.status, 'cancelled');
    assert.equal(((await tape.steps(cancelled!.id)).at(-1)?.body as { state?: string } | undefined)?.state, 'cancelled');
    assert.equal(ok?.status, 'completed');

    assert.equal((await tape.replay(ok!.id)).divergence, null);
    asks = false;
    const changed = await tape.replay(ok!.id);
    assert.equal(changed.divergence?.kind, 'model-call');
    assert.match(changed.divergence?.message ?? '', /ended after 0 model turns; the tape has 1/);
  } finally {
    asks = true;
    await app.close();
  }
});

test('one batch of the recorder holds a run still open and a run already ended: both are on the tape, the open one ends later', async () => {
  asks = true;
  const probe = new ProbeRuntime();
  const app = await startApp((m) => m.mount(Asker), {}, [probe]);
  try {
    const tape = app.module.tape!;
    const host = app.module.host;
    const ac = new AbortController();
    // Started together, read at once: the read writes the slow run's open row and the quick
    // run's ended row in one INSERT.
    const slow = host.run('asker', { message: 'slow' }, ac.signal);
    assert.equal(await host.run('asker', { message: 'quick' }, new AbortController().signal), 'echo: quick');
    const both = await tape.runs({ agent: 'asker' });
    assert.deepEqual(both.map((r) => r.status).sort(), ['completed', 'open']);
    const done = both.find((r) => r.status === 'completed')!;
    assert.deepEqual(kinds(await tape.steps(done.id)), ['input', 'model-request', 'model-response', 'end']);
    ac.abort(new Error('stop'));
    await assert.rejects(slow);
    const [open] = both.filter((r) => r.status === 'open');
    assert.equal((await tape.run(open!.id))?.status, 'cancelled');
    assert.equal((await tape.steps(open!.id)).at(-1)?.kind, 'end');
  } finally {
    await app.close();
  }
});
