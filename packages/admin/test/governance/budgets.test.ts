/**
 * Issue 26 item 3 over real sockets and a local OpenAI-compatible server: spend rows after real
 * runs (by agent, principal, model; priced from the table; unknown model at cost 0), spend on the
 * overview and in the metrics; a hard run budget stops a streaming run near its limit (the server
 * counts the tokens it streamed before the client went away) with `budget_exceeded`, the socket
 * stays usable; soft limits are evented; a per-day budget survives a restart on the same SQLite
 * file; the budgets section fails closed; reads for a viewer, the reload write refused to one;
 * 400s; and POST governance/check uses no rate-limit quota.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Framework, type FrameworkModule } from '@fw/runtime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcp } from '@fw/mcp';
import { Agent, AgentModule, agentModuleOf, openAiProvider } from '@fw/agent';
import { waitFor } from '@fw/testing';
import { admin, type PolicyFile } from '../../dist/index.js';
import { adminEvents, API, AUTH_TOKENS, bearer, chat, TOKENS } from './apps.js';
import { startOpenAiServer, type OpenAiServer } from './openai-server.js';

class Writer {}
Agent({ name: 'writer', description: 'writes' })(Writer);
class Helper {}
Agent({ name: 'helper', description: 'helps' })(Helper);

/** USD per 1M tokens: input 1, cached 0.5, output 2. */
const PRICES = JSON.stringify({ 'local-*': { input: 1, output: 2, cached: 0.5 } });
/** One answered call: 20 input (5 cached), 15 output tokens. */
const CALL_USD = (15 * 1 + 5 * 0.5 + 15 * 2) / 1e6;

interface BudgetApp {
  fw: Framework;
  base: string;
  ws: string;
  file: string;
  get(path: string, token?: string): Promise<Response>;
  post(path: string, body?: unknown, token?: string): Promise<Response>;
  close(): Promise<void>;
}

async function start(
  server: OpenAiServer,
  policies: PolicyFile,
  props: Record<string, unknown> = {},
  model = 'local-model',
  dir = mkdtempSync(join(tmpdir(), 'fw-budgets-')),
  first: FrameworkModule[] = [],
): Promise<BudgetApp> {
  const file = join(dir, 'policies.json');
  writeFileSync(file, JSON.stringify(policies));
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': '',
    'fw.ai.auto': false,
    'fw.heartbeat.interval': 0,
    'fw.auth.tokens': AUTH_TOKENS,
    'fw.admin.mcp-tools': false,
    'fw.admin.governance.policy-file': file,
    'fw.agent.prices': PRICES,
    ...props,
  });
  const agents = new AgentModule({ providers: [openAiProvider({ baseURL: server.url, model, apiKey: 'test-key' })] });
  try {
    for (const m of first) await fw.use(m);
    await fw.use(agents);
    agents.mount(Writer);
    agents.mount(Helper);
    await fw.use(admin());
  } catch (err) {
    await fw.close();
    throw err;
  }
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  return {
    fw,
    base,
    ws: `ws://127.0.0.1:${port}`,
    file,
    get: (path, token = TOKENS.viewer) => fetch(base + path, { headers: bearer(token) }),
    post: (path, body, token = TOKENS.operator) =>
      fetch(base + path, {
        method: 'POST',
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...bearer(token) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    close: () => fw.close(),
  };
}

/** One prompt on a chat socket: its `done` or `error` frame. */
async function prompt(c: Awaited<ReturnType<typeof chat>>, text: string): Promise<{ type: string; [k: string]: unknown }> {
  const from = c.frames.length;
  c.prompt(text);
  return waitFor('the answer', () => c.frames.slice(from).find((f) => f.type === 'done' || f.type === 'error'), 10_000);
}

interface SpendBody {
  by: string;
  since: string;
  until: string;
  currency: string;
  rows: { key: string; calls: number; inputTokens: number; outputTokens: number; cachedTokens: number; costUsd: number }[];
  total: { calls: number; inputTokens: number; outputTokens: number; cachedTokens: number; costUsd: number };
  unpriced: string[];
}

async function spend(app: BudgetApp, query: string): Promise<SpendBody> {
  const res = await app.get(`${API}/spend?${query}`);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as SpendBody;
}

interface BudgetsBody {
  budgets: {
    id: string;
    scope: string;
    key: string | null;
    period: string;
    soft: unknown;
    hard: unknown;
    used: { tokens: number; usd: number } | null;
    state: string;
  }[];
}

async function budgets(app: BudgetApp): Promise<BudgetsBody> {
  const res = await app.get(`${API}/governance/budgets`);
  assert.equal(res.status, 200);
  return (await res.json()) as BudgetsBody;
}

test('spend after real runs: rows by agent, principal and model priced from the table, on the overview and in the metrics', async () => {
  const server = await startOpenAiServer();
  const app = await start(server, { policies: [] });
  try {
    const otto = await chat(app, 'writer', TOKENS.operator);
    assert.equal((await prompt(otto, 'hello')).type, 'done');
    assert.equal((await prompt(otto, 'again')).type, 'done');
    await otto.close();
    const vera = await chat(app, 'helper', TOKENS.viewer);
    assert.equal((await prompt(vera, 'hi')).type, 'done');
    await vera.close();

    const byAgent = await spend(app, 'by=agent');
    assert.equal(byAgent.by, 'agent');
    assert.equal(byAgent.currency, 'USD');
    assert.ok(Date.parse(byAgent.since) <= Date.parse(byAgent.until));
    const writer = byAgent.rows.find((r) => r.key === 'writer');
    assert.deepEqual(
      { ...writer, costUsd: Math.round((writer?.costUsd ?? 0) * 1e9) },
      { key: 'writer', calls: 2, inputTokens: 40, outputTokens: 30, cachedTokens: 10, costUsd: Math.round(2 * CALL_USD * 1e9) },
    );
    assert.equal(byAgent.rows[0]?.key, 'writer', 'largest cost first');
    assert.equal(byAgent.total.calls, 3);
    assert.equal(byAgent.total.inputTokens, 60);
    assert.equal(byAgent.total.outputTokens, 45);
    assert.equal(byAgent.total.cachedTokens, 15);
    assert.ok(Math.abs(byAgent.total.costUsd - 3 * CALL_USD) < 1e-12);
    assert.deepEqual(byAgent.unpriced, []);

    const byPrincipal = await spend(app, 'by=principal');
    assert.deepEqual(
      byPrincipal.rows.map((r) => [r.key, r.calls]),
      [
        ['otto', 2],
        ['vera', 1],
      ],
    );
    const byModel = await spend(app, `by=model&since=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}`);
    assert.deepEqual(
      byModel.rows.map((r) => [r.key, r.calls, r.outputTokens]),
      [['local-model', 3, 45]],
    );

    // One table: what spend counted is what the tape's cost per model output (the Runs tab) shows.
    const tape = agentModuleOf(app.fw)!.tape!;
    let taped = 0;
    for (const run of await tape.runs({ agent: 'writer' })) for (const step of await tape.steps(run.id)) taped += step.cost ?? 0;
    assert.ok(Math.abs(taped - (writer?.costUsd ?? 0)) < 1e-12, `the tape's cost ${taped}, spend's ${writer?.costUsd}`);
    assert.ok(taped > 0);

    const overview = (await (await app.get(`${API}/overview`)).json()) as { spendToday: SpendBody['total'] & { currency: string } };
    assert.equal(overview.spendToday.calls, 3);
    assert.equal(overview.spendToday.inputTokens, 60);
    assert.equal(overview.spendToday.currency, 'USD');
    assert.ok(Math.abs(overview.spendToday.costUsd - 3 * CALL_USD) < 1e-12);

    const metrics = await (await fetch(`${app.base}/fw/metrics`, { headers: bearer(TOKENS.viewer) })).text();
    assert.match(metrics, /fw_model_tokens_total\{agent="writer",model="local-model",kind="input"\} 40/);
    assert.match(metrics, /fw_model_tokens_total\{agent="writer",model="local-model",kind="cached"\} 10/);
    assert.match(metrics, /fw_model_tokens_total\{agent="helper",model="local-model",kind="output"\} 15/);
    assert.match(metrics, /fw_model_cost_usd_total\{agent="writer",model="local-model"\} 0\.0000(9|8)/);
  } finally {
    await app.close();
    await server.close();
  }
});

test('a model without a price: tokens counted, cost 0, and GET spend names it', async () => {
  const server = await startOpenAiServer();
  const app = await start(server, { policies: [] }, {}, 'other-model');
  try {
    const c = await chat(app, 'writer');
    assert.equal((await prompt(c, 'hello')).type, 'done');
    await c.close();
    const body = await spend(app, 'by=model');
    assert.deepEqual(body.rows, [{ key: 'other-model', calls: 1, inputTokens: 20, outputTokens: 15, cachedTokens: 5, costUsd: 0 }]);
    assert.deepEqual(body.unpriced, ['other-model']);
  } finally {
    await app.close();
    await server.close();
  }
});

test('a hard run budget stops a streaming run near its limit: budget_exceeded, the socket stays usable, the change is evented', async () => {
  const server = await startOpenAiServer();
  const app = await start(server, {
    policies: [],
    budgets: [{ id: 'per-run', scope: 'run', key: 'writer', soft: { tokens: 40 }, hard: { tokens: 80 } }],
  });
  const stream = await adminEvents(app);
  try {
    const c = await chat(app, 'writer');
    const error = await prompt(c, 'go on forever');
    assert.equal(error.type, 'error');
    assert.equal(error.code, 'budget_exceeded');
    assert.match(String(error.message), /stopped: the hard budget 'per-run' of 80 tokens is reached/);
    // The server stopped streaming because the client went away, close to the limit (one token
    // is one "tok " chunk; a few more may be in flight when the stream is cut).
    await waitFor('the stream aborted', () => server.aborted === 1 || undefined, 5000);
    const streamed = server.streamed[0] ?? 0;
    assert.ok(streamed >= 80 && streamed <= 100, `streamed ${streamed} tokens for a hard limit of 80`);

    // The same socket: a new run, answered.
    const next = await prompt(c, 'hello');
    assert.equal(next.type, 'done');
    await c.close();

    const soft = await waitFor('BudgetSoftLimitReached', () => stream.events.find((e) => e.type === 'BudgetSoftLimitReached'), 5000);
    assert.equal(soft.budget, 'per-run');
    assert.equal(soft.scope, 'run');
    assert.equal(soft.agent, 'writer');
    assert.equal(soft.principal, 'otto');
    // The warning is on the run: its tape shows it where it happened, before the end.
    const steps = await waitFor(
      'the warning on the tape',
      async () => {
        const res = await app.get(`${API}/tape/runs/${String(soft.runId)}/steps`, TOKENS.operator);
        const list = (await res.json()) as { kind: string; body: { code?: string; message?: string } }[];
        return list.some((x) => x.kind === 'warning') ? list : undefined;
      },
      5000,
    );
    const warning = steps.find((x) => x.kind === 'warning');
    assert.equal(warning?.body.code, 'budget_soft_limit');
    assert.match(warning?.body.message ?? '', /the soft budget 'per-run' of 40 tokens is reached \(this run used/);
    assert.equal(steps.at(-1)?.kind, 'end');
    const hard = await waitFor('BudgetExceeded', () => stream.events.find((e) => e.type === 'BudgetExceeded'), 5000);
    assert.equal(hard.budget, 'per-run');
    assert.deepEqual(hard.limit, { tokens: 80 });
    assert.equal((hard.used as { tokens: number }).tokens, 80);
    assert.equal(stream.events.filter((e) => e.type === 'BudgetExceeded').length, 1, 'one event per state change');

    // The stopped call is counted with its estimate (its output is what streamed).
    const rows = (await spend(app, 'by=agent')).rows;
    assert.equal(rows.find((r) => r.key === 'writer')?.calls, 2);
    const listed = (await budgets(app)).budgets;
    assert.deepEqual(listed, [
      { id: 'per-run', scope: 'run', key: 'writer', period: 'run', soft: { tokens: 40 }, hard: { tokens: 80 }, used: null, state: 'ok' },
    ]);
  } finally {
    await stream.close();
    await app.close();
    await server.close();
  }
});

test('a per-agent daily budget survives a restart on the same SQLite file: the next call is refused before the model is asked', async () => {
  const server = await startOpenAiServer();
  const dir = mkdtempSync(join(tmpdir(), 'fw-budgets-day-'));
  const file: PolicyFile = {
    policies: [],
    budgets: [
      { id: 'writer-daily', scope: 'agent', key: 'writer', soft: { tokens: 30 }, hard: { tokens: 60 } },
      { id: 'each-principal', scope: 'principal', soft: { usd: 0.00001 } },
    ],
  };
  const props = { 'fw.data-dir': dir };
  try {
    let app = await start(server, file, props, 'local-model', dir);
    const stream = await adminEvents(app);
    try {
      const c = await chat(app, 'writer');
      assert.equal((await prompt(c, 'hello')).type, 'done');
      const soft = await waitFor(
        'BudgetSoftLimitReached',
        () => stream.events.find((e) => e.type === 'BudgetSoftLimitReached' && e.budget === 'writer-daily'),
        5000,
      );
      assert.deepEqual(soft.used, { tokens: 35, usd: Math.round(CALL_USD * 1e9) / 1e9 });
      assert.ok(stream.events.some((e) => e.type === 'BudgetSoftLimitReached' && e.budget === 'each-principal' && e.key === 'otto'));
      assert.equal((await prompt(c, 'again')).type, 'done');
      await waitFor('BudgetExceeded', () => stream.events.find((e) => e.type === 'BudgetExceeded' && e.budget === 'writer-daily'), 5000);
      await c.close();
      const before = (await budgets(app)).budgets.find((b) => b.id === 'writer-daily');
      assert.deepEqual(before?.used, { tokens: 70, usd: Math.round(2 * CALL_USD * 1e9) / 1e9 });
      assert.equal(before?.state, 'hard');
    } finally {
      await stream.close();
      await app.close();
    }

    app = await start(server, file, props, 'local-model', dir);
    try {
      const listed = (await budgets(app)).budgets;
      assert.deepEqual(listed.find((b) => b.id === 'writer-daily')?.used?.tokens, 70);
      assert.equal(listed.find((b) => b.id === 'writer-daily')?.state, 'hard');
      assert.equal(listed.find((b) => b.id === 'each-principal')?.state, 'soft');
      const asked = server.requests;
      const c = await chat(app, 'writer');
      const refused = await prompt(c, 'hello');
      assert.equal(refused.code, 'budget_exceeded');
      assert.match(
        String(refused.message),
        /refused: the hard budget 'writer-daily' of 60 tokens is reached \(agent 'writer' today used 70 tokens/,
      );
      assert.equal(server.requests, asked, 'the model was not asked');
      // Another agent has its own day.
      const h = await chat(app, 'helper');
      assert.equal((await prompt(h, 'hello')).type, 'done');
      await h.close();
      await c.close();
      const rows = (await spend(app, 'by=agent')).rows;
      assert.deepEqual(
        rows.map((r) => [r.key, r.calls]),
        [
          ['writer', 2],
          ['helper', 1],
        ],
      );
    } finally {
      await app.close();
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('budgets fail closed: a bad section stops the start, and a reload with one answers 400 and keeps the old budgets', async () => {
  const server = await startOpenAiServer();
  try {
    await assert.rejects(
      start(server, { policies: [], budgets: [{ id: 'x', scope: 'team', hard: { tokens: 1 } }] } as unknown as PolicyFile),
      /does not match the policy schema/,
    );
    await assert.rejects(
      start(server, {
        policies: [],
        budgets: [
          { id: 'x', scope: 'run', hard: { tokens: 1 } },
          { id: 'x', scope: 'agent', soft: { usd: 1 } },
        ],
      }),
      /'x' is used twice/,
    );
    await assert.rejects(
      start(server, { policies: [] }, { 'fw.agent.prices': '{"m": {"input": -1, "output": 1}}' }),
      /price table is not valid \(fw\.agent\.prices\): \/m\/input: must be a number ≥ 0/,
    );

    const app = await start(server, { policies: [], budgets: [{ id: 'keep', scope: 'agent', hard: { tokens: 1000 } }] });
    try {
      writeFileSync(app.file, JSON.stringify({ policies: [], budgets: [{ id: 'bad', scope: 'agent', hard: {} }] }));
      const res = await app.post(`${API}/governance/reload`);
      assert.equal(res.status, 400);
      assert.deepEqual(
        (await budgets(app)).budgets.map((b) => b.id),
        ['keep'],
      );
      writeFileSync(
        app.file,
        JSON.stringify({ policies: [], budgets: [{ id: 'new', scope: 'principal', key: 'otto', hard: { usd: 1 } }] }),
      );
      const stream = await adminEvents(app);
      try {
        assert.equal((await app.post(`${API}/governance/reload`)).status, 200);
        const reloaded = await waitFor('PoliciesReloaded', () => stream.events.find((e) => e.type === 'PoliciesReloaded'), 5000);
        assert.deepEqual(reloaded.budgets, ['new']);
        assert.equal(reloaded.operator, 'otto');
        const audited = await waitFor(
          'ControlActionExecuted',
          () => stream.events.find((e) => e.type === 'ControlActionExecuted' && e.action === 'governance.reload' && e.success === true),
          5000,
        );
        assert.ok(audited);
      } finally {
        await stream.close();
      }
      assert.deepEqual((await budgets(app)).budgets, [
        {
          id: 'new',
          scope: 'principal',
          key: 'otto',
          period: 'day',
          soft: null,
          hard: { usd: 1 },
          used: { tokens: 0, usd: 0 },
          state: 'ok',
        },
      ]);
    } finally {
      await app.close();
    }
  } finally {
    await server.close();
  }
});

test('a viewer reads spend and budgets but may not reload them (audited refusal); bad by and since are 400s', async () => {
  const server = await startOpenAiServer();
  const app = await start(server, { policies: [], budgets: [{ id: 'b', scope: 'agent', soft: { tokens: 1 } }] });
  try {
    assert.equal((await app.get(`${API}/spend?by=model`)).status, 200);
    assert.equal((await app.get(`${API}/governance/budgets`)).status, 200);
    const refused = await app.post(`${API}/governance/reload`, undefined, TOKENS.viewer);
    assert.equal(refused.status, 403);
    const audit = (await (await app.get(`${API}/audit?action=governance.reload`)).json()) as { outcome: string; principal: string }[];
    assert.equal(audit[0]?.outcome, 'refused');
    assert.equal(audit[0]?.principal, 'vera');

    for (const [query, field, message] of [
      ['by=team', 'by', /'by' must be one of agent, principal, model/],
      ['since=yesterday', 'since', /'since' must be an ISO-8601 time/],
      ['since=2026-13-45', 'since', /'since' must be an ISO-8601 time/],
      [`since=${new Date(Date.now() + 86_400_000 * 2).toISOString()}`, 'since', /must not be in the future/],
    ] as const) {
      const res = await app.get(`${API}/spend?${query}`);
      assert.equal(res.status, 400, query);
      const body = (await res.json()) as { detail: string; details?: { field?: string } };
      assert.match(body.detail, message);
      assert.doesNotMatch(JSON.stringify(body), /at .*\.js:\d+/, 'no stack trace');
      void field;
    }
    assert.equal((await fetch(`${app.base}${API}/spend`)).status, 401);
  } finally {
    await app.close();
    await server.close();
  }
});

test("POST governance/check uses no rate-limit quota: a viewer asking cannot exhaust another principal's quota", async () => {
  const server = await startOpenAiServer();
  const app = await start(server, {
    policies: [{ name: 'two-calls', rules: [{ type: 'rate-limit', on: 'model', max: 2, window_seconds: 3600, per: 'principal' }] }],
  });
  try {
    // The attack: a viewer asks, as otto, again and again.
    for (let i = 0; i < 5; i++) {
      const res = await app.post(
        `${API}/governance/check`,
        { agent_id: 'writer', action: 'model_call', context: { principal: 'otto', input: 'hi' } },
        TOKENS.viewer,
      );
      assert.equal(res.status, 200);
      const body = (await res.json()) as { allowed: boolean };
      assert.equal(body.allowed, true, `check ${i + 1} is answered allowed: nothing was used`);
    }
    // otto still has both calls of the window, and the third is refused: the quota is real.
    const c = await chat(app, 'writer');
    assert.equal((await prompt(c, 'one')).type, 'done');
    assert.equal((await prompt(c, 'two')).type, 'done');
    const third = await prompt(c, 'three');
    assert.equal(third.type, 'error');
    assert.match(String(third.message), /refused by policy 'two-calls'/);
    await c.close();
    // A check now says what a run would meet, without using anything.
    const res = await app.post(
      `${API}/governance/check`,
      { agent_id: 'writer', action: 'model_call', context: { principal: 'otto' } },
      TOKENS.viewer,
    );
    assert.equal(((await res.json()) as { allowed: boolean }).allowed, false);
  } finally {
    await app.close();
    await server.close();
  }
});

test('the admin MCP tools fw_spend and fw_budgets answer what the REST reads answer, to a viewer', async () => {
  const server = await startOpenAiServer();
  const dir = mkdtempSync(join(tmpdir(), 'fw-budgets-mcp-'));
  const app = await start(
    server,
    { policies: [], budgets: [{ id: 'writer-daily', scope: 'agent', key: 'writer', soft: { tokens: 10 } }] },
    { 'fw.admin.mcp-tools': true },
    'local-model',
    dir,
    [mcp()],
  );
  const client = new Client({ name: 'budgets-test', version: '1.0.0' });
  try {
    const c = await chat(app, 'writer');
    assert.equal((await prompt(c, 'hello')).type, 'done');
    await c.close();
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.base}/fw/admin/mcp`), { requestInit: { headers: bearer(TOKENS.viewer) } }),
    );
    const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as { type: string; text: string }[])[0]?.text ?? '';
    const spent = JSON.parse(text(await client.callTool({ name: 'fw_spend', arguments: { by: 'model' } }))) as SpendBody;
    assert.deepEqual(
      spent.rows.map((r) => [r.key, r.calls, r.inputTokens, r.outputTokens, r.cachedTokens]),
      [['local-model', 1, 20, 15, 5]],
    );
    assert.deepEqual(spent, await spend(app, 'by=model').then((b) => ({ ...b, since: spent.since, until: spent.until })));
    const listed = JSON.parse(text(await client.callTool({ name: 'fw_budgets', arguments: {} }))) as BudgetsBody;
    assert.deepEqual(listed, await budgets(app));
    assert.equal(listed.budgets[0]?.state, 'soft');
    const bad = await client.callTool({ name: 'fw_spend', arguments: { by: 'team' } });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /'by' must be one of agent, principal, model/);
  } finally {
    await client.close();
    await app.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
