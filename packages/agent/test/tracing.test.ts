import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { Role, TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MemoryLogger } from '@fw/runtime';
import { Agent, AgentTool, AiSdkProvider } from '../dist/index.js';
import { startApp } from './helpers.js';
import { parentOf, registerTracing, spanNamed } from '@fw/testing/tracing';

const exporter = registerTracing();

@Agent({ name: 'traced-agent', headless: true })
class TracedAgent {
  @AgentTool({ description: 'Looks a word up', input: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } })
  lookup(input: { q: string }): string {
    if (input.q === 'bad') throw new Error('dictionary offline');
    return `${input.q}: a framework`;
  }
}

const usage = { inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };

/** A model that first calls `lookup` with `q`, then answers. */
function model(q: string): MockLanguageModelV3 {
  let call = 0;
  return new MockLanguageModelV3({
    modelId: 'mock-4o',
    provider: 'mock.chat',
    doStream: async () => ({
      stream: simulateReadableStream<LanguageModelV3StreamPart>({
        chunks:
          call++ === 0
            ? [
                { type: 'stream-start', warnings: [] },
                { type: 'tool-call', toolCallId: 'call-1', toolName: 'lookup', input: JSON.stringify({ q }) },
                { type: 'finish', usage, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
              ]
            : [
                { type: 'stream-start', warnings: [] },
                { type: 'text-start', id: 't' },
                { type: 'text-delta', id: 't', delta: 'done' },
                { type: 'text-end', id: 't' },
                { type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } },
              ],
      }),
    }),
  });
}

test('an A2A task: a2a task → invoke_agent → chat / execute_tool spans with the GenAI attributes, over the official client', async () => {
  const runtime = new AiSdkProvider({ model: model('fw'), models: ['mock-4o'], providerName: 'openai', priority: 50 });
  const app = await startApp((m) => m.mount(TracedAgent), { logger: new MemoryLogger() }, [runtime]);
  try {
    const client = await new ClientFactory().createFromUrl(`${app.base}/fw/agent/traced-agent/a2a`);
    const task = (await client.sendMessage({
      tenant: '',
      configuration: undefined,
      metadata: undefined,
      message: {
        messageId: randomUUID(),
        contextId: '',
        taskId: '',
        role: Role.ROLE_USER,
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
        parts: [{ content: { $case: 'text', value: 'what is fw?' }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
      },
    })) as Task;
    assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);

    const a2a = spanNamed(exporter, 'a2a task traced-agent');
    assert.equal(a2a.kind, SpanKind.SERVER);
    assert.equal(a2a.attributes['a2a.task.id'], task.id);
    assert.equal(a2a.attributes['a2a.task.state'], 'TASK_STATE_COMPLETED');

    const run = spanNamed(exporter, 'invoke_agent traced-agent');
    assert.equal(parentOf(run), a2a.spanContext().spanId);
    assert.equal(run.attributes['gen_ai.operation.name'], 'invoke_agent');
    assert.equal(run.attributes['gen_ai.agent.name'], 'traced-agent');
    assert.equal(run.attributes['gen_ai.provider.name'], 'openai');

    const turns = exporter.getFinishedSpans().filter((s) => s.name === 'chat mock-4o');
    assert.equal(turns.length, 2, 'one span per model turn');
    for (const turn of turns) {
      assert.equal(turn.kind, SpanKind.CLIENT);
      assert.equal(parentOf(turn), run.spanContext().spanId);
      assert.equal(turn.attributes['gen_ai.operation.name'], 'chat');
      assert.equal(turn.attributes['gen_ai.provider.name'], 'openai');
      assert.equal(turn.attributes['gen_ai.request.model'], 'mock-4o');
      assert.equal(turn.attributes['gen_ai.response.model'], 'mock-4o');
      assert.equal(turn.attributes['gen_ai.usage.input_tokens'], 12);
      assert.equal(turn.attributes['gen_ai.usage.output_tokens'], 5);
    }
    assert.deepEqual(
      turns.map((t) => t.attributes['gen_ai.response.finish_reasons']),
      [['tool-calls'], ['stop']],
    );

    const tool = spanNamed(exporter, 'execute_tool lookup');
    assert.equal(parentOf(tool), run.spanContext().spanId);
    assert.equal(tool.attributes['gen_ai.tool.name'], 'lookup');
    assert.equal(tool.attributes['gen_ai.tool.call.id'], 'call-1');
    assert.equal(tool.attributes['gen_ai.tool.type'], 'function');
    assert.equal(tool.status.code, SpanStatusCode.UNSET);
    assert.equal(a2a.spanContext().traceId, tool.spanContext().traceId);
  } finally {
    await app.close();
  }
});

test('a failing tool and a failing provider end their spans in error; the run span says so', async () => {
  const runtime = new AiSdkProvider({ model: model('bad'), models: ['mock-4o'], priority: 50 });
  const app = await startApp((m) => m.mount(TracedAgent), { logger: new MemoryLogger() }, [runtime]);
  try {
    exporter.reset();
    assert.equal(await app.module.host.run('traced-agent', { message: 'hi' }, new AbortController().signal), 'done');
    const tool = spanNamed(exporter, 'execute_tool lookup');
    assert.equal(tool.status.code, SpanStatusCode.ERROR);
    assert.equal(tool.status.message, 'dictionary offline');
    assert.equal(
      spanNamed(exporter, 'invoke_agent traced-agent').status.code,
      SpanStatusCode.UNSET,
      'the model read the failure and answered',
    );
    assert.equal(
      spanNamed(exporter, 'chat mock-4o').attributes['gen_ai.provider.name'],
      'ai-sdk',
      "the provider's name when no providerName is given",
    );

    exporter.reset();
    const failing = new AiSdkProvider({
      name: 'flaky',
      models: ['mock-4o'],
      priority: 60,
      model: new MockLanguageModelV3({
        doStream: async () => {
          throw Object.assign(new Error('overloaded'), { statusCode: 503 });
        },
      }),
    });
    app.module.addProvider(failing);
    await assert.rejects(app.module.host.run('traced-agent', { message: 'hi' }, new AbortController().signal), /overloaded/);
    const turn = spanNamed(exporter, 'chat mock-4o');
    assert.equal(turn.status.code, SpanStatusCode.ERROR);
    assert.equal(turn.events[0]?.name, 'exception');
    const run = spanNamed(exporter, 'invoke_agent traced-agent');
    assert.equal(run.status.code, SpanStatusCode.ERROR);
    assert.equal(parentOf(turn), run.spanContext().spanId);
  } finally {
    await app.close();
  }
});

test("every span of a run carries the run's id (fw.run.id), which is its run on the tape; a tool called over MCP too", async () => {
  const runtime = new AiSdkProvider({ model: model('fw'), models: ['mock-4o'], priority: 50 });
  const app = await startApp((m) => m.mount(TracedAgent), { logger: new MemoryLogger() }, [runtime]);
  try {
    exporter.reset();
    assert.equal(await app.module.host.run('traced-agent', { message: 'what is fw?' }, new AbortController().signal), 'done');
    const [taped] = await app.module.tape!.runs({ agent: 'traced-agent' });
    assert.ok(taped, 'the run is on the tape');
    const run = spanNamed(exporter, 'invoke_agent traced-agent');
    assert.equal(run.attributes['fw.run.id'], taped.id);
    const turns = exporter.getFinishedSpans().filter((s) => s.name === 'chat mock-4o');
    assert.equal(turns.length, 2);
    for (const turn of turns) assert.equal(turn.attributes['fw.run.id'], taped.id);
    assert.equal(spanNamed(exporter, 'execute_tool lookup').attributes['fw.run.id'], taped.id);

    // A second run has its own id on its own spans.
    exporter.reset();
    await app.module.host.run('traced-agent', { message: 'again' }, new AbortController().signal);
    const second = spanNamed(exporter, 'invoke_agent traced-agent').attributes['fw.run.id'];
    assert.equal(typeof second, 'string');
    assert.notEqual(second, taped.id);

    // A tool called from outside a run (the agent's MCP endpoint) is a run of its own on the tape.
    exporter.reset();
    const out = await app.module.host.invokeTool('traced-agent', 'lookup', { q: 'mcp' }, new AbortController().signal);
    assert.equal(out.ok, true);
    const toolRun = (await app.module.tape!.runs({ agent: 'traced-agent' })).find((r) => r.protocol === 'mcp');
    assert.ok(toolRun, 'the MCP tool call is on the tape');
    assert.equal(spanNamed(exporter, 'execute_tool lookup').attributes['fw.run.id'], toolRun.id);
  } finally {
    await app.close();
  }
});
