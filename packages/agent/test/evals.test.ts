/**
 * Evals (issue 27, docs/runs.md "Evals"): taped runs promoted to dataset cases, a dataset run
 * against an agent with each scorer (exact, contains, json-schema, a custom function), its
 * results and progress, and the baseline with its pass rate; one eval run at a time; an eval
 * run a close cuts off ends failed; retention deletes ended eval runs with their results.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Framework } from '@fw/runtime';
import { waitFor } from '@fw/testing';
import { Agent, AgentModule, OnPrompt, type EvalRun, type Evals } from '../dist/index.js';
import { ProbeRuntime } from './helpers.js';

/** Answers through the model (the probe echoes: `echo: <message>`). */
@Agent({ name: 'echoer', headless: true })
class Echoer {}

/** Answers JSON by itself: `{ "length": n }`, or prose for a message that says so. */
@Agent({ name: 'counter', headless: true })
class Counter {
  @OnPrompt()
  prompt(message: string): string {
    return message.includes('prose') ? `it has ${message.length} characters` : JSON.stringify({ length: message.length });
  }
}

async function start(dataDir = '', options: Record<string, unknown> = {}) {
  const fw = new Framework({ configFile: false, env: {}, 'fw.data-dir': dataDir, 'fw.ai.auto': false, ...options });
  const module = new AgentModule({
    agents: [Echoer, Counter],
    providers: [new ProbeRuntime()],
    evalScorers: { short: ({ output }) => (output.length <= 12 ? true : { passed: false, detail: `${output.length} characters` }) },
  });
  await fw.use(module);
  return { fw, module, evals: module.evals! };
}

async function finished(evals: Evals, run: EvalRun) {
  await waitFor(`eval run ${run.id} ended`, async () => (await evals.run(run.id))?.status !== 'running');
  return (await evals.run(run.id))!;
}

test('promote two runs, run the dataset: results per case, a baseline with its pass rate; every scorer', async () => {
  const { fw, module, evals } = await start();
  try {
    const host = module.host;
    const tape = module.tape!;
    assert.equal(await host.run('echoer', { message: 'one' }, new AbortController().signal), 'echo: one');
    assert.equal(await host.run('echoer', { message: 'two' }, new AbortController().signal), 'echo: two');
    // Two runs may start within one millisecond: each found by its input, not its place in the list.
    const runs = await tape.runs({ agent: 'echoer' });
    const inputs = await Promise.all(runs.map(async (r) => (await tape.steps(r.id, 0, 1))[0]?.body));
    const one = runs[inputs.findIndex((b) => (b as { message?: string }).message === 'one')];
    const two = runs[inputs.findIndex((b) => (b as { message?: string }).message === 'two')];
    const a = await evals.promote({ runId: one!.id, dataset: 'smoke' });
    assert.deepEqual([a.input, a.expected, a.sourceRunId], ['one', 'echo: one', one!.id]);
    // The expected output given: what the answer should have been, not what it was.
    const b = await evals.promote({ runId: two!.id, dataset: 'smoke', expected: 'echo: 2' });
    assert.equal(b.expected, 'echo: 2');
    assert.deepEqual(
      (await evals.cases('smoke')).map((c) => c.input),
      ['one', 'two'],
    );
    await assert.rejects(evals.promote({ runId: 'no-such-run', dataset: 'smoke' }), { code: 'not_found' });

    const started = await evals.start({ dataset: 'smoke', agent: 'echoer' });
    assert.deepEqual([started.status, started.scorer, started.cases, started.done], ['running', 'exact', 2, 0]);
    const exact = await finished(evals, started);
    assert.deepEqual([exact.status, exact.done, exact.passed, exact.passRate], ['completed', 2, 1, 0.5]);
    const byCase = new Map(exact.results.map((r) => [r.caseId, r]));
    assert.deepEqual([byCase.get(a.id)?.passed, byCase.get(a.id)?.output], [true, 'echo: one']);
    assert.deepEqual([byCase.get(b.id)?.passed, byCase.get(b.id)?.detail], [false, 'the answer differs from the expected output']);
    // Each case was a real run of the agent, on the tape with its eval run's id.
    assert.equal((await tape.runs({ agent: 'echoer' })).filter((r) => r.ref === `eval:${exact.id}`).length, 2);

    const contains = await finished(evals, await evals.start({ dataset: 'smoke', agent: 'echoer', scorer: 'contains' }));
    assert.equal(contains.passRate, 0.5);
    const short = await finished(evals, await evals.start({ dataset: 'smoke', agent: 'echoer', scorer: 'short' }));
    assert.deepEqual(
      short.results.map((r) => r.passed),
      [true, true],
    );

    // json-schema: the answer must be JSON valid under the schema the eval run names.
    await host.run('counter', { message: 'abc' }, new AbortController().signal);
    await host.run('counter', { message: 'in prose please' }, new AbortController().signal);
    for (const run of await tape.runs({ agent: 'counter' })) await evals.promote({ runId: run.id, dataset: 'json' });
    const schema = { type: 'object', properties: { length: { type: 'integer' } }, required: ['length'] };
    const json = await finished(evals, await evals.start({ dataset: 'json', agent: 'counter', scorer: 'json-schema', schema }));
    assert.deepEqual([json.passed, json.cases], [1, 2]);
    assert.ok(json.results.some((r) => !r.passed && r.detail === 'the answer is not JSON'));
    await assert.rejects(evals.start({ dataset: 'json', agent: 'counter', scorer: 'json-schema' }), { code: 'bad_request' });
    await assert.rejects(evals.start({ dataset: 'json', agent: 'counter', scorer: 'llm-judge' }), /no scorer 'llm-judge'/);

    // A second exact run of smoke: its baseline lists both, newest first.
    const again = await finished(evals, await evals.start({ dataset: 'smoke', agent: 'echoer' }));
    const baselines = await evals.baselines();
    const smoke = baselines.find((x) => x.dataset === 'smoke' && x.scorer === 'exact');
    assert.ok(smoke);
    assert.equal(smoke.passRate, 0.5);
    assert.deepEqual(
      smoke.runs.map((r) => r.id),
      [again.id, exact.id],
    );
    assert.equal(baselines.find((x) => x.dataset === 'json')?.passRate, 0.5);
    assert.equal(baselines.find((x) => x.scorer === 'short')?.passRate, 1);
    assert.equal((await evals.runs({ dataset: 'smoke' })).length, 4);
  } finally {
    await fw.close();
  }
});

test('one eval run at a time (409 eval_running); a close cuts the one in progress off: it ends failed, and the store keeps it with its dataset', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-evals-'));
  const { fw, module, evals } = await start(dir);
  let closed = false;
  try {
    await module.host.run('echoer', { message: 'slow' }, AbortSignal.timeout(100)).catch(() => undefined);
    const [slow] = await module.tape!.runs({ agent: 'echoer' });
    await evals.promote({ runId: slow!.id, dataset: 'slow', expected: 'never' });
    const running = await evals.start({ dataset: 'slow', agent: 'echoer' });
    await assert.rejects(evals.start({ dataset: 'slow', agent: 'echoer' }), { code: 'eval_running' });
    await fw.close();
    closed = true;

    const reopened = await start(dir);
    try {
      const [run] = await reopened.evals.runs();
      assert.deepEqual([run?.id, run?.status, run?.done], [running.id, 'failed', 0]);
      assert.match(run?.error ?? '', /closing/);
      assert.equal((await reopened.evals.cases('slow')).length, 1);
    } finally {
      await reopened.fw.close();
    }
  } finally {
    if (!closed) await fw.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('retention deletes ended eval runs beyond fw.store.retention.evals.max-rows, with their results; the dataset stays', async () => {
  const { fw, module, evals } = await start('', { 'fw.store.retention.evals.max-rows': 1 });
  try {
    for (const message of ['a', 'b']) await module.host.run('counter', { message }, new AbortController().signal);
    for (const run of await module.tape!.runs({ agent: 'counter' })) await evals.promote({ runId: run.id, dataset: 'kept' });
    const older = await finished(evals, await evals.start({ dataset: 'kept', agent: 'counter' }));
    // Distinct milliseconds: "the oldest" is then one eval run, not a tie.
    await new Promise((r) => setTimeout(r, 5));
    const newer = await finished(evals, await evals.start({ dataset: 'kept', agent: 'counter' }));
    assert.deepEqual([older.results.length, newer.results.length], [2, 2]);
    const report = await module.host.store.retention.run();
    assert.equal(report.pruned.fw_eval_runs, 1);
    assert.equal(report.pruned.fw_eval_results, 2);
    assert.deepEqual(
      (await evals.runs()).map((r) => r.id),
      [newer.id],
      'the newest stays',
    );
    assert.equal(await evals.run(older.id), undefined);
    assert.equal((await evals.run(newer.id))?.results.length, 2);
    assert.equal((await evals.cases('kept')).length, 2);
  } finally {
    await fw.close();
  }
});
