import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { HttpAgent, type BaseEvent } from '@ag-ui/client';
import { Agent, AgentTool, Coordinator, OnPrompt, type AgentContext, type CoordinatorContext } from '../dist/index.js';
import { sleep } from '../dist/runtime/offline.js';
import { aguiRuns } from '../dist/agui/runs.js';
import { startApp, type TestApp } from './helpers.js';
import { waitFor } from '@fw/testing';

@Agent({ name: 'helper', headless: true })
class Helper {
  @AgentTool({ description: 'Looks a word up', input: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } })
  lookup(input: { q: string }): string {
    return `definition of ${input.q}`;
  }
}

@Agent({ name: 'failing', headless: true })
class Failing {
  @OnPrompt()
  prompt(): string {
    throw new Error('no answer today');
  }
}

@Agent({ name: 'slowpoke', headless: true })
class Slowpoke {
  @OnPrompt()
  async *prompt(_m: string, ctx: AgentContext): AsyncIterable<string> {
    for (let i = 0; ; i++) {
      await sleep(20, ctx.signal);
      yield `tick${i} `;
    }
  }
}

@Coordinator({ name: 'lead', fleet: ['helper', 'failing'] })
class Lead {
  @OnPrompt()
  async prompt(message: string, ctx: CoordinatorContext): Promise<string> {
    const a = await ctx.dispatch('helper', message, { skill: 'answer' });
    const b = await ctx.dispatch('failing', message, { skill: 'second-opinion' }).catch((e: Error) => ({ text: `(${e.message})` }));
    return `${a.text} / ${b.text}`;
  }
}

let app: TestApp;
before(async () => {
  app = await startApp((m) => [Helper, Failing, Slowpoke, Lead].forEach((c) => m.mount(c)));
});
after(() => app.close());

async function runAgui(agentName: string, text: string, onEvent?: (e: BaseEvent, agent: HttpAgent) => void): Promise<BaseEvent[]> {
  const agent = new HttpAgent({ url: `${app.base}/fw/agent/${agentName}/agui` });
  agent.messages = [{ id: 'm1', role: 'user', content: text }];
  const events: BaseEvent[] = [];
  await agent.runAgent(
    { runId: `run-${agentName}-${Date.now()}` },
    {
      onEvent: ({ event }) => {
        events.push(event);
        onEvent?.(event, agent);
      },
    },
  );
  return events;
}

test('@ag-ui/client runs an agent with a tool call; its event verification passes', async () => {
  const events = await runAgui('helper', '/lookup {"q":"fw"}');
  const types = events.map((e) => e.type);
  assert.deepEqual(
    types.filter((t, i) => t !== types[i - 1]),
    [
      'RUN_STARTED',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ],
  );
  const result = events.find((e) => e.type === 'TOOL_CALL_RESULT') as BaseEvent & { content: string };
  assert.equal(result.content, 'definition of fw');
  const text = events
    .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
    .map((e) => (e as BaseEvent & { delta: string }).delta)
    .join('');
  assert.equal(text, 'Tool lookup returned: definition of fw');
  assert.deepEqual((events.at(-1) as BaseEvent & { outcome: unknown }).outcome, { type: 'success' });
});

test('a coordinator run shows its dispatches as SUBAGENT_* events', async () => {
  const events = await runAgui('lead', 'hello team');
  const sub = events.filter((e) => e.type.startsWith('SUBAGENT_')) as (BaseEvent & {
    name?: string;
    subagentRunId: string;
    message?: string;
    result?: string;
  })[];
  assert.deepEqual(
    sub.map((e) => e.type),
    ['SUBAGENT_STARTED', 'SUBAGENT_FINISHED', 'SUBAGENT_STARTED', 'SUBAGENT_ERROR'],
  );
  assert.equal(sub[0]!.name, 'helper');
  assert.equal(sub[1]!.subagentRunId, sub[0]!.subagentRunId);
  assert.equal(sub[1]!.result, 'You said: hello team');
  assert.equal(sub[2]!.name, 'failing');
  assert.equal(sub[3]!.message, 'no answer today');
  const text = events
    .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
    .map((e) => (e as BaseEvent & { delta: string }).delta)
    .join('');
  assert.equal(text, 'You said: hello team / (no answer today)');
  assert.equal(events.at(-1)!.type, 'RUN_FINISHED');
});

test('cancelling a run ends it with the cancelled outcome', async () => {
  let cancelled = false;
  const runId = 'run-to-cancel';
  const agent = new HttpAgent({ url: `${app.base}/fw/agent/slowpoke/agui` });
  agent.messages = [{ id: 'm1', role: 'user', content: 'go' }];
  const events: BaseEvent[] = [];
  let cancelStatus = 0;
  // An anonymous run is cancelled with the owner key its RUN_STARTED carried.
  const cancel = (runKey: string | undefined) =>
    fetch(`${app.base}/fw/agent/slowpoke/agui/runs/${runId}/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ runKey }),
    });
  let runKey: string | undefined;
  await agent.runAgent(
    { runId },
    {
      onEvent: async ({ event }) => {
        events.push(event);
        if (event.type === 'RUN_STARTED') runKey = (event.metadata as Record<string, string> | undefined)?.['fw.runKey'];
        if (event.type === 'TEXT_MESSAGE_CONTENT' && !cancelled) {
          cancelled = true;
          cancelStatus = (await cancel(runKey)).status;
        }
      },
    },
  );
  assert.match(runKey ?? '', /^[\w-]{22}$/);
  assert.equal(cancelStatus, 202);
  const last = events.at(-1) as BaseEvent & { outcome?: { type: string } };
  assert.equal(last.type, 'RUN_FINISHED');
  assert.deepEqual(last.outcome, { type: 'cancelled' });
  assert.ok(events.some((e) => e.type === 'TEXT_MESSAGE_END'));
  assert.equal((await cancel(runKey)).status, 404);
});

test('a bad RunAgentInput gets 400 problem+json; the server keeps serving', async () => {
  const post = (body: string) =>
    fetch(`${app.base}/fw/agent/helper/agui`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  for (const body of ['{}', JSON.stringify({ threadId: 't', runId: 'r', messages: 'nope', tools: [], context: [] }), '{broken']) {
    const res = await post(body);
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    const problem = (await res.json()) as { status: number; code: string };
    assert.equal(problem.status, 400);
    assert.ok(['bad_request', 'invalid_json'].includes(problem.code));
  }
  const noUser = await post(
    JSON.stringify({ threadId: 't', runId: 'r', messages: [], tools: [], context: [], state: {}, forwardedProps: {} }),
  );
  assert.equal(noUser.status, 400);
  const unknown = await fetch(`${app.base}/fw/agent/nobody/agui`, { method: 'POST', body: '{}' });
  assert.equal(unknown.status, 404);
  // Still serving.
  const events = await runAgui('helper', 'still there?');
  assert.equal(events.at(-1)!.type, 'RUN_FINISHED');
});

test('a client that disconnects cancels its run (the agent sees the abort)', async () => {
  const ac = new AbortController();
  const res = await fetch(`${app.base}/fw/agent/slowpoke/agui`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ threadId: 't', runId: 'gone', messages: [{ id: 'm', role: 'user', content: 'go' }], tools: [], context: [] }),
    signal: ac.signal,
  });
  const reader = res.body!.getReader();
  let seen = '';
  while (!seen.includes('TEXT_MESSAGE_CONTENT')) seen += new TextDecoder().decode((await reader.read()).value);
  const runs = aguiRuns(app.module.host);
  const run = runs.get('slowpoke:gone')!;
  assert.ok(run && !run.abort.signal.aborted);
  ac.abort();
  await waitFor("run.abort.signal.aborted && !runs.get('slowpoke:gone')", () => run.abort.signal.aborted && !runs.get('slowpoke:gone'));
});
