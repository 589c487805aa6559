/**
 * Evals in the admin plane (docs/runs.md, "Evals"): promote a taped run to a dataset case, run
 * the dataset against the agent (202, progress, one at a time), the eval run's results and the
 * baseline with its pass rate, over REST as an operator; a viewer is refused (content); the writes
 * are the audited `evaluate` action. The `fw-evals` command runs a dataset from CI against a running fw.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { waitFor } from '@fw/testing';
import { Agent, AgentModule, type AiRequest, type AiStreamPart, type ModelProvider } from '@fw/agent';
import { admin } from '../dist/index.js';
import { evalsCli } from '../dist/bin/evals-cli.js';

@Agent({ name: 'parrot', headless: true })
class Parrot {}

/** Repeats the last message; `hold` keeps a stream open until released (an eval run in progress). */
class Repeater implements ModelProvider {
  readonly name = 'repeater';
  readonly priority = 5;
  readonly capabilities = ['streaming'];
  readonly models = ['repeat-1'];
  hold: Promise<void> | undefined;
  isAvailable(): boolean {
    return true;
  }
  async *stream(request: AiRequest): AsyncIterable<AiStreamPart> {
    await this.hold;
    yield { type: 'text', delta: `said ${String(request.messages.at(-1)?.content ?? '')}` };
    yield { type: 'finish', reason: 'stop' };
  }
}

const VIEWER = 'viewer-token-0123456789';
const OPERATOR = 'operator-token-0123456789';
const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

test('evals REST: promote, a 202 eval run with progress, one at a time, results and a baseline with its pass rate; a viewer is refused', async () => {
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': '',
    'fw.ai.auto': false,
    'fw.heartbeat.interval': 0,
    'fw.auth.tokens': `vera:viewer:${VIEWER},otto:operator:${OPERATOR}`,
  });
  const model = new Repeater();
  const agents = new AgentModule({ agents: [Parrot], providers: [model] });
  await fw.use(agents);
  await fw.use(admin());
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}/api/admin`;
  const post = (path: string, body: unknown, token = OPERATOR) =>
    fetch(base + path, { method: 'POST', headers: headers(token), body: JSON.stringify(body) });
  const get = async (path: string) => {
    const res = await fetch(base + path, { headers: headers(OPERATOR) });
    assert.equal(res.status, 200, path);
    return res.json() as Promise<Record<string, unknown> & Record<string, unknown>[]>;
  };
  try {
    await agents.host.run('parrot', { message: 'hello' }, new AbortController().signal);
    await agents.host.run('parrot', { message: 'bye' }, new AbortController().signal);
    const runs = (await get('/tape/runs?agent=parrot')) as unknown as { id: string }[];
    assert.equal(runs.length, 2);

    for (const path of ['/evals/runs', '/evals/baselines', '/evals/runs/x']) {
      const refused = await fetch(base + path, { headers: headers(VIEWER) });
      assert.equal(refused.status, 403, path);
      assert.equal(((await refused.json()) as { code: string }).code, 'content_forbidden', path);
    }
    assert.equal((await post('/evals/dataset/promote', { runId: runs[0]!.id, dataset: 'greetings' }, VIEWER)).status, 403);

    const first = await post('/evals/dataset/promote', { runId: runs[0]!.id, dataset: 'greetings' });
    assert.equal(first.status, 201);
    const promoted = (await first.json()) as { dataset: string; expected: string; sourceRunId: string };
    assert.equal(promoted.sourceRunId, runs[0]!.id);
    assert.match(promoted.expected, /^said (hello|bye)$/);
    // The other with an expected output the agent does not give: one of two passes.
    assert.equal((await post('/evals/dataset/promote', { runId: runs[1]!.id, dataset: 'greetings', expected: 'hi' })).status, 201);
    assert.equal((await post('/evals/dataset/promote', { runId: 'nope', dataset: 'greetings' })).status, 404);
    assert.equal((await post('/evals/dataset/promote', { dataset: 'greetings' })).status, 400);

    // Held at the model: the eval run is in progress when the second start comes.
    let release!: () => void;
    model.hold = new Promise<void>((r) => (release = r));
    const started = await post('/evals/run', { dataset: 'greetings', agent: 'parrot' });
    assert.equal(started.status, 202);
    const run = (await started.json()) as { id: string; status: string; cases: number; done: number };
    assert.deepEqual([run.status, run.cases, run.done], ['running', 2, 0]);
    const second = await post('/evals/run', { dataset: 'greetings', agent: 'parrot' });
    assert.equal(second.status, 409);
    assert.equal(((await second.json()) as { code: string }).code, 'eval_running');
    release();
    model.hold = undefined;
    await waitFor('the eval run completed', async () => (await get(`/evals/runs/${run.id}`)).status === 'completed');
    const done = (await get(`/evals/runs/${run.id}`)) as unknown as {
      passed: number;
      passRate: number;
      results: { passed: boolean; output: string }[];
    };
    assert.deepEqual([done.passed, done.passRate], [1, 0.5]);
    assert.deepEqual(done.results.map((r) => r.passed).sort(), [false, true]);

    const listed = (await get('/evals/runs?dataset=greetings')) as unknown as { id: string }[];
    assert.deepEqual(
      listed.map((r) => r.id),
      [run.id],
    );
    const baselines = (await get('/evals/baselines')) as unknown as { dataset: string; agent: string; scorer: string; passRate: number }[];
    assert.deepEqual(
      baselines.map((b) => [b.dataset, b.agent, b.scorer, b.passRate]),
      [['greetings', 'parrot', 'exact', 0.5]],
    );

    assert.equal((await post('/evals/run', { dataset: 'greetings', agent: 'nobody' })).status, 404);
    assert.equal((await post('/evals/run', { dataset: 'greetings', agent: 'parrot', scorer: 'json-schema' })).status, 400);
    assert.equal((await fetch(`${base}/evals/runs/nope`, { headers: headers(OPERATOR) })).status, 404);

    const audit = (await get('/audit?action=evaluate')) as unknown as { action: string; outcome: string }[];
    assert.ok(audit.filter((e) => e.outcome === 'allowed').length >= 3, 'the promotions and the eval run are audited');

    // fw-evals, as CI runs it: exit 1 below the pass rate needed, 0 at it, 2 without a credential.
    const lines: string[] = [];
    const cli = (...argv: string[]) =>
      evalsCli(['--url', `http://127.0.0.1:${port}`, '--dataset', 'greetings', '--agent', 'parrot', ...argv], {
        env: { FW_ADMIN_TOKEN: OPERATOR },
        out: (line) => lines.push(line),
        pollMs: 20,
      });
    assert.equal(await cli(), 1, 'the default needs every case to pass');
    assert.match(lines.at(-1)!, /^completed: 1 of 2 passed, pass rate 0\.500 \(baseline before: 0\.500; needed: 1\)$/);
    assert.equal(lines.filter((l) => l.startsWith('FAIL ')).length, 1);
    assert.equal(await cli('--min-pass-rate', '0.5'), 0);
    lines.length = 0;
    assert.equal(
      await evalsCli(['--url', `http://127.0.0.1:${port}`, '--dataset', 'greetings', '--agent', 'parrot'], {
        env: {},
        out: (l) => lines.push(l),
      }),
      2,
    );
    assert.match(lines.join('\n'), /401/);
    assert.equal(await evalsCli(['--dataset', 'greetings'], { env: {}, out: (l) => lines.push(l) }), 2, 'usage');
  } finally {
    await fw.close();
  }
});
