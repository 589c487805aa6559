/**
 * The LLM judge scorer and the live re-run with its step-by-step comparison (docs/runs.md), over
 * the admin API against a local OpenAI-compatible model server on loopback: the judge's request
 * is seen by the server (its instructions, the rubric, the case and the answer), its verdict is
 * parsed strictly (a malformed one fails the case with the reason), `fw-evals --scorer judge`;
 * a re-run is a new run whose tape parent is the original, owned by the operator, bounded per
 * caller and in all (429 at the edge), audited, evented, on MCP; a viewer is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Framework, type FwEvent } from '@fw/runtime';
import { mcp as mcpModule } from '@fw/mcp';
import { waitFor } from '@fw/testing';
import { Agent, AgentModule, JUDGE_SYSTEM_PROMPT } from '@fw/agent';
import { admin } from '../dist/index.js';
import { evalsCli } from '../dist/bin/evals-cli.js';
import { contentText, startLocalModel, type LocalModel } from './local-model.js';

@Agent({ name: 'greeter', headless: true })
class Greeter {}

const VIEWER = 'viewer-token-0123456789';
const OPERATOR = 'operator-token-0123456789';
const OPERATOR2 = 'operator2-token-0123456789';
const OPERATOR3 = 'operator3-token-0123456789';
const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

/** What the "agent" side of the local model answers; the judge side answers from `verdicts`. */
let agentAnswer = (message: string) => `Hello, ${message}!`;
let verdicts: Record<string, string> = {};

const isJudge = (body: LocalModel['requests'][number]['body']) => contentText(body.messages[0]?.content) === JUDGE_SYSTEM_PROMPT;

async function start(extra: Record<string, unknown> = {}) {
  const model = await startLocalModel((body) => {
    if (isJudge(body)) {
      const prompt = contentText(body.messages.at(-1)?.content);
      const key = Object.keys(verdicts).find((k) => prompt.includes(`Answer to grade:\nHello, ${k}!`));
      return key ? verdicts[key]! : 'no verdict for this one';
    }
    return agentAnswer(contentText(body.messages.at(-1)?.content));
  });
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': '',
    'fw.ai.auto': true,
    'fw.ai.base-url': model.url,
    'fw.ai.model': 'local-model',
    'fw.heartbeat.interval': 0,
    'fw.admin.mcp-write-tools': true,
    'fw.auth.tokens': `vera:viewer:${VIEWER},otto:operator:${OPERATOR},olga:operator:${OPERATOR2},omar:operator:${OPERATOR3}`,
    ...extra,
  });
  const agents = new AgentModule({ agents: [Greeter] });
  await fw.use(mcpModule());
  await fw.use(agents);
  await fw.use(admin());
  const events: FwEvent[] = [];
  fw.events.onAny((e) => events.push(e));
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}/api/admin`;
  const post = (path: string, body: unknown, token = OPERATOR) =>
    fetch(base + path, { method: 'POST', headers: headers(token), body: JSON.stringify(body) });
  const get = async <T>(path: string, token = OPERATOR): Promise<T> => {
    const res = await fetch(base + path, { headers: headers(token) });
    assert.equal(res.status, 200, `${path}: ${await res.clone().text()}`);
    return (await res.json()) as T;
  };
  return { fw, agents, model, port, base, post, get, events };
}

async function connect(port: number, token: string): Promise<Client> {
  const client = new Client({ name: 'judge-rerun-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/fw/admin/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}
const textOf = (result: unknown): string => (result as { content: { text: string }[] }).content.map((c) => c.text).join('');

interface EvalRunReply {
  id: string;
  status: string;
  passed: number;
  cases: number;
  results: { caseId: string; passed: boolean; output: string; detail: string }[];
}

test('judge scorer: the model grades each answer by the rubric; the verdict is parsed strictly; a malformed one fails with the reason', async () => {
  const app = await start();
  try {
    // Three taped runs promoted to cases; the judge will pass one, fail one on score, and get a malformed verdict for the third.
    for (const who of ['Ada', 'Bob', 'Cy']) await app.agents.host.run('greeter', { message: who }, new AbortController().signal);
    const runs = await app.get<{ id: string }[]>('/tape/runs?agent=greeter');
    for (const run of runs) assert.equal((await app.post('/evals/dataset/promote', { runId: run.id, dataset: 'politeness' })).status, 201);
    verdicts = {
      Ada: '{"score": 0.9, "reason": "greets by name, politely"}',
      Bob: '```json\n{"score": 0.2, "reason": "too curt"}\n```',
      Cy: 'It is polite, I would say 8/10.',
    };

    // Bad judge options: a clear 400 each, and nothing started.
    const bad = async (body: Record<string, unknown>, pattern: RegExp) => {
      const res = await app.post('/evals/run', { dataset: 'politeness', agent: 'greeter', scorer: 'judge', ...body });
      const problem = (await res.json()) as { detail: string };
      assert.equal(res.status, 400, JSON.stringify(problem));
      assert.match(problem.detail, pattern);
    };
    await bad({}, /needs 'judge'/);
    await bad({ judge: 'be nice' }, /'judge' must be an object/);
    await bad({ judge: { rubric: '' } }, /judge\.rubric/);
    await bad({ judge: { rubric: 'polite', threshold: 1.5 } }, /judge\.threshold/);
    await bad({ judge: { rubric: 'polite', runtime: 'nope' } }, /no AI runtime 'nope'.*openai-compatible/);
    assert.equal(
      (await app.post('/evals/run', { dataset: 'politeness', agent: 'greeter', scorer: 'judge', judge: { rubric: 'x' } }, VIEWER)).status,
      403,
    );

    const judgeBefore = app.model.requests.filter((r) => isJudge(r.body)).length;
    assert.equal(judgeBefore, 0);
    const started = await app.post('/evals/run', {
      dataset: 'politeness',
      agent: 'greeter',
      scorer: 'judge',
      judge: { rubric: 'Greets the person by name, politely.', runtime: 'openai-compatible', model: 'judge-model', threshold: 0.5 },
    });
    assert.equal(started.status, 202);
    const { id } = (await started.json()) as { id: string };
    await waitFor('the judged eval run completed', async () => (await app.get<EvalRunReply>(`/evals/runs/${id}`)).status === 'completed');
    const run = await app.get<EvalRunReply>(`/evals/runs/${id}`);
    const cases = await app.get<{ id: string; input: string }[]>('/evals/datasets/politeness/cases');
    const byInput = new Map(run.results.map((r) => [cases.find((c) => c.id === r.caseId)!.input, r]));
    assert.deepEqual([run.passed, run.cases], [1, 3]);
    assert.equal(byInput.get('Ada')!.passed, true);
    assert.equal(byInput.get('Ada')!.detail, 'judge: score 0.9 ≥ 0.5: greets by name, politely');
    assert.equal(byInput.get('Bob')!.passed, false);
    assert.equal(byInput.get('Bob')!.detail, 'judge: score 0.2 < 0.5: too curt');
    assert.equal(byInput.get('Cy')!.passed, false);
    assert.equal(byInput.get('Cy')!.detail, 'judge: the verdict is not JSON: "It is polite, I would say 8/10."');

    // The server saw each judge request: the instructions, the rubric, the case and the answer, with the judge's model.
    const judged = app.model.requests.filter((r) => isJudge(r.body));
    assert.equal(judged.length, 3);
    for (const r of judged) {
      assert.equal(r.path, '/v1/chat/completions');
      assert.equal(r.body.model, 'judge-model');
      assert.equal(r.body.messages[0]!.role, 'system');
    }
    const adaPrompt = judged.map((r) => contentText(r.body.messages.at(-1)!.content)).find((p) => p.includes('Ada'))!;
    assert.equal(
      adaPrompt,
      'Rubric:\nGreets the person by name, politely.\n\nInput the agent was given:\nAda\n\nOutput expected:\nHello, Ada!\n\nAnswer to grade:\nHello, Ada!',
    );

    const baselines = await app.get<{ scorer: string; passRate: number }[]>('/evals/baselines');
    assert.deepEqual(
      baselines.map((b) => [b.scorer, b.passRate]),
      [['judge', 1 / 3]],
    );

    // fw-evals with the judge: 1 of 3 is below --min-pass-rate 0.5 (exit 1); a usage error is 2.
    const lines: string[] = [];
    const cli = (...argv: string[]) =>
      evalsCli(['--url', `http://127.0.0.1:${app.port}`, '--dataset', 'politeness', '--agent', 'greeter', ...argv], {
        env: { FW_ADMIN_TOKEN: OPERATOR },
        out: (line) => lines.push(line),
        pollMs: 20,
      });
    assert.equal(await cli('--scorer', 'judge', '--rubric', 'Greets by name.', '--threshold', '0.5', '--min-pass-rate', '0.5'), 1);
    assert.match(lines.at(-1)!, /^completed: 1 of 3 passed, pass rate 0\.333 \(baseline before: 0\.333; needed: 0\.5\)$/);
    assert.ok(
      lines.includes(`FAIL ${cases.find((c) => c.input === 'Cy')!.id}: judge: the verdict is not JSON: "It is polite, I would say 8/10."`),
    );
    assert.equal(await cli('--scorer', 'judge'), 2, '--rubric is needed');
    assert.equal(await cli('--rubric', 'x'), 2, '--rubric goes with --scorer judge');
    assert.equal(await cli('--scorer', 'judge', '--rubric', 'x', '--threshold', '2'), 2);

    // Over the admin MCP tools: promote and start with the judge as an operator, read the result; a viewer is refused.
    const operator = await connect(app.port, OPERATOR);
    const viewer = await connect(app.port, VIEWER);
    try {
      const promoted = await operator.callTool({ name: 'fw_promote_run', arguments: { runId: runs[0]!.id, dataset: 'mcp-set' } });
      assert.notEqual(promoted.isError, true, textOf(promoted));
      const mcpStart = await operator.callTool({
        name: 'fw_start_eval',
        arguments: { dataset: 'mcp-set', agent: 'greeter', scorer: 'judge', judge: { rubric: 'Greets by name.', threshold: 0.5 } },
      });
      assert.notEqual(mcpStart.isError, true, textOf(mcpStart));
      const mcpRun = JSON.parse(textOf(mcpStart)) as { id: string; status: string };
      assert.equal(mcpRun.status, 'running');
      const read = async () =>
        JSON.parse(textOf(await operator.callTool({ name: 'fw_list_eval_runs', arguments: { evalRunId: mcpRun.id } }))) as EvalRunReply;
      await waitFor('the MCP eval run completed', async () => (await read()).status === 'completed');
      assert.match((await read()).results[0]!.detail, /^judge: (score|the verdict)/, 'graded by the judge');
      const listed = JSON.parse(textOf(await operator.callTool({ name: 'fw_list_eval_runs', arguments: { dataset: 'mcp-set' } }))) as {
        id: string;
      }[];
      assert.deepEqual(
        listed.map((r) => r.id),
        [mcpRun.id],
      );
      for (const [name, args] of [
        ['fw_start_eval', { dataset: 'mcp-set', agent: 'greeter' }],
        ['fw_promote_run', { runId: runs[0]!.id, dataset: 'mcp-set' }],
        ['fw_list_eval_runs', {}],
      ] as const) {
        const refused = await viewer.callTool({ name, arguments: args });
        assert.equal(refused.isError, true, name);
        assert.match(textOf(refused), /forbidden/, name);
      }
    } finally {
      await operator.close();
      await viewer.close();
    }
  } finally {
    verdicts = {};
    await app.fw.close();
    await app.model.close();
  }
});

test('judge limits: a verdict past fw.agent.evals.judge.max-verdict and one past fw.agent.evals.judge.timeout fail the case, the eval goes on', async () => {
  const app = await start({ 'fw.agent.evals.judge.max-verdict': 40, 'fw.agent.evals.judge.timeout': 300 });
  try {
    for (const who of ['Ada', 'Bob']) await app.agents.host.run('greeter', { message: who }, new AbortController().signal);
    for (const run of await app.get<{ id: string }[]>('/tape/runs?agent=greeter'))
      await app.post('/evals/dataset/promote', { runId: run.id, dataset: 'limits' });
    // 40 characters exactly is within the limit; Bob's verdict is one longer.
    verdicts = { Ada: '{"score": 1, "reason": "fine as it is."}', Bob: '{"score": 1, "reason": "fine as it is.."}' };
    assert.equal(verdicts.Ada!.length, 40);
    const started = (await (
      await app.post('/evals/run', { dataset: 'limits', agent: 'greeter', scorer: 'judge', judge: { rubric: 'ok' } })
    ).json()) as {
      id: string;
    };
    await waitFor('completed', async () => (await app.get<EvalRunReply>(`/evals/runs/${started.id}`)).status === 'completed');
    const details = (await app.get<EvalRunReply>(`/evals/runs/${started.id}`)).results.map((r) => r.detail).sort();
    assert.deepEqual(details, [
      'judge: score 1 ≥ 0.7: fine as it is.',
      'judge: the verdict is longer than 40 characters (fw.agent.evals.judge.max-verdict)',
    ]);

    // A judge that does not answer in time: each case fails with the timeout, the run completes.
    let release!: () => void;
    app.model.hold = new Promise<void>((r) => (release = r));
    app.model.holdWhen = isJudge;
    const again = (await (
      await app.post('/evals/run', { dataset: 'limits', agent: 'greeter', scorer: 'judge', judge: { rubric: 'ok' } })
    ).json()) as {
      id: string;
    };
    await waitFor('completed', async () => (await app.get<EvalRunReply>(`/evals/runs/${again.id}`)).status === 'completed');
    release();
    app.model.hold = undefined;
    app.model.holdWhen = undefined;
    const timedOut = (await app.get<EvalRunReply>(`/evals/runs/${again.id}`)).results.filter((r) =>
      r.detail.includes('no verdict within 300 ms (fw.agent.evals.judge.timeout)'),
    );
    assert.equal(timedOut.length, 2, 'each held judge call timed out');
  } finally {
    verdicts = {};
    await app.fw.close();
    await app.model.close();
  }
});

interface Comparison {
  same: boolean;
  steps: { seq: number; kind: string; left: unknown; right: unknown; differs: boolean }[];
  summary: { differingSteps: number; firstDifference: number | null; sameAnswer: boolean; left: { text: string }; right: { text: string } };
}

test('live re-run: 202 with the new run, tape parent and owner, compared step by step; per-caller and total limits at their edge; audited, evented, on MCP; a viewer is refused', async () => {
  const app = await start({ 'fw.agent.tape.rerun.per-caller': 1, 'fw.agent.tape.rerun.max': 2 });
  try {
    agentAnswer = (m) => `Hello, ${m}!`;
    await app.agents.host.run('greeter', { message: 'Ada' }, new AbortController().signal);
    const [original] = await app.get<{ id: string }[]>('/tape/runs?agent=greeter');

    // A viewer may neither re-run nor compare (content).
    const refused = await app.post(`/tape/runs/${original!.id}/rerun`, {}, VIEWER);
    assert.equal(refused.status, 403);
    assert.equal(
      (await fetch(`${app.base}/tape/runs/${original!.id}/compare?with=${original!.id}`, { headers: headers(VIEWER) })).status,
      403,
    );
    assert.equal((await app.post('/tape/runs/nope/rerun', {})).status, 404);

    // The live model answers differently now.
    agentAnswer = (m) => `Good day, ${m}.`;
    const res = await app.post(`/tape/runs/${original!.id}/rerun`, {});
    assert.equal(res.status, 202);
    const started = (await res.json()) as { runId: string; originalRunId: string };
    assert.equal(started.originalRunId, original!.id);
    assert.notEqual(started.runId, original!.id);
    await waitFor('RunRerunEnded', () =>
      app.events.find((e) => e.type === 'RunRerunEnded' && (e as { runId?: string }).runId === started.runId),
    );
    const ended = app.events.find((e) => e.type === 'RunRerunEnded') as unknown as { originalRunId: string; state: string; agent: string };
    assert.deepEqual([ended.originalRunId, ended.state, ended.agent], [original!.id, 'completed', 'greeter']);
    assert.ok(app.events.some((e) => e.type === 'ControlActionExecuted' && (e as { action?: string }).action === 'rerun'));

    const rerun = (
      await app.get<{ id: string; parentRunId: string; owner: string; principal: string; ref: string }[]>('/tape/runs?agent=greeter')
    ).find((r) => r.id === started.runId)!;
    assert.equal(rerun.parentRunId, original!.id, 'the tape links the re-run to its original');
    assert.equal(rerun.principal, 'otto', "the operator's principal owns the re-run");
    assert.match(rerun.ref, new RegExp(`^rerun:${original!.id}:`));

    const cmp = await app.get<Comparison>(`/tape/runs/${original!.id}/compare?with=${started.runId}`);
    assert.equal(cmp.same, false);
    assert.deepEqual(
      cmp.steps.map((s) => [s.kind, s.differs]),
      [
        ['input', false],
        ['model-request', false],
        ['model-response', true],
        ['end', true],
      ],
    );
    assert.equal((cmp.steps[2]!.left as { text: string }).text, 'Hello, Ada!');
    assert.equal((cmp.steps[2]!.right as { text: string }).text, 'Good day, Ada.');
    assert.deepEqual([cmp.summary.differingSteps, cmp.summary.firstDifference, cmp.summary.sameAnswer], [2, 2, false]);
    assert.deepEqual([cmp.summary.left.text, cmp.summary.right.text], ['Hello, Ada!', 'Good day, Ada.']);
    // A run compared with itself is the same.
    assert.equal((await app.get<Comparison>(`/tape/runs/${original!.id}/compare?with=${original!.id}`)).same, true);
    const noWith = await fetch(`${app.base}/tape/runs/${original!.id}/compare`, { headers: headers(OPERATOR) });
    assert.equal(noWith.status, 400);
    assert.match(((await noWith.json()) as { detail: string }).detail, /'with'/);
    assert.equal((await fetch(`${app.base}/tape/runs/${original!.id}/compare?with=nope`, { headers: headers(OPERATOR) })).status, 404);

    // Held at the model: otto's one re-run in flight is his share; olga gets hers; the total (2) then refuses omar.
    let release!: () => void;
    app.model.hold = new Promise<void>((r) => (release = r));
    assert.equal((await app.post(`/tape/runs/${original!.id}/rerun`, {})).status, 202);
    const second = await app.post(`/tape/runs/${original!.id}/rerun`, {});
    assert.equal(second.status, 429);
    const busy = (await second.json()) as { code: string; detail: string };
    assert.equal(busy.code, 'rerun_busy');
    assert.match(busy.detail, /fw\.agent\.tape\.rerun\.per-caller/);
    const olga = await app.post(`/tape/runs/${original!.id}/rerun`, {}, OPERATOR2);
    assert.equal(olga.status, 202);
    const olgaRun = (await olga.json()) as { runId: string };
    const omar = await app.post(`/tape/runs/${original!.id}/rerun`, {}, OPERATOR3);
    assert.equal(omar.status, 429);
    assert.match(((await omar.json()) as { detail: string }).detail, /fw\.agent\.tape\.rerun\.max/);
    // An open run cannot be compared yet.
    const open = await fetch(`${app.base}/tape/runs/${original!.id}/compare?with=${olgaRun.runId}`, { headers: headers(OPERATOR) });
    assert.equal(open.status, 409);
    release();
    app.model.hold = undefined;
    await waitFor('both held re-runs ended', () => app.events.filter((e) => e.type === 'RunRerunEnded').length === 3);
    assert.equal(
      (await app.post(`/tape/runs/${original!.id}/rerun`, {}, OPERATOR3)).status,
      202,
      'a share comes back when its re-run ends',
    );
    await waitFor('the fourth re-run ended', () => app.events.filter((e) => e.type === 'RunRerunEnded').length === 4);

    // Audited: the allowed re-runs, the viewer's refusal.
    const audit = await app.get<{ action: string; outcome: string; principal: string }[]>('/audit?action=rerun');
    assert.ok(audit.some((a) => a.outcome === 'allowed' && a.principal === 'otto'));
    assert.ok(audit.some((a) => a.outcome === 'refused' && a.principal === 'vera'));

    // The OpenAPI document has both routes with their roles.
    const doc = await app.get<{ paths: Record<string, Record<string, Record<string, unknown>>> }>('/openapi.json');
    assert.equal(doc.paths['/tape/runs/{runId}/rerun']?.post?.['x-fw-action'], 'rerun');
    assert.equal(doc.paths['/tape/runs/{runId}/rerun']?.post?.['x-fw-role'], 'operator');
    assert.equal(doc.paths['/tape/runs/{runId}/compare']?.get?.['x-fw-content-role'], 'operator');

    // MCP: fw_rerun_run and fw_compare_runs for an operator; the viewer gets an error.
    const operator = await connect(app.port, OPERATOR);
    const viewer = await connect(app.port, VIEWER);
    try {
      const viaMcp = await operator.callTool({ name: 'fw_rerun_run', arguments: { runId: original!.id } });
      assert.notEqual(viaMcp.isError, true, textOf(viaMcp));
      const mcpRun = JSON.parse(textOf(viaMcp)) as { runId: string; originalRunId: string };
      assert.equal(mcpRun.originalRunId, original!.id);
      await waitFor('the MCP re-run ended', () => app.events.filter((e) => e.type === 'RunRerunEnded').length === 5);
      const compared = JSON.parse(
        textOf(await operator.callTool({ name: 'fw_compare_runs', arguments: { runId: original!.id, with: mcpRun.runId } })),
      ) as Comparison;
      assert.equal(compared.summary.right.text, 'Good day, Ada.');
      const denied = await viewer.callTool({ name: 'fw_rerun_run', arguments: { runId: original!.id } });
      assert.equal(denied.isError, true);
      const deniedCompare = await viewer.callTool({ name: 'fw_compare_runs', arguments: { runId: original!.id, with: mcpRun.runId } });
      assert.equal(deniedCompare.isError, true);
    } finally {
      await operator.close();
      await viewer.close();
    }
  } finally {
    agentAnswer = (m) => `Hello, ${m}!`;
    await app.fw.close();
    await app.model.close();
  }
});
