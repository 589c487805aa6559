/**
 * The run-hooks seam (src/hooks/): every agent run, on every surface, passes its hooks — start and
 * end, each model call and streamed part, each tool call, handoffs — with its scope (run id, owner,
 * parent, coordination). Governance refuses and stops runs through it; the run tape records
 * through it; a replay swaps the model through `RunInput.provider`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { FwError } from '@fw/runtime';
import {
  Agent,
  AgentTool,
  Coordinator,
  OnPrompt,
  type AiRequest,
  type AiStreamPart,
  type CoordinatorContext,
  type ModelProvider,
  type RunHooks,
  type RunScope,
} from '../dist/index.js';
import { startApp } from './helpers.js';

@Agent({ name: 'clerk', headless: true })
class Clerk {
  @AgentTool({ description: 'Looks a word up', input: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] } })
  lookup(input: { word: string }) {
    return `definition of ${input.word}`;
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
    const r = await ctx.dispatch('helper', message);
    return r.text;
  }
}

/** Calls `lookup` twice in its first turn, then answers. */
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
    yield { type: 'text', delta: 'all ' };
    yield { type: 'text', delta: 'done' };
    yield { type: 'finish', reason: 'stop', usage: { inputTokens: 20, outputTokens: 2 } };
  }
}

/** Records every hook call as one line. */
function recorder(lines: string[], scopes: RunScope[]): RunHooks {
  return {
    name: 'recorder',
    runStarted: (run, input) => {
      scopes.push(run);
      lines.push(`start ${run.agent} ${run.protocol} ${input.message}`);
    },
    beforeModelCall: (run, call) => void lines.push(`model ${call.step} ${call.provider}`),
    modelPart: (run, call, part) => void (part.type === 'text' && lines.push(`part ${part.delta}`)),
    afterModelCall: (run, call, r) => void lines.push(`model done ${call.step} ${r.text} ${r.toolCalls.length} ${r.usage?.inputTokens}`),
    beforeToolCall: (run, call) => void lines.push(`tool ${call.toolName} ${JSON.stringify(call.input)}`),
    afterToolCall: (run, call, r) => void lines.push(`tool done ${call.toolCallId} ${r.ok} ${r.text}`),
    handoff: (run, h) => void lines.push(`handoff ${h.from}>${h.to}`),
    runEnded: (run, o) => void lines.push(`end ${run.agent} ${o.state} ${o.text ?? o.error}`),
  };
}

test('a run with two tool calls passes every hook in order, with its scope; its run row has the same id', async () => {
  const model = new TwoCalls();
  const app = await startApp((m) => m.mount(Clerk), {}, [model]);
  try {
    const lines: string[] = [];
    const scopes: RunScope[] = [];
    app.module.host.hooks.add(recorder(lines, scopes));
    const text = await app.module.host.run(
      'clerk',
      { message: 'hi', protocol: 'chat', ref: 's1', owner: 'principal:alice' },
      new AbortController().signal,
    );
    assert.equal(text, 'all done');
    assert.deepEqual(lines, [
      'start clerk chat hi',
      'model 0 two-calls',
      'model done 0  2 10',
      'tool lookup {"word":"a"}',
      'tool done c1 true definition of a',
      'tool lookup {"word":"b"}',
      'tool done c2 true definition of b',
      'model 1 two-calls',
      'part all ',
      'part done',
      'model done 1 all done 0 20',
      'end clerk completed all done',
    ]);
    const [scope] = scopes;
    assert.equal(scope?.principalId, 'alice');
    assert.equal(scope?.ref, 's1');
    const runs = await app.module.host.runs({ agentName: 'clerk' });
    assert.equal(runs[0]?.id, scope?.runId);
  } finally {
    await app.close();
  }
});

test('refusals: a refused start never runs the model; a refused tool is told to the model; an abort stops the run, recorded cancelled with the reason', async () => {
  const model = new TwoCalls();
  const app = await startApp((m) => m.mount(Clerk), {}, [model]);
  const host = app.module.host;
  try {
    const stopStart = host.hooks.add({
      name: 'kill',
      runStarted: () => {
        throw new FwError('kill_switch_armed', 'the kill switch is armed', 503);
      },
    });
    await assert.rejects(host.run('clerk', { message: 'hi', protocol: 'chat' }, new AbortController().signal), /kill switch is armed/);
    assert.equal(model.requests, 0);
    stopStart();

    const toolResults: string[] = [];
    const stopTool = host.hooks.add({
      name: 'policy',
      beforeToolCall: (_run, call) => {
        if ((call.input as { word: string }).word === 'b') throw new Error("policy 'no-b' denies lookup");
      },
      afterToolCall: (_run, _call, r) => void toolResults.push(r.text),
    });
    assert.equal(await host.run('clerk', { message: 'hi' }, new AbortController().signal), 'all done');
    assert.deepEqual(toolResults, ['definition of a'], 'the refused call never ran');
    stopTool();

    const stopAbort = host.hooks.add({
      name: 'budget',
      afterModelCall: (run) => run.abort(new FwError('budget_exceeded', 'the run budget is spent', 402)),
    });
    await assert.rejects(host.run('clerk', { message: 'hi', protocol: 'chat' }, new AbortController().signal), /the run budget is spent/);
    stopAbort();
    const [latest] = await host.runs({ agentName: 'clerk', limit: 1 });
    await host.store.writes.flush();
    const [row] = await host.runs({ agentName: 'clerk', limit: 1 });
    assert.equal(row?.id, latest?.id);
    assert.equal(row?.state, 'cancelled');
    assert.match(row?.error ?? '', /budget is spent/);
  } finally {
    await app.close();
  }
});

test('a replay swaps the model for the run (RunInput.provider): the active provider gets no request', async () => {
  const model = new TwoCalls();
  const app = await startApp((m) => m.mount(Clerk), {}, [model]);
  try {
    const replay = new TwoCalls();
    const text = await app.module.host.run('clerk', { message: 'hi', provider: replay }, new AbortController().signal);
    assert.equal(text, 'all done');
    assert.equal(model.requests, 0);
    assert.equal(replay.requests, 2);
  } finally {
    await app.close();
  }
});

test('a dispatch is a run whose parent is the coordinator run (owner and coordination carried); a handoff is heard', async () => {
  const app = await startApp((m) => {
    m.mount(Helper);
    m.mount(Lead);
  });
  try {
    const lines: string[] = [];
    const scopes: RunScope[] = [];
    app.module.host.hooks.add(recorder(lines, scopes));
    await app.module.host.run('lead', { message: 'task', protocol: 'a2a', owner: 'principal:bob' }, new AbortController().signal);
    const [lead, helper] = scopes;
    assert.equal(lead?.agent, 'lead');
    assert.ok(lead?.coordinationId);
    assert.equal(helper?.agent, 'helper');
    assert.equal(helper?.protocol, 'dispatch');
    assert.equal(helper?.parentRunId, lead?.runId);
    assert.equal(helper?.coordinationId, lead?.coordinationId);
    assert.equal(helper?.principalId, 'bob');
    assert.deepEqual(
      lines.filter((l) => !l.startsWith('part')),
      [
        'start lead a2a task',
        'handoff lead>helper',
        'start helper dispatch task',
        'end helper completed helped with task',
        'end lead completed helped with task',
      ],
    );
  } finally {
    await app.close();
  }
});

test("a tool called on the agent's MCP endpoint is a run of its own (protocol mcp) with the caller as owner; a refusal there is the tool's error", async () => {
  const app = await startApp((m) => m.mount(Clerk), { 'fw.auth.tokens': 'alice:operator:alice-token-0123456789' });
  try {
    const lines: string[] = [];
    const scopes: RunScope[] = [];
    app.module.host.hooks.add(recorder(lines, scopes));
    const client = new Client({ name: 'hooks', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.base}/fw/agent/clerk/mcp`), {
        requestInit: { headers: { authorization: 'Bearer alice-token-0123456789' } },
      }),
    );
    const out = (await client.callTool({ name: 'lookup', arguments: { word: 'x' } })) as { content: { text: string }[] };
    assert.equal(out.content[0]?.text, 'definition of x');
    assert.equal(scopes[0]?.protocol, 'mcp');
    assert.equal(scopes[0]?.principalId, 'alice');
    assert.deepEqual(lines, [
      'start clerk mcp ',
      'tool lookup {"word":"x"}',
      'tool done  true definition of x',
      'end clerk completed definition of x',
    ]);
    app.module.host.hooks.add({
      name: 'deny',
      beforeToolCall: () => {
        throw new Error('denied by policy');
      },
    });
    const refused = (await client.callTool({ name: 'lookup', arguments: { word: 'y' } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    assert.equal(refused.isError, true);
    assert.match(refused.content[0]?.text ?? '', /denied by policy/);
    await client.close();
  } finally {
    await app.close();
  }
});
