/**
 * The run tape in the admin plane (docs/runs.md): REST under /api/admin/tape/ and the MCP tools
 * fw_list_runs / fw_read_run, behind the gate, and readable only by a role that reads content
 * (operator, admin): a viewer is refused. The replay (POST) is an operator's control action.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Framework } from '@fw/runtime';
import { mcp as mcpModule } from '@fw/mcp';
import { Agent, AgentModule, AgentTool, type AiRequest, type AiStreamPart, type ModelProvider } from '@fw/agent';
import { admin } from '../dist/index.js';

@Agent({ name: 'clerk', headless: true })
class Clerk {
  @AgentTool({ description: 'Looks a word up', input: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] } })
  lookup(input: { word: string }): string {
    return `definition of ${input.word}`;
  }
}

/** Calls `lookup` twice in its first turn, then answers; counts its requests. */
class TwoCalls implements ModelProvider {
  readonly name = 'two-calls';
  readonly priority = 5;
  readonly capabilities = ['streaming', 'tools'];
  readonly models = ['two-1'];
  requests = 0;
  isAvailable(): boolean {
    return true;
  }
  async *stream(request: AiRequest): AsyncIterable<AiStreamPart> {
    this.requests++;
    if (!request.messages.some((m) => m.role === 'tool')) {
      yield { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { word: 'a' } };
      yield { type: 'tool-call', toolCallId: 'c2', toolName: 'lookup', input: { word: 'b' } };
      yield { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 10, outputTokens: 4 } };
      return;
    }
    yield { type: 'text', delta: '<img src=x onerror=alert(1)> ' };
    yield { type: 'text', delta: 'done' };
    yield { type: 'finish', reason: 'stop', usage: { inputTokens: 20, outputTokens: 2 } };
  }
}

const VIEWER = 'viewer-token-0123456789';
const OPERATOR = 'operator-token-0123456789';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function start() {
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': '',
    'fw.ai.auto': false,
    'fw.heartbeat.interval': 0,
    'fw.auth.tokens': `vera:viewer:${VIEWER},otto:operator:${OPERATOR}`,
  });
  const model = new TwoCalls();
  await fw.use(mcpModule());
  const agents = new AgentModule({ providers: [model] });
  await fw.use(agents);
  agents.mount(Clerk);
  await fw.use(admin());
  const { port } = await fw.listen(0, '127.0.0.1');
  return { fw, agents, model, port, base: `http://127.0.0.1:${port}/api/admin` };
}

async function connect(port: number, token: string): Promise<Client> {
  const client = new Client({ name: 'tape-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/fw/admin/mcp`), { requestInit: { headers: bearer(token) } }),
  );
  return client;
}

const textOf = (result: unknown): string => (result as { content: { text: string }[] }).content.map((c) => c.text).join('');

test('tape REST: runs, steps by seq, the run tree and a replay for an operator; a viewer is refused the content', async () => {
  const { fw, agents, model, base } = await start();
  try {
    await agents.host.run('clerk', { message: 'define', protocol: 'chat', owner: 'principal:otto' }, new AbortController().signal);
    assert.equal(model.requests, 2);

    for (const path of ['/tape/runs', '/tape/runs/x/steps', '/tape/runs/x/replay']) {
      const refused = await fetch(base + path, { headers: bearer(VIEWER) });
      assert.equal(refused.status, 403, path);
      assert.equal(((await refused.json()) as { code: string }).code, 'content_forbidden', path);
    }
    const post = await fetch(`${base}/tape/runs/x/replay`, { method: 'POST', headers: bearer(VIEWER) });
    assert.equal(post.status, 403);
    assert.equal((await fetch(`${base}/tape/runs`)).status, 401, 'no credential, no tape');

    const list = await fetch(`${base}/tape/runs?agent=clerk&status=completed&principal=otto&since=0&limit=10`, {
      headers: bearer(OPERATOR),
    });
    assert.equal(list.status, 200);
    const runs = (await list.json()) as { id: string; status: string; inputTokens: number; outputTokens: number; steps: number }[];
    assert.equal(runs.length, 1);
    const [run] = runs;
    assert.deepEqual([run!.status, run!.inputTokens, run!.outputTokens, run!.steps], ['completed', 30, 6, 8]);
    const none = (await (await fetch(`${base}/tape/runs?principal=vera`, { headers: bearer(OPERATOR) })).json()) as unknown[];
    assert.equal(none.length, 0);

    const page = (await (await fetch(`${base}/tape/runs/${run!.id}/steps?fromSeq=3&max=2`, { headers: bearer(OPERATOR) })).json()) as {
      seq: number;
      kind: string;
      body: { output?: string };
    }[];
    assert.deepEqual(
      page.map((s) => [s.seq, s.kind, s.body.output]),
      [
        [3, 'tool-call', 'definition of a'],
        [4, 'tool-call', 'definition of b'],
      ],
    );
    assert.equal((await fetch(`${base}/tape/runs/nope/steps`, { headers: bearer(OPERATOR) })).status, 404);

    const tree = (await (await fetch(`${base}/tape/runs/${run!.id}/replay`, { headers: bearer(OPERATOR) })).json()) as {
      run: { id: string };
      steps: unknown[];
      children: unknown[];
    };
    assert.equal(tree.run.id, run!.id);
    assert.equal(tree.steps.length, 8);
    assert.deepEqual(tree.children, []);

    const replayed = await fetch(`${base}/tape/runs/${run!.id}/replay`, { method: 'POST', headers: bearer(OPERATOR) });
    assert.equal(replayed.status, 200);
    const result = (await replayed.json()) as { divergence: unknown; text: string; toolCalls: { toolName: string }[] };
    assert.equal(result.divergence, null);
    assert.equal(result.text, '<img src=x onerror=alert(1)> done');
    assert.equal(result.toolCalls.length, 2);
    assert.equal(model.requests, 2, 'the replay asked the model nothing');

    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { 'x-fw-content-role'?: string; 'x-fw-action'?: string; 'x-fw-role'?: string }>>;
    };
    assert.equal(doc.paths['/tape/runs']?.get?.['x-fw-content-role'], 'operator');
    assert.equal(doc.paths['/tape/runs/{runId}/steps']?.get?.['x-fw-content-role'], 'operator');
    assert.equal(doc.paths['/tape/runs/{runId}/replay']?.get?.['x-fw-content-role'], 'operator');
    assert.equal(doc.paths['/tape/runs/{runId}/replay']?.post?.['x-fw-action'], 'replay');
    assert.equal(doc.paths['/tape/runs/{runId}/replay']?.post?.['x-fw-role'], 'operator');
  } finally {
    await fw.close();
  }
});

test('tape outline: a viewer reads the structure and timings of runs, never their content; bad input is a clear 400', async () => {
  const { fw, agents, base } = await start();
  try {
    // Content the outline must not carry: the prompt, the arguments, the results, the output, the chat session id.
    await agents.host.run(
      'clerk',
      { message: 'SECRET-PROMPT', protocol: 'chat', ref: 'SECRET-SESSION', sessionId: 'SECRET-SESSION', owner: 'principal:otto' },
      new AbortController().signal,
    );
    const list = await fetch(`${base}/tape/outline?agent=clerk&status=completed&principal=otto&since=0&limit=10`, {
      headers: bearer(VIEWER),
    });
    assert.equal(list.status, 200);
    const runs = (await list.json()) as Record<string, unknown>[];
    assert.equal(runs.length, 1);
    const run = runs[0]!;
    assert.deepEqual(
      [run.agent, run.status, run.inputTokens, run.outputTokens, run.steps, run.failed],
      ['clerk', 'completed', 30, 6, 8, false],
    );
    assert.ok(!('error' in run) && !('ref' in run) && !('sessionId' in run));

    const res = await fetch(`${base}/tape/outline/${String(run.id)}`, { headers: bearer(VIEWER) });
    assert.equal(res.status, 200);
    const raw = await res.text();
    for (const secret of ['SECRET', 'definition of', 'onerror', '"word"']) assert.ok(!raw.includes(secret), `no content: ${secret}`);
    const tree = JSON.parse(raw) as {
      run: { id: string };
      steps: { kind: string; durationMs: number | null; body: Record<string, unknown> }[];
      children: unknown[];
    };
    assert.equal(tree.run.id, run.id);
    assert.deepEqual(
      tree.steps.map((s) => [s.kind, s.body]),
      [
        ['input', { historyLength: 0 }],
        ['model-request', { step: 0, provider: 'two-calls', model: 'two-1', messageCount: 1, tools: ['lookup'] }],
        [
          'model-response',
          {
            step: 0,
            toolCalls: [
              { toolCallId: 'c1', toolName: 'lookup' },
              { toolCallId: 'c2', toolName: 'lookup' },
            ],
            usage: { inputTokens: 10, outputTokens: 4 },
            finishReason: 'tool-calls',
            responseModel: null,
            failed: false,
          },
        ],
        ['tool-call', { toolCallId: 'c1', toolName: 'lookup', ok: true }],
        ['tool-call', { toolCallId: 'c2', toolName: 'lookup', ok: true }],
        ['model-request', { step: 1, provider: 'two-calls', model: 'two-1', messageCount: 4, tools: ['lookup'] }],
        [
          'model-response',
          { step: 1, toolCalls: [], usage: { inputTokens: 20, outputTokens: 2 }, finishReason: 'stop', responseModel: null, failed: false },
        ],
        ['end', { state: 'completed', failed: false }],
      ],
    );
    assert.ok(tree.steps.every((s) => s.durationMs === null || typeof s.durationMs === 'number'));

    assert.equal((await fetch(`${base}/tape/outline/nope`, { headers: bearer(VIEWER) })).status, 404);
    assert.equal((await fetch(`${base}/tape/outline`)).status, 401, 'no credential, no outline');
    for (const [query, field] of [
      ['status=lost', 'status'],
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['since=yesterday', 'since'],
    ] as const) {
      const bad = await fetch(`${base}/tape/outline?${query}`, { headers: bearer(VIEWER) });
      assert.equal(bad.status, 400, query);
      const problem = (await bad.json()) as { code: string; field?: string; detail?: string; stack?: unknown };
      assert.equal(problem.code, 'bad_request', query);
      assert.equal(problem.field, field, query);
      assert.equal(problem.stack, undefined);
    }
    // The edges of limit are accepted.
    for (const limit of [1, 1000])
      assert.equal((await fetch(`${base}/tape/outline?limit=${limit}`, { headers: bearer(VIEWER) })).status, 200);

    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    assert.ok(doc.paths['/tape/outline']?.get, 'on the OpenAPI document');
    assert.ok(doc.paths['/tape/outline/{runId}']?.get);
    assert.equal(doc.paths['/tape/outline']?.get?.['x-fw-content-role'], undefined, 'no content role: a viewer reads it');
  } finally {
    await fw.close();
  }
});

test('tape MCP tools: fw_list_runs and fw_read_run for an operator; a viewer gets an error and no content', async () => {
  const { fw, agents, port } = await start();
  const viewer = await connect(port, VIEWER);
  const operator = await connect(port, OPERATOR);
  try {
    await agents.host.run('clerk', { message: 'define' }, new AbortController().signal);
    const refused = await viewer.callTool({ name: 'fw_list_runs', arguments: {} });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /^forbidden: .*operator/);
    const refusedRead = await viewer.callTool({ name: 'fw_read_run', arguments: { runId: 'x' } });
    assert.equal(refusedRead.isError, true);

    const listed = await operator.callTool({ name: 'fw_list_runs', arguments: { agent: 'clerk' } });
    assert.notEqual(listed.isError, true);
    const runs = JSON.parse(textOf(listed)) as { id: string }[];
    assert.equal(runs.length, 1);
    const read = await operator.callTool({ name: 'fw_read_run', arguments: { runId: runs[0]!.id } });
    const { run, steps } = JSON.parse(textOf(read)) as { run: { id: string }; steps: { kind: string }[] };
    assert.equal(run.id, runs[0]!.id);
    assert.deepEqual(
      steps.map((s) => s.kind),
      ['input', 'model-request', 'model-response', 'tool-call', 'tool-call', 'model-request', 'model-response', 'end'],
    );
    const tree = JSON.parse(textOf(await operator.callTool({ name: 'fw_read_run', arguments: { runId: runs[0]!.id, tree: true } }))) as {
      children: unknown[];
    };
    assert.deepEqual(tree.children, []);
    const missing = await operator.callTool({ name: 'fw_read_run', arguments: { runId: 'nope' } });
    assert.equal(missing.isError, true);
  } finally {
    await viewer.close();
    await operator.close();
    await fw.close();
  }
});
