/**
 * Agent state in the admin plane (docs/agents.md, "Agent state"): a chat session's conversation
 * read and cleared, an agent's facts listed, added and removed, over real HTTP and the admin MCP
 * tools. Content role for every route, the operator's audited `agent-state` action for the
 * writes (a viewer is refused), the limits at their edge, 400s and 404s.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Framework } from '@fw/runtime';
import { mcp as mcpModule } from '@fw/mcp';
import { Agent, AgentModule, OnPrompt, type AgentContext, type AiRequest, type AiStreamPart, type ModelProvider } from '@fw/agent';
import { admin } from '../dist/index.js';

const VIEWER = 'viewer-token-0123456789';
const OPERATOR = 'operator-token-0123456789';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
type Json = ReturnType<typeof JSON.parse>;

@Agent({ name: 'concierge', headless: true, memory: true })
class Concierge {
  @OnPrompt()
  async prompt(_m: string, ctx: AgentContext): Promise<string> {
    return (await ctx.memory!.facts()).map((f) => f.content).join('|');
  }
}

/** No prompt handler: the model answers, and is sent the agent's facts. */
@Agent({ name: 'recall', headless: true, memory: true })
class Recall {}

@Agent({ name: 'plain', headless: true })
class Plain {}

/** Records the requests it gets; answers "ok". */
class Recorder implements ModelProvider {
  readonly name = 'recorder';
  readonly priority = 5;
  readonly capabilities = ['streaming'];
  readonly models = ['rec-1'];
  requests: AiRequest[] = [];
  isAvailable(): boolean {
    return true;
  }
  async *stream(request: AiRequest): AsyncIterable<AiStreamPart> {
    this.requests.push(structuredClone(request));
    yield { type: 'text', delta: 'ok' };
    yield { type: 'finish', reason: 'stop' };
  }
}

test('agent state REST and MCP: conversation read and clear, facts list/add/remove, roles, audit, limits', async () => {
  const model = new Recorder();
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': '',
    'fw.ai.auto': false,
    'fw.heartbeat.interval': 0,
    'fw.auth.tokens': `vera:viewer:${VIEWER},otto:operator:${OPERATOR}`,
    'fw.admin.mcp-write-tools': true,
    'fw.agent.memory.max-facts': 2,
    'fw.agent.memory.max-fact-chars': 20,
  });
  await fw.use(mcpModule());
  const agents = new AgentModule({ providers: [model] });
  await fw.use(agents);
  [Concierge, Recall, Plain].forEach((c) => agents.mount(c));
  await fw.use(admin());
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}/api/admin`;
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method,
      headers: { ...bearer(token), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
  };
  try {
    // A chat session of the concierge with two turns, in the store.
    const session = agents.host.sessions.start('concierge', null, 'principal:otto');
    await agents.host.sessions.remember(session, { role: 'user', content: 'book a table' }, { role: 'assistant', content: 'done' });
    const path = `/agents/concierge/conversation/${session.id}`;

    // --- conversation: read (content role) ---
    const read = await call('GET', path, OPERATOR);
    assert.equal(read.status, 200);
    assert.deepEqual(
      [
        read.body.agentName,
        read.body.sessionId,
        read.body.live,
        read.body.messages.map((m: { role: string; content: string }) => `${m.role}:${m.content}`),
      ],
      ['concierge', session.id, true, ['user:book a table', 'assistant:done']],
    );
    assert.equal(read.body.messages[0].seq, 1);
    const viewerRead = await call('GET', path, VIEWER);
    assert.deepEqual([viewerRead.status, viewerRead.body.code], [403, 'content_forbidden']);
    assert.equal((await call('GET', '/agents/concierge/conversation/no-such-session', OPERATOR)).status, 404);
    assert.equal((await call('GET', `/agents/plain/conversation/${session.id}`, OPERATOR)).status, 404, "another agent's session");

    // --- conversation: clear (operator, audited) ---
    const refused = await call('DELETE', path, VIEWER);
    assert.deepEqual([refused.status, refused.body.code], [403, 'forbidden']);
    const cleared = await call('DELETE', path, OPERATOR);
    assert.equal(cleared.status, 200);
    assert.deepEqual(cleared.body, { agentName: 'concierge', sessionId: session.id, cleared: 2 });
    assert.deepEqual((await call('GET', path, OPERATOR)).body.messages, []);
    assert.deepEqual(session.history, [], 'the live session forgets too');
    assert.equal((await call('DELETE', '/agents/concierge/conversation/no-such-session', OPERATOR)).status, 404);

    // --- facts ---
    const empty = await call('GET', '/agents/concierge/facts', OPERATOR);
    assert.deepEqual([empty.status, empty.body], [200, []]);
    const added = await call('POST', '/agents/concierge/facts', OPERATOR, { content: 'likes tea' });
    assert.equal(added.status, 201);
    assert.deepEqual([added.body.agent, added.body.content, added.body.source], ['concierge', 'likes tea', 'principal:otto']);
    assert.ok(Date.parse(added.body.createdAt));
    // Edge of fw.agent.memory.max-fact-chars (20): 20 characters pass, 21 do not.
    assert.equal((await call('POST', '/agents/concierge/facts', OPERATOR, { content: 'x'.repeat(20) })).status, 201);
    const tooLong = await call('POST', '/agents/concierge/facts', OPERATOR, { content: 'y'.repeat(21) });
    assert.deepEqual([tooLong.status, tooLong.body.field], [400, 'content']);
    assert.match(tooLong.body.detail, /at most 20 characters/);
    // Edge of fw.agent.memory.max-facts (2): the third is refused until one is removed.
    const full = await call('POST', '/agents/concierge/facts', OPERATOR, { content: 'third' });
    assert.deepEqual([full.status, full.body.code], [409, 'memory_full']);
    const missing = await call('POST', '/agents/concierge/facts', OPERATOR, {});
    assert.deepEqual([missing.status, missing.body.field], [400, 'content']);
    assert.equal((await call('POST', '/agents/concierge/facts', VIEWER, { content: 'nope' })).status, 403);
    const list = await call('GET', '/agents/concierge/facts', OPERATOR);
    assert.deepEqual(
      list.body.map((f: { content: string }) => f.content),
      ['x'.repeat(20), 'likes tea'],
      'newest first',
    );
    assert.equal((await call('GET', '/agents/concierge/facts', VIEWER)).status, 403);
    const noMemory = await call('GET', '/agents/plain/facts', OPERATOR);
    assert.deepEqual([noMemory.status, noMemory.body.code], [404, 'no_memory']);
    assert.equal((await call('GET', '/agents/nobody/facts', OPERATOR)).status, 404);

    // The agent reads them through ctx.memory.
    assert.equal(
      await agents.host.run('concierge', { message: 'what do you know?' }, new AbortController().signal),
      `${'x'.repeat(20)}|likes tea`,
    );

    const removed = await call('DELETE', `/agents/concierge/facts/${added.body.id}`, OPERATOR);
    assert.deepEqual([removed.status, removed.body], [200, { removed: added.body.id }]);
    assert.equal((await call('DELETE', `/agents/concierge/facts/${added.body.id}`, OPERATOR)).status, 404);
    assert.equal((await call('DELETE', `/agents/concierge/facts/${added.body.id}`, VIEWER)).status, 403);

    // A model-answered agent with memory is sent its facts.
    assert.equal((await call('POST', '/agents/recall/facts', OPERATOR, { content: 'prefers window seats' })).status, 201);
    await agents.host.run('recall', { message: 'seat?' }, new AbortController().signal);
    const system = model.requests
      .at(-1)!
      .messages.filter((m) => m.role === 'system')
      .map((m) => m.content);
    assert.deepEqual(system, ['Facts you remember:\n- prefers window seats']);

    // --- audit and events ---
    const audit = await call('GET', '/audit?action=agent-state', OPERATOR);
    const outcomes = (audit.body as { outcome: string; target: string }[]).map((e) => e.outcome);
    assert.ok(outcomes.includes('allowed'));
    assert.ok(outcomes.includes('refused'), 'the viewer refusals are audited');
    const recent = await call('GET', '/events/recent?limit=500', OPERATOR);
    assert.ok(
      (recent.body as { type: string; action?: string }[]).some((e) => e.type === 'ControlActionExecuted' && e.action === 'agent-state'),
    );
    const session2 = await call('GET', '/session', VIEWER);
    assert.equal(session2.body.permissions['agent-state'], false);
    assert.equal((await call('GET', '/session', OPERATOR)).body.permissions['agent-state'], true);

    // --- OpenAPI ---
    const doc = (await call('GET', '/openapi.json', VIEWER)).body;
    assert.ok(
      doc.paths['/agents/{agentName}/conversation/{sessionId}']?.get && doc.paths['/agents/{agentName}/conversation/{sessionId}']?.delete,
    );
    assert.ok(doc.paths['/agents/{agentName}/facts']?.get && doc.paths['/agents/{agentName}/facts']?.post);
    assert.ok(doc.paths['/agents/{agentName}/facts/{factId}']?.delete);

    // --- MCP tools ---
    const connect = async (token: string) => {
      const client = new Client({ name: 'state-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/fw/admin/mcp`), { requestInit: { headers: bearer(token) } }),
      );
      return async (name: string, args: Record<string, unknown>) => {
        const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
        return { error: r.isError === true, text: r.content.map((c) => c.text).join(''), close: () => client.close() };
      };
    };
    const op = await connect(OPERATOR);
    const viaMcp = await op('fw_add_fact', { agent: 'concierge', content: 'allergic to nuts' });
    assert.equal(viaMcp.error, false);
    const fact = JSON.parse(viaMcp.text);
    assert.deepEqual(
      JSON.parse((await op('fw_list_facts', { agent: 'concierge' })).text).map((f: { content: string }) => f.content),
      ['allergic to nuts', 'x'.repeat(20)],
    );
    assert.equal(JSON.parse((await op('fw_remove_fact', { agent: 'concierge', factId: fact.id })).text).removed, fact.id);
    await agents.host.sessions.remember(session, { role: 'user', content: 'again' });
    assert.equal(JSON.parse((await op('fw_read_conversation', { agent: 'concierge', sessionId: session.id })).text).messages.length, 1);
    assert.equal(JSON.parse((await op('fw_clear_conversation', { agent: 'concierge', sessionId: session.id })).text).cleared, 1);
    const vw = await connect(VIEWER);
    const viewerFacts = await vw('fw_list_facts', { agent: 'concierge' });
    assert.equal(viewerFacts.error, true);
    assert.match(viewerFacts.text, /forbidden/);
    const viewerAdd = await vw('fw_add_fact', { agent: 'concierge', content: 'sneaky' });
    assert.equal(viewerAdd.error, true);
    assert.match(viewerAdd.text, /forbidden|operator/);
    await (await op('fw_list_facts', { agent: 'concierge' })).close();
    await viewerAdd.close();
  } finally {
    await fw.close();
  }
});
