import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpAgent } from '@ag-ui/client';
import { Agent, AgentTool, OnPrompt, type AgentContext, type AiRequest, type ModelProvider, type AiStreamPart } from '../dist/index.js';
import { sleep } from '../dist/runtime/offline.js';
import { ProbeRuntime, startApp } from './helpers.js';
import { waitFor } from '@fw/testing';

@Agent({ name: 'lim', headless: true })
class Lim {
  @AgentTool({ description: 'loops' })
  again(): string {
    return 'again';
  }
}

@Agent({ name: 'sleepy', headless: true })
class Sleepy {
  @OnPrompt()
  async *prompt(_m: string, ctx: AgentContext): AsyncIterable<string> {
    for (;;) {
      await sleep(20, ctx.signal);
      yield '.';
    }
  }
}

const a2a = (text: string, method = 'SendMessage') =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } },
  });

test('request bodies are capped at fw.agent.max-body-bytes (413 problem+json) on A2A and AG-UI', async () => {
  const app = await startApp((m) => m.mount(Lim), { 'fw.agent.max-body-bytes': 400 });
  try {
    const ok = a2a('x'.repeat(10));
    assert.ok(Buffer.byteLength(ok) <= 400);
    const res = await fetch(`${app.base}/fw/agent/lim/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: ok,
    });
    assert.equal(((await res.json()) as { result?: unknown }).result !== undefined, true);
    for (const path of ['a2a', 'agui']) {
      const big = await fetch(`${app.base}/fw/agent/lim/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: a2a('x'.repeat(400)),
      });
      assert.equal(big.status, 413);
      assert.equal(big.headers.get('content-type'), 'application/problem+json');
      assert.equal(((await big.json()) as { code: string }).code, 'payload_too_large');
    }
  } finally {
    await app.close();
  }
});

test('the model gets at most fw.agent.max-tool-steps turns when it keeps calling tools', async () => {
  class Looper implements ModelProvider {
    readonly name = 'looper';
    readonly priority = 9;
    readonly capabilities = ['tools'];
    readonly models = ['loop'];
    calls = 0;
    isAvailable(): boolean {
      return true;
    }
    async *stream(_r: AiRequest): AsyncIterable<AiStreamPart> {
      this.calls++;
      yield { type: 'tool-call', toolCallId: `c${this.calls}`, toolName: 'again', input: {} };
    }
  }
  const looper = new Looper();
  const app = await startApp((m) => m.mount(Lim), { 'fw.agent.max-tool-steps': 3 }, [looper]);
  try {
    // The limit is a failure that says why, not a silent end (issue 16).
    await assert.rejects(
      app.module.host.run('lim', { message: 'go' }, new AbortController().signal),
      (e: { code?: string; message?: string }) => e.code === 'tool_step_limit' && /fw\.agent\.max-tool-steps \(3\)/.test(e.message ?? ''),
    );
    assert.equal(looper.calls, 3);
  } finally {
    await app.close();
  }
});

test('AG-UI runs are capped at fw.agent.agui.max-runs (503 capacity_exhausted) and the slot frees when a run ends', async () => {
  const app = await startApp((m) => m.mount(Sleepy), { 'fw.agent.agui.max-runs': 1 });
  try {
    const agent = new HttpAgent({ url: `${app.base}/fw/agent/sleepy/agui` });
    agent.messages = [{ id: 'm', role: 'user', content: 'zzz' }];
    let runKey: string | undefined;
    const running = agent.runAgent(
      { runId: 'one' },
      {
        onRunStartedEvent: ({ event }) => {
          runKey = (event.metadata as Record<string, string>)['fw.runKey'];
        },
      },
    );
    await waitFor('started', () => runKey);
    const input = {
      threadId: 't',
      runId: 'two',
      messages: [{ id: 'm', role: 'user', content: 'hi' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    };
    const post = (body: object) =>
      fetch(`${app.base}/fw/agent/sleepy/agui`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const cancel = (runId: string, key: string | undefined) =>
      fetch(`${app.base}/fw/agent/sleepy/agui/runs/${runId}/cancel`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ runKey: key }),
      });
    // The whole capacity in use (this caller's share, 20, is larger than the cap here).
    const second = await post(input);
    assert.equal(second.status, 503);
    assert.equal(second.headers.get('retry-after'), '1');
    assert.equal(((await second.json()) as { code: string }).code, 'capacity_exhausted');
    assert.equal((await cancel('one', runKey)).status, 202);
    await running;
    assert.equal((await cancel('none', runKey)).status, 404);
    const again = await post({ ...input, runId: 'three' });
    assert.equal(again.status, 200);
    const reader = again.body!.getReader();
    let seen = '';
    while (!seen.includes('\n\n')) seen += new TextDecoder().decode((await reader.read()).value);
    const key = (JSON.parse(seen.slice(seen.indexOf('{'), seen.indexOf('\n\n'))) as { metadata: Record<string, string> }).metadata[
      'fw.runKey'
    ];
    assert.equal((await cancel('three', key)).status, 202);
    for (let r = await reader.read(); !r.done; r = await reader.read()) seen += new TextDecoder().decode(r.value);
    assert.match(seen, /"outcome":\{"type":"cancelled"\}/);
  } finally {
    await app.close();
  }
});

test('the task store refuses a new task past fw.agent.tasks.max live tasks; the process keeps serving', async () => {
  const probe = new ProbeRuntime();
  const app = await startApp((m) => m.mount(Lim), { 'fw.agent.tasks.max': 1 }, [probe]);
  try {
    const stream = await fetch(`${app.base}/fw/agent/lim/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: a2a('slow', 'SendStreamingMessage'),
    });
    await waitFor("app.module.view.tasks()[0]?.state === 'working'", () => app.module.view.tasks()[0]?.state === 'working');
    const refused = (await (
      await fetch(`${app.base}/fw/agent/lim/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: a2a('hello'),
      })
    ).json()) as { error?: { code: number; data?: { code: string } } };
    // The whole store is live: 'capacity_exhausted' (this caller's share is larger than the cap here).
    assert.equal(refused.error?.code, -32000);
    assert.equal(refused.error?.data?.code, 'capacity_exhausted');
    assert.equal(probe.requests.length, 1, 'the refused task never ran');
    assert.equal(app.module.view.tasks().length, 1);
    const id = app.module.view.tasks()[0]!.id;
    await app.module.view.cancelTask(id);
    await stream.text();
    const ok = (await (
      await fetch(`${app.base}/fw/agent/lim/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: a2a('hello'),
      })
    ).json()) as { result?: { task: { status: { state: string } } } };
    assert.equal(ok.result?.task.status.state, 'TASK_STATE_COMPLETED');
  } finally {
    await app.close();
  }
});
