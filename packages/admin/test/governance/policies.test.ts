/**
 * Issue 26 item 2 over real sockets: policies from a JSON file enforced through the run hooks (a
 * denied tool call is answered to the model, which says so; an argument constraint; a rate limit
 * at its edge; content rules on model input and output; a dry-run policy counts and denies
 * nothing), the decision log, reload (a bad file: 400 and the old policies still apply; a good
 * one applies at once), the check endpoint's shape, a code policy, and the roles.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Framework, type FrameworkModule } from '@fw/runtime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcp } from '@fw/mcp';
import { Agent, AgentModule, AgentTool, type AiRequest, type AiStreamPart, type ModelProvider } from '@fw/agent';
import { waitFor } from '@fw/testing';
import { admin, type AdminService, type AuditEntry, type DecisionRecord, type PolicyFile, type PolicySummary } from '../../dist/index.js';
import { adminEvents, API, AUTH_TOKENS, bearer, chat, TOKENS } from './apps.js';

/**
 * A prompt `call <tool> <json>` makes the model call that tool; once it has the tool's answer it
 * repeats it (`tool said: …`), so the client reads what the model was told. `say <text>` streams
 * the text in two parts; anything else is answered `ok`.
 */
class ToolModel implements ModelProvider {
  readonly name = 'tool-local';
  readonly priority = 5;
  readonly capabilities = ['streaming', 'tools'];
  readonly models = ['tool-1'];
  /** Every tool answer the model was given. */
  readonly toolAnswers: string[] = [];
  isAvailable(): boolean {
    return true;
  }
  async *stream(request: AiRequest): AsyncIterable<AiStreamPart> {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') {
      this.toolAnswers.push(last.content);
      yield { type: 'text', delta: `tool said: ${last.content}` };
      yield { type: 'finish', reason: 'stop' };
      return;
    }
    const prompt = String(last?.content ?? '');
    const call = /^call (\w+) (.*)$/.exec(prompt);
    if (call) {
      yield { type: 'tool-call', toolCallId: randomUUID(), toolName: call[1] as string, input: JSON.parse(call[2] as string) };
      yield { type: 'finish', reason: 'tool-calls' };
      return;
    }
    if (prompt.startsWith('say ')) {
      const text = prompt.slice(4);
      yield { type: 'text', delta: text.slice(0, 3) };
      yield { type: 'text', delta: text.slice(3) };
      yield { type: 'finish', reason: 'stop' };
      return;
    }
    yield { type: 'text', delta: 'ok' };
    yield { type: 'finish', reason: 'stop' };
  }
}

/** What each tool really did (a refused call must not run). */
const ran: string[] = [];

@Agent({ name: 'banker', description: 'moves money' })
class Banker {
  @AgentTool({ description: 'Runs a command', input: { type: 'object', properties: { cmd: { type: 'string' } } } })
  shell(input: { cmd: string }): string {
    ran.push(`shell ${input.cmd}`);
    return `ran ${input.cmd}`;
  }
  @AgentTool({ description: 'Moves money', input: { type: 'object', properties: { amount: { type: 'number' }, to: { type: 'string' } } } })
  transfer(input: { amount: number; to: string }): string {
    ran.push(`transfer ${input.amount}`);
    return `sent ${input.amount} to ${input.to}`;
  }
  @AgentTool({ description: 'Looks a word up', input: { type: 'object', properties: { word: { type: 'string' } } } })
  lookup(input: { word: string }): string {
    ran.push(`lookup ${input.word}`);
    return `definition of ${input.word}`;
  }
}

const POLICIES: PolicyFile = {
  policies: [
    { name: 'no-shell', description: 'no shell for anyone', agents: ['bank*'], rules: [{ type: 'deny-tools', tools: ['shell'] }] },
    { name: 'small-transfers', rules: [{ type: 'argument', tool: 'transfer', argument: 'amount', minimum: 0, maximum: 100 }] },
    { name: 'lookups', rules: [{ type: 'rate-limit', on: 'tool', tools: ['lookup'], max: 2, window_seconds: 3600, per: 'agent' }] },
    { name: 'no-secrets-in', rules: [{ type: 'content', on: 'input', pattern: 'password', flags: 'i' }] },
    { name: 'no-secrets-out', rules: [{ type: 'content', on: 'output', pattern: 'sk-[a-z0-9]{6}', reason: 'a key would leak' }] },
    { name: 'watch-transfers', mode: 'dry-run', principals: ['otto'], rules: [{ type: 'deny-tools', tools: ['transfer'] }] },
  ],
};

interface PolicyApp {
  fw: Framework;
  base: string;
  ws: string;
  model: ToolModel;
  file: string;
  post(path: string, body?: unknown, token?: string): Promise<Response>;
  get(path: string, token?: string): Promise<Response>;
  /** An A2A message/send as the operator (principal otto); the JSON-RPC answer as text. */
  ask(text: string): Promise<string>;
  close(): Promise<void>;
}

/** This helper's port range (22000-22999), one port per app, tried upward when one is taken. */
let nextPort = 22100;

async function listen(fw: Framework): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = nextPort++;
    try {
      return (await fw.listen(port, '127.0.0.1')).port;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
  throw new Error('no free port from 22100');
}

async function start(file: unknown = POLICIES, props: Record<string, unknown> = {}, first: FrameworkModule[] = []): Promise<PolicyApp> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-policies-'));
  const path = join(dir, 'policies.json');
  writeFileSync(path, typeof file === 'string' ? file : JSON.stringify(file));
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': '',
    'fw.ai.auto': false,
    'fw.heartbeat.interval': 0,
    'fw.auth.tokens': AUTH_TOKENS,
    'fw.admin.mcp-tools': false,
    'fw.admin.governance.policy-file': path,
    ...props,
  });
  for (const m of first) await fw.use(m);
  const model = new ToolModel();
  const agents = new AgentModule({ providers: [model] });
  await fw.use(agents);
  agents.mount(Banker);
  try {
    await fw.use(admin());
  } catch (err) {
    await fw.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const port = await listen(fw);
  const base = `http://127.0.0.1:${port}`;
  const post = (p: string, body?: unknown, token: string = TOKENS.operator) =>
    fetch(base + p, {
      method: 'POST',
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...bearer(token) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  return {
    fw,
    base,
    ws: `ws://127.0.0.1:${port}`,
    model,
    file: path,
    post,
    get: (p, token = TOKENS.viewer) => fetch(base + p, { headers: bearer(token) }),
    ask: async (text) => {
      const res = await post('/fw/agent/banker/a2a', {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }] } },
      });
      return res.text();
    },
    close: async () => {
      await fw.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function decisions(app: PolicyApp, limit = 100): Promise<DecisionRecord[]> {
  const res = await app.get(`${API}/governance/decisions?limit=${limit}`);
  assert.equal(res.status, 200);
  return (await res.json()) as DecisionRecord[];
}

async function policies(app: PolicyApp): Promise<{ file: string; digest: string; policies: PolicySummary[] }> {
  const res = await app.get(`${API}/governance/policies`);
  assert.equal(res.status, 200);
  return (await res.json()) as { file: string; digest: string; policies: PolicySummary[] };
}

async function audit(app: PolicyApp, action: string): Promise<AuditEntry[]> {
  const res = await app.get(`${API}/audit?limit=1000&action=${encodeURIComponent(action)}`);
  assert.equal(res.status, 200);
  return (await res.json()) as AuditEntry[];
}

test('a denied tool is refused, the model is told so and the tool does not run; the decision is logged and evented; other tools run', async () => {
  const app = await start();
  const stream = await adminEvents(app);
  ran.length = 0;
  try {
    const answer = await app.ask('call shell {"cmd":"rm -rf /"}');
    assert.match(answer, /tool said: .*refused by policy 'no-shell': the tool 'shell' is denied/);
    assert.match(app.model.toolAnswers.at(-1) ?? '', /refused by policy 'no-shell'/);
    assert.deepEqual(ran, [], 'the refused tool did not run');

    // Newest first: the model's next turn (allowed) is logged after the refusal.
    const log = await decisions(app);
    assert.equal(log[0]?.action, 'model_call');
    const newest = log.find((d) => d.decision === 'deny');
    assert.equal(newest?.policy, 'no-shell');
    assert.equal(newest?.decision, 'deny');
    assert.equal(newest?.source, 'run');
    assert.equal(newest?.agent, 'banker');
    assert.equal(newest?.action, 'tool_call');
    assert.equal(newest?.context.tool, 'shell');
    assert.deepEqual(newest?.context.arguments, { cmd: 'rm -rf /' });
    assert.equal(newest?.context.principal, 'otto');
    assert.equal(typeof newest?.evaluation_ms, 'number');
    assert.match(newest?.reason ?? '', /'shell' is denied/);
    const event = await waitFor('the PolicyDenied event', () => stream.events.find((e) => e.type === 'PolicyDenied'), 5000);
    assert.equal(event.policy, 'no-shell');
    assert.equal(event.tool, 'shell');

    assert.match(await app.ask('call transfer {"amount":5,"to":"bob"}'), /tool said: sent 5 to bob/);
    assert.deepEqual(ran, ['transfer 5']);
    const listed = (await policies(app)).policies.find((p) => p.name === 'no-shell');
    assert.equal(listed?.denied, 1);
  } finally {
    await stream.close();
    await app.close();
  }
});

test('an argument constraint refuses a value past its bound and lets one within it through', async () => {
  const app = await start();
  ran.length = 0;
  try {
    assert.match(await app.ask('call transfer {"amount":100,"to":"bob"}'), /sent 100 to bob/);
    const refused = await app.ask('call transfer {"amount":100.5,"to":"bob"}');
    assert.match(refused, /refused by policy 'small-transfers': the argument 'amount' of 'transfer' is above 100/);
    assert.match(await app.ask('call transfer {"amount":"lots","to":"bob"}'), /'amount' of 'transfer' must be a number/);
    assert.deepEqual(ran, ['transfer 100']);
  } finally {
    await app.close();
  }
});

test('a rate limit lets exactly its maximum through, refuses the next, and a refused call uses no quota', async () => {
  const app = await start();
  ran.length = 0;
  try {
    assert.match(await app.ask('call lookup {"word":"a"}'), /definition of a/);
    assert.match(await app.ask('call lookup {"word":"b"}'), /definition of b/);
    assert.match(
      await app.ask('call lookup {"word":"c"}'),
      /refused by policy 'lookups': the rate limit of 2 tool calls per 3600 s \(per agent\) is reached/,
    );
    assert.match(await app.ask('call lookup {"word":"d"}'), /refused by policy 'lookups'/);
    assert.deepEqual(ran, ['lookup a', 'lookup b']);
    // Other tools are not counted.
    assert.match(await app.ask('call transfer {"amount":1,"to":"bob"}'), /sent 1 to bob/);
  } finally {
    await app.close();
  }
});

test('a dry-run policy counts and logs what it would have denied and denies nothing', async () => {
  const app = await start();
  ran.length = 0;
  try {
    assert.match(await app.ask('call transfer {"amount":7,"to":"bob"}'), /sent 7 to bob/);
    assert.deepEqual(ran, ['transfer 7']);
    const watch = (await policies(app)).policies.find((p) => p.name === 'watch-transfers');
    assert.equal(watch?.mode, 'dry-run');
    assert.equal(watch?.wouldDeny, 1);
    assert.equal(watch?.denied, 0);
    const log = await decisions(app);
    const dry = log.find((d) => d.decision === 'dry-run');
    assert.equal(dry?.policy, 'watch-transfers');
    assert.match(dry?.reason ?? '', /'transfer' is denied/);
    // The same call was allowed in the end (logged after the dry-run hit: newest first).
    assert.ok(log.indexOf(log.find((d) => d.decision === 'allow' && d.context.tool === 'transfer')!) < log.indexOf(dry!));
    // The check endpoint says it too.
    const check = (await (
      await app.post(`${API}/governance/check`, {
        agent_id: 'banker',
        action: 'transfer',
        context: { principal: 'otto', arguments: { amount: 1 } },
      })
    ).json()) as Record<string, unknown>;
    assert.equal(check.allowed, true);
    assert.deepEqual(check.dry_run, ['watch-transfers']);
  } finally {
    await app.close();
  }
});

test('content rules: a model input that matches refuses the model call; a model output that matches stops the stream', async () => {
  const app = await start();
  try {
    const refused = await app.ask('my Password is hunter2');
    assert.match(refused, /refused by policy 'no-secrets-in': the model input matches a forbidden pattern/);
    assert.doesNotMatch(refused, /"completed"/);
    const leaked = JSON.parse(await app.ask('say here: sk-abcdef and more')) as {
      result: { status: { state: string; message: { parts: { text: string }[] } }; artifacts?: unknown[] };
    };
    assert.equal(leaked.result.status.state, 'failed');
    assert.equal(leaked.result.status.message.parts[0]?.text, "refused by policy 'no-secrets-out': a key would leak");
    assert.doesNotMatch(JSON.stringify(leaked.result.artifacts ?? []), /sk-abcdef/);
    assert.match(await app.ask('say nothing secret'), /nothing secret/);
  } finally {
    await app.close();
  }
});

test('reload: a bad file answers 400 and changes nothing (the old policies still apply); a good file applies at once; a viewer is refused; audited and evented', async () => {
  const app = await start();
  const stream = await adminEvents(app);
  ran.length = 0;
  try {
    const before = await policies(app);
    assert.equal(before.policies.length, 6);
    assert.match(before.digest, /^[0-9a-f]{64}$/);
    for (const p of before.policies) assert.match(p.digest, /^[0-9a-f]{64}$/);

    // Not JSON, then not the schema (an unknown rule kind, a bad pattern): 400 with what is wrong.
    writeFileSync(app.file, '{"policies": [');
    const notJson = await app.post(`${API}/governance/reload`);
    assert.equal(notJson.status, 400);
    assert.match(((await notJson.json()) as { detail: string }).detail, /not JSON/);
    writeFileSync(
      app.file,
      JSON.stringify({
        policies: [
          { name: 'x', rules: [{ type: 'deny-everything' }] },
          { name: 'y', rules: [{ type: 'content', on: 'input', pattern: '(' }] },
        ],
      }),
    );
    const bad = await app.post(`${API}/governance/reload`);
    assert.equal(bad.status, 400);
    const problem = (await bad.json()) as { code: string; problems?: string[] };
    assert.equal(problem.code, 'invalid_policy_file');
    assert.ok(
      problem.problems?.some((p) => p.startsWith('/policies/0/rules/0/type')),
      JSON.stringify(problem),
    );
    const after = await policies(app);
    assert.equal(after.digest, before.digest, 'nothing changed');
    assert.match(await app.ask('call shell {"cmd":"ls"}'), /refused by policy 'no-shell'/);

    // A viewer may not reload (refused before the file is read).
    assert.equal((await app.post(`${API}/governance/reload`, undefined, TOKENS.viewer)).status, 403);

    // A good file: shell allowed now, lookup denied, at once.
    writeFileSync(app.file, JSON.stringify({ policies: [{ name: 'no-lookup', rules: [{ type: 'deny-tools', tools: ['lookup'] }] }] }));
    const good = await app.post(`${API}/governance/reload`);
    assert.equal(good.status, 200);
    const reloaded = (await good.json()) as { digest: string; policies: PolicySummary[]; file: string };
    assert.deepEqual(
      reloaded.policies.map((p) => p.name),
      ['no-lookup'],
    );
    assert.notEqual(reloaded.digest, before.digest);
    assert.equal(reloaded.file, app.file);
    assert.match(await app.ask('call shell {"cmd":"ls"}'), /tool said: ran ls/);
    assert.match(await app.ask('call lookup {"word":"a"}'), /refused by policy 'no-lookup'/);
    assert.deepEqual(ran, ['shell ls']);

    const records = await audit(app, 'governance.reload');
    assert.ok(
      records.some((e) => e.outcome === 'invalid' && e.principal === 'otto'),
      'the bad file is audited as invalid',
    );
    assert.ok(
      records.some((e) => e.outcome === 'refused' && e.principal === 'vera'),
      'the viewer is audited as refused',
    );
    assert.ok(
      records.some((e) => e.outcome === 'allowed' && e.principal === 'otto'),
      'the reload is audited',
    );
    const event = await waitFor('the PoliciesReloaded event', () => stream.events.find((e) => e.type === 'PoliciesReloaded'), 5000);
    assert.deepEqual(event.policies, ['no-lookup']);
    assert.equal(event.operator, 'otto');
  } finally {
    await stream.close();
    await app.close();
  }
});

test("check answers the Agent Governance Toolkit's shape, for a viewer too; a malformed body is 400", async () => {
  const app = await start();
  try {
    const check = async (body: unknown, token: string = TOKENS.viewer) => {
      const res = await app.post(`${API}/governance/check`, body, token);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const denied = await check({ agent_id: 'banker', action: 'tool_call', context: { tool_name: 'shell', arguments: { cmd: 'ls' } } });
    assert.equal(denied.status, 200);
    assert.deepEqual(Object.keys(denied.body).sort(), ['allowed', 'decision', 'evaluation_ms', 'matched_policy', 'reason']);
    assert.equal(denied.body.allowed, false);
    assert.equal(denied.body.decision, 'deny');
    assert.equal(denied.body.matched_policy, 'no-shell');
    assert.match(String(denied.body.reason), /'shell' is denied/);
    assert.equal(typeof denied.body.evaluation_ms, 'number');

    // The action may name the tool; another agent is not governed by 'no-shell' (agents: bank*).
    assert.equal((await check({ agent_id: 'banker', action: 'shell' })).body.allowed, false);
    const other = await check({ agent_id: 'writer', action: 'shell', context: {} });
    assert.deepEqual([other.body.allowed, other.body.decision, other.body.matched_policy], [true, 'allow', null]);
    const input = await check({ agent_id: 'writer', action: 'model_call', context: { input: 'the PASSWORD' } });
    assert.equal(input.body.matched_policy, 'no-secrets-in');
    assert.equal(
      (await check({ agent_id: 'banker', action: 'tool_call', context: { tool_name: 'transfer', arguments: { amount: 1000 } } })).body
        .matched_policy,
      'small-transfers',
    );
    const logged = await decisions(app, 1);
    assert.equal(logged[0]?.source, 'check');

    assert.equal((await check({ action: 'shell' })).status, 400);
    assert.equal((await check({ agent_id: 'banker', action: 'shell', context: [] })).status, 400);
    assert.equal(
      (await fetch(`${app.base}${API}/governance/check`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }))
        .status,
      401,
    );
  } finally {
    await app.close();
  }
});

test('a code policy is evaluated after the file, listed with a digest, and removable; the decision log is a bounded ring', async () => {
  const app = await start({ policies: [] }, { 'fw.admin.governance.decision-log-size': 3 });
  ran.length = 0;
  try {
    const service = app.fw.services.get('admin') as AdminService;
    const remove = service.governance.usePolicy({
      name: 'business-hours',
      evaluate: (r) =>
        r.tool === 'transfer' && r.principal === 'otto' ? { decision: 'deny', reason: 'otto may not transfer' } : undefined,
    });
    assert.match(await app.ask('call transfer {"amount":1,"to":"bob"}'), /refused by policy 'business-hours': otto may not transfer/);
    const listed = (await policies(app)).policies;
    assert.deepEqual(
      listed.map((p) => [p.name, p.kind, p.denied]),
      [['business-hours', 'code', 1]],
    );
    assert.match(listed[0]?.digest ?? '', /^[0-9a-f]{64}$/);
    remove();
    assert.match(await app.ask('call transfer {"amount":1,"to":"bob"}'), /sent 1 to bob/);
    assert.deepEqual(ran, ['transfer 1']);

    // No policy: nothing logged. Then more decisions than the ring holds: the newest 3, newest first.
    service.governance.usePolicy({ name: 'allow-all', evaluate: () => undefined });
    for (const word of ['a', 'b', 'c', 'd'])
      await app.post(`${API}/governance/check`, { agent_id: 'banker', action: 'lookup', context: { arguments: { word } } });
    const log = await app.get(`${API}/governance/decisions?limit=10`);
    assert.equal(log.headers.get('x-total-count'), '3');
    const words = ((await log.json()) as DecisionRecord[]).map((d) => (d.context.arguments as { word: string }).word);
    assert.deepEqual(words, ['d', 'c', 'b']);
    assert.equal((await app.get(`${API}/governance/decisions?limit=0`)).status, 400);
  } finally {
    await app.close();
  }
});

test('a policy file that is not valid stops the start (a node does not run without the policies it was given)', async () => {
  await assert.rejects(start({ policies: [{ name: 'x', rules: [] }] }), /invalid_policy_file|rules/);
  await assert.rejects(
    start({
      policies: [
        { name: 'a', rules: [{ type: 'deny-tools', tools: ['x'] }] },
        { name: 'a', rules: [{ type: 'deny-tools', tools: ['y'] }] },
      ],
    }),
    /used twice/,
  );
});

test('the admin MCP tools list, check and log for a viewer; reload needs an operator, a bad file is an error and is audited as mcp', async () => {
  const app = await start(POLICIES, { 'fw.admin.mcp-tools': true, 'fw.admin.mcp-write-tools': true }, [mcp()]);
  const connect = async (token: string): Promise<Client> => {
    const client = new Client({ name: 'policy-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.base}/fw/admin/mcp`), { requestInit: { headers: bearer(token) } }),
    );
    return client;
  };
  const textOf = (r: unknown): string => ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;
  const viewer = await connect(TOKENS.viewer);
  const operator = await connect(TOKENS.operator);
  try {
    const listed = JSON.parse(textOf(await viewer.callTool({ name: 'fw_governance_policies', arguments: {} }))) as {
      policies: PolicySummary[];
    };
    assert.equal(listed.policies.length, 6);
    const check = await viewer.callTool({
      name: 'fw_governance_check',
      arguments: { agent_id: 'banker', action: 'tool_call', context: { tool_name: 'shell' } },
    });
    assert.deepEqual(
      (({ allowed, matched_policy }) => ({ allowed, matched_policy }))(JSON.parse(textOf(check)) as Record<string, unknown>),
      {
        allowed: false,
        matched_policy: 'no-shell',
      },
    );
    const log = JSON.parse(textOf(await viewer.callTool({ name: 'fw_governance_decisions', arguments: { limit: 5 } }))) as DecisionRecord[];
    assert.equal(log[0]?.policy, 'no-shell');

    const refused = await viewer.callTool({ name: 'fw_governance_reload', arguments: {} });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /forbidden/);
    writeFileSync(app.file, '{"policies": 3}');
    const bad = await operator.callTool({ name: 'fw_governance_reload', arguments: {} });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /invalid_policy_file/);
    assert.equal(JSON.parse(textOf(await viewer.callTool({ name: 'fw_governance_policies', arguments: {} }))).policies.length, 6);
    writeFileSync(app.file, JSON.stringify({ policies: [] }));
    const good = await operator.callTool({ name: 'fw_governance_reload', arguments: {} });
    assert.notEqual(good.isError, true, textOf(good));
    assert.deepEqual((JSON.parse(textOf(good)) as { policies: unknown[] }).policies, []);

    const records = await audit(app, 'governance.reload');
    for (const [outcome, principal] of [
      ['refused', 'vera'],
      ['invalid', 'otto'],
      ['allowed', 'otto'],
    ])
      assert.ok(
        records.some((e) => e.source === 'mcp' && e.outcome === outcome && e.principal === principal),
        `${outcome} ${principal}: ${JSON.stringify(records)}`,
      );
  } finally {
    await viewer.close();
    await operator.close();
    await app.close();
  }
});

test('a dry-run output rule counts an answer once (not once per streamed part); a code policy that watches output can stop the stream', async () => {
  const app = await start({
    policies: [{ name: 'watch-out', mode: 'dry-run', rules: [{ type: 'content', on: 'output', pattern: 'her' }] }],
  });
  try {
    // Two parts, and the answer so far matches after each.
    assert.match(await app.ask('say here and there'), /"completed".*here and there/s);
    const watch = (await policies(app)).policies.find((p) => p.name === 'watch-out');
    assert.equal(watch?.wouldDeny, 1);
    assert.equal((await decisions(app)).filter((d) => d.decision === 'dry-run').length, 1);

    const service = app.fw.services.get('admin') as AdminService;
    service.governance.usePolicy({
      name: 'no-shouting',
      watchesOutput: true,
      evaluate: (r) =>
        r.action === 'model_output' && /[A-Z]{5}/.test(r.content ?? '') ? { decision: 'deny', reason: 'no shouting' } : undefined,
    });
    assert.match(await app.ask('say calm'), /"completed"/);
    assert.match(await app.ask('say ok, HELLO THERE'), /refused by policy 'no-shouting': no shouting/);
  } finally {
    await app.close();
  }
});

test('on a chat socket: a denied tool is told to the model and the turn completes; a denied input is a clear error frame and the socket goes on', async () => {
  const app = await start();
  const client = await chat(app, 'banker').catch(async (err: unknown) => {
    await app.close();
    throw err;
  });
  ran.length = 0;
  try {
    let from = client.frames.length;
    client.prompt('call shell {"cmd":"ls"}');
    const done = await client.next('done', from);
    assert.match(String(done.text), /tool said: .*refused by policy 'no-shell'/);
    assert.deepEqual(ran, []);

    from = client.frames.length;
    client.prompt('the password is 1234');
    const error = await client.next('error', from);
    assert.equal(error.code, 'policy_denied');
    assert.match(String(error.message), /refused by policy 'no-secrets-in'/);

    from = client.frames.length;
    client.prompt('hello');
    assert.equal((await client.next('done', from)).text, 'ok');
  } finally {
    await client.close();
    await app.close();
  }
});
