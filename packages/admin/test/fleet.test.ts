/**
 * The fleet in the admin plane (docs/agents.md, "Fleet"): GET /flow, /flow/{id},
 * /coordinators/{name}/health, /journal/{id}/tree and /protocols over real HTTP, behind the gate
 * (a viewer reads them, no credential is refused), their 404s and 400s, the MCP read tools, and
 * CircuitStateChanged on the event stream's recent events.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Framework } from '@fw/runtime';
import { mcp as mcpModule } from '@fw/mcp';
import { Agent, AgentModule, Coordinator, OnPrompt, type CoordinatorContext } from '@fw/agent';
import { admin } from '../dist/index.js';

const VIEWER = 'viewer-token-0123456789';
/** A parsed JSON body, read field by field by the asserts. */
type Json = ReturnType<typeof JSON.parse>;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
let failing = true;

@Agent({ name: 'checker', headless: true })
class Checker {
  @OnPrompt()
  prompt(): string {
    if (failing) throw new Error('checker is down');
    return 'checked';
  }
}

@Agent({ name: 'drafter', headless: true })
class Drafter {
  @OnPrompt()
  prompt(m: string): string {
    return `draft of ${m}`;
  }
}

@Coordinator({ name: 'editor', fleet: ['drafter', 'checker'] })
class Editor {
  @OnPrompt()
  async prompt(message: string, ctx: CoordinatorContext): Promise<string> {
    await ctx.dispatch('drafter', message);
    await ctx.dispatch('checker', message).catch(() => undefined);
    return ctx.coordinationId;
  }
}

test('fleet REST: flow, one coordination flow, coordinator health with breakers, the causal tree, protocols; 400s, 404s, the gate, MCP tools', async () => {
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': '',
    'fw.ai.auto': false,
    'fw.heartbeat.interval': 0,
    'fw.auth.tokens': `vera:viewer:${VIEWER}`,
    'fw.agent.circuit.per-agent': 'checker=2/1h',
  });
  await fw.use(mcpModule());
  const agents = new AgentModule();
  await fw.use(agents);
  [Checker, Drafter, Editor].forEach((c) => agents.mount(c));
  await fw.use(admin());
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}/api/admin`;
  const get = async (path: string, token = VIEWER) => {
    const res = await fetch(base + path, { headers: token ? bearer(token) : {} });
    const type = res.headers.get('content-type') ?? '';
    return {
      status: res.status,
      body: type.includes('json') ? ((await res.json()) as Json) : await res.text(),
      total: res.headers.get('x-total-count'),
    };
  };
  try {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) ids.push(await agents.host.run('editor', { message: `page ${i}` }, new AbortController().signal));

    // --- flow ---
    const flow = await get('/flow?lookbackMinutes=10');
    assert.equal(flow.status, 200);
    assert.equal(flow.body.lookbackMinutes, 10);
    assert.equal(flow.body.truncated, false);
    assert.deepEqual(
      flow.body.nodes.map((n: { id: string; label: string; kind: string }) => `${n.id}/${n.label}/${n.kind}`),
      ['editor/editor/coordinator', 'drafter/drafter/agent', 'checker/checker/agent'],
    );
    const edges = Object.fromEntries(flow.body.edges.map((e: { to: string }) => [e.to, e]));
    assert.deepEqual(Object.keys(edges.drafter).sort(), [
      'averageDurationMs',
      'dispatches',
      'failures',
      'from',
      'p95DurationMs',
      'successes',
      'to',
    ]);
    assert.deepEqual([edges.drafter.dispatches, edges.drafter.successes, edges.drafter.failures], [2, 2, 0]);
    assert.deepEqual([edges.checker.dispatches, edges.checker.successes, edges.checker.failures], [2, 0, 2]);
    assert.equal((await get('/flow')).body.lookbackMinutes, 0, 'no window: the whole journal');
    for (const bad of ['-1', 'ten', '43201', '1.5']) {
      const res = await get(`/flow?lookbackMinutes=${bad}`);
      assert.equal(res.status, 400, bad);
      assert.match(res.body.detail, /'lookbackMinutes' must be an integer from 0 to 43200/);
      assert.equal(res.body.field, 'lookbackMinutes');
      assert.doesNotMatch(JSON.stringify(res.body), /at .*\.js/, 'no stack trace');
    }
    const one = await get(`/flow/${ids[0]}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.coordinationId, ids[0]);
    assert.deepEqual(
      one.body.edges.map((e: { to: string; dispatches: number }) => `${e.to}:${e.dispatches}`),
      ['drafter:1', 'checker:1'],
    );
    assert.equal((await get('/flow/no-such-coordination')).status, 404);

    // --- health: checker's breaker opened after its 2nd failure ---
    const health = await get('/coordinators/editor/health');
    assert.equal(health.status, 200);
    assert.equal(health.body.coordinator, 'editor');
    assert.ok(Date.parse(health.body.timestamp));
    const byName = Object.fromEntries(health.body.agents.map((a: { name: string }) => [a.name, a]));
    assert.deepEqual(
      [byName.checker.available, byName.checker.circuitState, byName.checker.recentFailures, byName.checker.failureThreshold],
      [false, 'OPEN', 2, 2],
    );
    assert.deepEqual([byName.drafter.available, byName.drafter.circuitState, byName.drafter.recentFailures], [true, 'CLOSED', 0]);
    assert.equal((await get('/coordinators/nobody/health')).status, 404);
    assert.equal((await get('/coordinators/drafter/health')).status, 404, 'an agent is not a coordinator');
    // The change was an event, on the admin event stream too.
    const recent = await get('/events/recent?limit=500');
    const changed = (recent.body as { type: string; agent?: string; to?: string }[]).filter((e) => e.type === 'CircuitStateChanged');
    assert.deepEqual(
      changed.map((e) => `${e.agent}:${e.to}`),
      ['checker:OPEN'],
    );

    // A third coordination: the open breaker refuses checker at once (journaled).
    failing = false;
    const third = await agents.host.run('editor', { message: 'page 2' }, new AbortController().signal);
    const log = await get(`/journal/${third}/log`);
    assert.match(log.body, /failure {5}checker .*circuit breaker of coordinator 'editor' is OPEN/);

    // --- the causal tree ---
    const tree = await get(`/journal/${ids[0]}/tree`);
    assert.equal(tree.status, 200);
    assert.equal(tree.total, '1');
    const root = tree.body[0];
    assert.equal(root.kind, 'dispatch');
    assert.equal(root.agent, 'drafter');
    assert.equal(root.parentEventId, null);
    assert.equal(typeof root.eventId, 'string');
    const done = root.children[0];
    assert.deepEqual([done.kind, done.parentEventId], ['completion', root.eventId]);
    assert.deepEqual(
      done.children.map((c: { kind: string; agent: string; children: { kind: string }[] }) => [
        c.kind,
        c.agent,
        c.children.map((x) => x.kind),
      ]),
      [['dispatch', 'checker', ['failure']]],
    );
    assert.equal((await get('/journal/no-such-coordination/tree')).status, 404);

    // --- protocols ---
    const protocols = await get('/protocols');
    assert.equal(protocols.status, 200);
    assert.deepEqual(
      protocols.body.map((p: { name: string; direction: string }) => `${p.name}:${p.direction}`),
      ['a2a:inbound', 'agui:inbound', 'chat:inbound', 'mcp-server:inbound', 'mcp-server:inbound'],
    );
    assert.deepEqual(
      protocols.body
        .filter((p: { name: string }) => p.name === 'mcp-server')
        .flatMap((p: { endpoints: string[] }) => p.endpoints)
        .sort(),
      ['/fw/admin/mcp', '/mcp'],
    );
    assert.deepEqual(protocols.body[0].agents, ['checker', 'drafter', 'editor']);

    // --- the gate: no credential, no fleet ---
    for (const path of ['/flow', `/flow/${ids[0]}`, '/coordinators/editor/health', `/journal/${ids[0]}/tree`, '/protocols']) {
      assert.equal((await get(path, '')).status, 401, path);
    }

    // --- OpenAPI ---
    const doc = (await get('/openapi.json')).body;
    for (const path of ['/flow', '/flow/{coordinationId}', '/coordinators/{name}/health', '/journal/{coordinationId}/tree', '/protocols']) {
      assert.ok(doc.paths[path]?.get, path);
    }

    // --- MCP read tools for a viewer ---
    const client = new Client({ name: 'fleet-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/fw/admin/mcp`), { requestInit: { headers: bearer(VIEWER) } }),
    );
    try {
      const call = async (name: string, args: Record<string, unknown> = {}) => {
        const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
        return { error: r.isError === true, text: r.content.map((c) => c.text).join('') };
      };
      const mcpFlow = JSON.parse((await call('fw_flow', { lookbackMinutes: 10 })).text);
      assert.equal(mcpFlow.edges.length, 2);
      assert.match((await call('fw_flow', { lookbackMinutes: -3 })).text, /bad_request/);
      assert.equal(JSON.parse((await call('fw_flow', { coordinationId: ids[0] })).text).coordinationId, ids[0]);
      const mcpHealth = JSON.parse((await call('fw_coordinator_health', { coordinator: 'editor' })).text);
      assert.equal(mcpHealth.agents.find((a: { name: string }) => a.name === 'checker').circuitState, 'OPEN');
      const missing = await call('fw_coordinator_health', { coordinator: 'nobody' });
      assert.equal(missing.error, true);
      assert.match(missing.text, /not_found/);
      assert.equal(JSON.parse((await call('fw_journal_tree', { coordinationId: ids[0] })).text)[0].kind, 'dispatch');
      assert.ok(JSON.parse((await call('fw_list_protocols')).text).some((p: { name: string }) => p.name === 'a2a'));
    } finally {
      await client.close();
    }
  } finally {
    await fw.close();
  }
});
