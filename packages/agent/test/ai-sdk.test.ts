import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { Agent, AgentTool, AiSdkProvider, openAiProvider, type AiStreamPart } from '../dist/index.js';
import { MemoryLogger } from '@fw/runtime';
import { startApp } from './helpers.js';
import { waitFor } from '@fw/testing';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const finish = (unified: 'stop' | 'tool-calls'): LanguageModelV3StreamPart => ({
  type: 'finish',
  usage,
  finishReason: { unified, raw: unified },
});
const textChunks = (...deltas: string[]): LanguageModelV3StreamPart[] => [
  { type: 'stream-start', warnings: [] },
  { type: 'text-start', id: 't1' },
  ...deltas.map((delta) => ({ type: 'text-delta' as const, id: 't1', delta })),
  { type: 'text-end', id: 't1' },
  finish('stop'),
];

@Agent({ name: 'tooled', headless: true })
class Tooled {
  @AgentTool({ description: 'Looks a word up', input: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } })
  lookup(input: { q: string }): { word: string; meaning: string } {
    return { word: input.q, meaning: 'a framework' };
  }
}

async function collect(it: AsyncIterable<AiStreamPart>): Promise<AiStreamPart[]> {
  const out: AiStreamPart[] = [];
  for await (const p of it) out.push(p);
  return out;
}

test('AI SDK adapter with MockLanguageModelV3: tokens stream through', async () => {
  const model = new MockLanguageModelV3({
    doStream: async () => ({ stream: simulateReadableStream({ chunks: textChunks('Hel', 'lo', '!') }) }),
  });
  const runtime = new AiSdkProvider({ model, models: ['mock'] });
  const parts = await collect(runtime.stream({ messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal));
  assert.deepEqual(
    parts.filter((p) => p.type === 'text').map((p) => p.type === 'text' && p.delta),
    ['Hel', 'lo', '!'],
  );
  assert.deepEqual(parts.at(-1), {
    type: 'finish',
    reason: 'stop',
    usage: { inputTokens: 1, outputTokens: 1 },
    responseModel: 'mock-model-id',
  });
  const prompt = model.doStreamCalls[0]!.prompt;
  assert.deepEqual(JSON.parse(JSON.stringify(prompt.at(-1))), { role: 'user', content: [{ type: 'text', text: 'hi' }] });
});

test('AI SDK adapter with MockLanguageModelV3: tool calls run the agent tool and feed the result back', async () => {
  let call = 0;
  const model = new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream<LanguageModelV3StreamPart>({
        chunks:
          call++ === 0
            ? [
                { type: 'stream-start', warnings: [] },
                { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{"q":"fw"}' },
                finish('tool-calls'),
              ]
            : textChunks('fw is ', 'a framework'),
      }),
    }),
  });
  const app = await startApp((m) => m.mount(Tooled), {}, [new AiSdkProvider({ model, priority: 50 })]);
  try {
    assert.equal(app.module.view.activeRuntime()?.name, 'ai-sdk');
    const events: string[] = [];
    const text = await app.module.host.run('tooled', { message: 'what is fw?' }, new AbortController().signal, (e) => events.push(e.type));
    assert.equal(text, 'fw is a framework');
    assert.deepEqual(events, ['tool-call', 'tool-result', 'text', 'text']);
    assert.equal(model.doStreamCalls.length, 2);
    const first = model.doStreamCalls[0]!;
    assert.equal(first.tools?.[0]?.name, 'lookup');
    const toolMsg = model.doStreamCalls[1]!.prompt.find((m) => m.role === 'tool');
    assert.deepEqual(JSON.parse(JSON.stringify(toolMsg?.content[0])), {
      type: 'tool-result',
      toolCallId: 'c1',
      toolName: 'lookup',
      output: { type: 'text', value: '{"word":"fw","meaning":"a framework"}' },
    });
  } finally {
    await app.close();
  }
});

test('AI SDK adapter with MockLanguageModelV3: abort reaches the model call', async () => {
  let modelSignal: AbortSignal | undefined;
  const model = new MockLanguageModelV3({
    doStream: async (options) => {
      modelSignal = options.abortSignal;
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(c) {
            c.enqueue({ type: 'stream-start', warnings: [] });
            c.enqueue({ type: 'text-start', id: 't' });
            c.enqueue({ type: 'text-delta', id: 't', delta: 'partial' });
            options.abortSignal?.addEventListener('abort', () => c.error(options.abortSignal?.reason));
          },
        }),
      };
    },
  });
  const runtime = new AiSdkProvider({ model });
  const ac = new AbortController();
  const seen: string[] = [];
  const done = (async () => {
    for await (const p of runtime.stream({ messages: [{ role: 'user', content: 'go' }] }, ac.signal)) {
      if (p.type === 'text') seen.push(p.delta);
    }
  })();
  await waitFor('seen.length > 0', () => seen.length > 0);
  ac.abort(new Error('stop now'));
  await assert.rejects(done);
  assert.equal(modelSignal?.aborted, true);
  assert.deepEqual(seen, ['partial']);
});

/** A local server speaking OpenAI chat-completions streaming; records requests and aborts. */
async function fakeOpenAi(
  respond: (body: { messages: { role: string; content: unknown }[]; tools?: unknown[] }, res: ServerResponse, req: IncomingMessage) => void,
) {
  const requests: {
    path: string;
    body: { model: string; stream: boolean; messages: { role: string; content: unknown }[]; tools?: unknown[] };
  }[] = [];
  let aborted = 0;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      requests.push({ path: req.url ?? '', body });
      res.on('close', () => {
        if (!res.writableFinished) aborted++;
      });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      respond(body, res, req);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    requests,
    aborted: () => aborted,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'local-model', choices: [{ index: 0, delta, finish_reason }] })}\n\n`;

test('OpenAI-compatible server end to end: tokens and tool calls over the chat-completions wire format', async () => {
  const server = await fakeOpenAi((body, res) => {
    const last = body.messages.at(-1)!;
    if (last.role === 'tool') {
      res.write(chunk({ role: 'assistant', content: 'It is ' }));
      res.write(chunk({ content: 'a framework.' }));
    } else {
      res.write(
        chunk({
          role: 'assistant',
          content: null,
          tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } }],
        }),
      );
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":"fw"}' } }] }));
      res.write(chunk({}, 'tool_calls'));
      res.end('data: [DONE]\n\n');
      return;
    }
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
  });
  const app = await startApp((m) => m.mount(Tooled), { 'fw.ai.auto': true, 'fw.ai.base-url': server.url, 'fw.ai.model': 'local-model' });
  try {
    const active = app.module.view.activeRuntime();
    assert.equal(active?.name, 'openai-compatible');
    assert.deepEqual(active?.models, ['local-model']);
    const text = await app.module.host.run('tooled', { message: 'what is fw?' }, new AbortController().signal);
    assert.equal(text, 'It is a framework.');
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[0]!.path, '/v1/chat/completions');
    assert.equal(server.requests[0]!.body.model, 'local-model');
    assert.equal(server.requests[0]!.body.stream, true);
    assert.equal((server.requests[0]!.body.tools as { function: { name: string } }[])[0]!.function.name, 'lookup');
    const toolMessage = server.requests[1]!.body.messages.find((m) => m.role === 'tool') as unknown as {
      content: string;
      tool_call_id: string;
    };
    assert.equal(toolMessage.tool_call_id, 'call_1');
    assert.equal(toolMessage.content, '{"word":"fw","meaning":"a framework"}');
  } finally {
    await app.close();
    await server.close();
  }
});

@Agent({ name: 'briefed', headless: true, system: 'You answer in one short line.' })
class Briefed {}

test('OpenAI-compatible server: an agent with a system prompt runs, and the provider gets the prompt as the first, system message', async () => {
  const server = await fakeOpenAi((_body, res) => {
    res.write(chunk({ role: 'assistant', content: 'Short.' }));
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
  });
  const app = await startApp((m) => m.mount(Briefed), { 'fw.ai.auto': true, 'fw.ai.base-url': server.url, 'fw.ai.model': 'local-model' });
  try {
    const text = await app.module.host.run('briefed', { message: 'hello' }, new AbortController().signal);
    assert.equal(text, 'Short.');
    assert.equal(server.requests.length, 1);
    const messages = server.requests[0]!.body.messages;
    assert.deepEqual(messages[0], { role: 'system', content: 'You answer in one short line.' });
    assert.equal(messages.filter((m) => m.role === 'system').length, 1);
    assert.equal(messages.at(-1)!.role, 'user');
  } finally {
    await app.close();
    await server.close();
  }
});

test('OpenAI-compatible server end to end: A2A CancelTask aborts the provider HTTP request', async () => {
  const timers = new Set<NodeJS.Timeout>();
  const server = await fakeOpenAi((_body, res) => {
    res.write(chunk({ role: 'assistant', content: 'thinking' }));
    const t = setInterval(() => res.write(chunk({ content: '.' })), 20);
    timers.add(t);
    res.on('close', () => {
      clearInterval(t);
      timers.delete(t);
    });
  });
  const app = await startApp((m) => m.mount(Tooled), {}, [
    openAiProvider({ baseURL: server.url, model: 'local-model', apiKey: 'test-key' }),
  ]);
  try {
    const res = await fetch(`${app.base}/fw/agent/tooled/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'think hard' }] } },
      }),
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    await waitFor(
      "server.requests.length === 1 && app.module.view.tasks()[0]?.state === 'working'",
      () => server.requests.length === 1 && app.module.view.tasks()[0]?.state === 'working',
    );
    const id = app.module.view.tasks()[0]!.id;
    const cancel = await fetch(`${app.base}/fw/agent/tooled/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'CancelTask', params: { id } }),
    });
    const body = (await cancel.json()) as { result: { status: { state: string } } };
    assert.equal(body.result.status.state, 'TASK_STATE_CANCELED');
    await waitFor('server.aborted() === 1', () => server.aborted() === 1);
    await res.text();
    assert.equal(app.module.view.task(id)?.state, 'canceled');
  } finally {
    for (const t of timers) clearInterval(t);
    await app.close();
    await server.close();
  }
});

test('OpenAI-compatible server: every cancel path aborts the provider HTTP request (admin cancel, AG-UI cancel, closing fw)', async () => {
  const timers = new Set<NodeJS.Timeout>();
  const server = await fakeOpenAi((_body, res) => {
    res.write(chunk({ role: 'assistant', content: 'thinking' }));
    const t = setInterval(() => res.write(chunk({ content: '.' })), 20);
    timers.add(t);
    res.on('close', () => {
      clearInterval(t);
      timers.delete(t);
    });
  });
  const app = await startApp((m) => m.mount(Tooled), {}, [
    openAiProvider({ baseURL: server.url, model: 'local-model', apiKey: 'test-key' }),
  ]);
  let closed = false;
  try {
    // The admin plane's cancel (the same path as A2A CancelTask).
    const stream = fetch(`${app.base}/fw/agent/tooled/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'think hard' }] } },
      }),
    }).then((r) => r.text());
    await waitFor(
      "server.requests.length === 1 && app.module.view.tasks()[0]?.state === 'working'",
      () => server.requests.length === 1 && app.module.view.tasks()[0]?.state === 'working',
    );
    const cancelled = await app.module.view.cancelTask(app.module.view.tasks()[0]!.id, 'operator said stop');
    assert.equal(cancelled.state, 'canceled');
    await waitFor('server.aborted() === 1', () => server.aborted() === 1);
    await stream;

    // AG-UI: POST …/agui/runs/{runId}/cancel, with the owner key RUN_STARTED gave this anonymous client.
    const started = await fetch(`${app.base}/fw/agent/tooled/agui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        threadId: 't1',
        runId: 'r1',
        messages: [{ id: 'u1', role: 'user', content: 'think again' }],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      }),
    });
    const reader = started.body!.getReader();
    let seen = '';
    while (!seen.includes('\n\n')) seen += new TextDecoder().decode((await reader.read()).value);
    const runKey = (JSON.parse(seen.slice(seen.indexOf('{'), seen.indexOf('\n\n'))) as { metadata: Record<string, string> }).metadata[
      'fw.runKey'
    ];
    await waitFor('server.requests.length === 2', () => server.requests.length === 2);
    const res = await fetch(`${app.base}/fw/agent/tooled/agui/runs/r1/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ runKey }),
    });
    assert.equal(res.status, 202);
    await waitFor('server.aborted() === 2', () => server.aborted() === 2);
    for (let r = await reader.read(); !r.done; r = await reader.read()) seen += new TextDecoder().decode(r.value);
    assert.match(seen, /"outcome":\{"type":"cancelled"\}/);
    const runs = await app.module.view.runs!({ protocol: 'agui' });
    assert.deepEqual(
      runs.map((r) => [r.ref, r.state]),
      [['r1', 'cancelled']],
    );

    // Closing the framework stops a run in flight, down to the provider.
    const last = fetch(`${app.base}/fw/agent/tooled/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'm3', role: 'ROLE_USER', parts: [{ text: 'think forever' }] } },
      }),
    })
      .then((r) => r.text())
      .catch(() => '');
    await waitFor('server.requests.length === 3', () => server.requests.length === 3);
    await app.close();
    closed = true;
    await waitFor('server.aborted() === 3', () => server.aborted() === 3);
    await last;
  } finally {
    for (const t of timers) clearInterval(t);
    if (!closed) await app.close();
    await server.close();
  }
});

test('a provider error is one structured log line: no stack, nothing on stderr', async () => {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'the model is overloaded', type: 'server_error' } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const logger = new MemoryLogger();
  const app = await startApp((m) => m.mount(Tooled), {
    logger,
    'fw.ai.auto': true,
    'fw.ai.base-url': `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    'fw.ai.model': 'local-model',
  });
  const stderr: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    await assert.rejects(app.module.host.run('tooled', { message: 'hi' }, new AbortController().signal), /overloaded/);
  } finally {
    process.stderr.write = write;
    await app.close();
    server.closeAllConnections();
    server.close();
  }
  assert.deepEqual(stderr, []);
  // The agent module's lines (the framework also says where it listens, at info).
  const entries = logger.entries.filter((e) => e.fields.module !== 'framework');
  assert.equal(entries.length, 1);
  const [line] = entries;
  assert.equal(line!.level, 'error');
  assert.equal(line!.message, 'AI provider call failed');
  assert.equal(line!.fields.module, 'agent');
  assert.equal(line!.fields.agent, 'tooled');
  assert.equal(line!.fields.provider, 'openai-compatible');
  const error = line!.fields.error as Record<string, unknown>;
  assert.equal(error.status, 500);
  assert.match(String(error.message), /overloaded/);
  assert.ok(!JSON.stringify(line!.fields).includes('    at '), 'no stack frames in the line');
});

test('OpenAI-compatible server: a consumer that stops reading (a run hook at a hard budget) ends the provider HTTP request', async () => {
  let written = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server = await fakeOpenAi((_body, res) => {
    res.write(chunk({ role: 'assistant', content: 'go' }));
    const t = setInterval(() => {
      res.write(chunk({ content: '.' }));
      written++;
    }, 5);
    timers.add(t);
    res.on('close', () => {
      clearInterval(t);
      timers.delete(t);
    });
  });
  try {
    const runtime = openAiProvider({ baseURL: server.url, model: 'local-model', apiKey: 'test-key' });
    let parts = 0;
    for await (const part of runtime.stream({ messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal)) {
      if (part.type === 'text' && ++parts === 5) break;
    }
    await waitFor('the provider request aborted', () => server.aborted() === 1 || undefined, 5000);
    const at = written;
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(written, at, 'nothing more was streamed');
  } finally {
    for (const t of timers) clearInterval(t);
    await server.close();
  }
});
