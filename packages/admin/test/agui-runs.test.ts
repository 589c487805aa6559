/**
 * Issue 16 item 5: AG-UI runs are listed in the admin plane beside the A2A tasks and cancellable
 * there (REST; the MCP admin tools and the dashboard use the same view), and every agent run is
 * listed from the store under /runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpAgent, type BaseEvent } from '@ag-ui/client';
import { Framework } from '@fw/runtime';
import { mcp as mcpModule } from '@fw/mcp';
import { Agent, AgentModule, type AiRequest, type ModelProvider, type AiStreamPart } from '@fw/agent';
import { admin } from '../dist/index.js';

/** Streams a token every 20 ms until its signal aborts. */
class Endless implements ModelProvider {
  readonly name = 'endless';
  readonly priority = 5;
  readonly capabilities = ['streaming'];
  readonly models = ['endless-1'];
  isAvailable(): boolean {
    return true;
  }
  async *stream(_r: AiRequest, signal: AbortSignal): AsyncIterable<AiStreamPart> {
    for (let i = 0; i < 10_000; i++) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, 20);
        signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
      });
      yield { type: 'text', delta: `t${i} ` };
    }
  }
}

class Writer {}
Agent({ name: 'writer-agui', headless: true })(Writer);

test('an AG-UI run in flight is listed with the tasks, cancelled from the admin REST API, and kept under /runs', async () => {
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': '',
    'fw.ai.auto': false,
    'fw.heartbeat.interval': 0,
  });
  const agents = new AgentModule({ providers: [new Endless()] });
  await fw.use(agents);
  agents.mount(Writer);
  await fw.use(admin());
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  try {
    const res = await fetch(`${base}/fw/agent/writer-agui/agui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        threadId: 'th-1',
        runId: 'run-1',
        messages: [{ id: 'u1', role: 'user', content: 'write forever' }],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      }),
    });
    const reader = res.body!.getReader();
    let sse = '';
    const decoder = new TextDecoder();
    while (!sse.includes('TEXT_MESSAGE_CONTENT')) {
      const { value, done } = await reader.read();
      if (done) break;
      sse += decoder.decode(value);
    }
    const tasks = (await (await fetch(`${base}/api/admin/tasks`)).json()) as {
      id: string;
      protocol?: string;
      state: string;
      contextId: string;
    }[];
    const run = tasks.find((t) => t.protocol === 'agui');
    assert.deepEqual(run && { id: run.id, state: run.state, contextId: run.contextId }, {
      id: 'agui:writer-agui:run-1',
      state: 'working',
      contextId: 'th-1',
    });
    assert.equal(
      ((await (await fetch(`${base}/api/admin/tasks/${encodeURIComponent(run!.id)}`)).json()) as { protocol: string }).protocol,
      'agui',
    );

    const cancel = await fetch(`${base}/api/admin/tasks/${encodeURIComponent(run!.id)}/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'enough' }),
    });
    assert.equal(cancel.status, 200);
    assert.equal(((await cancel.json()) as { state: string }).state, 'canceled');
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      sse += decoder.decode(value);
    }
    assert.match(sse, /"type":"RUN_FINISHED"[^\n]*"outcome":\{"type":"cancelled"\}/);
    assert.equal(((await (await fetch(`${base}/api/admin/tasks`)).json()) as unknown[]).length, 0, 'no longer in flight');
    const again = await fetch(`${base}/api/admin/tasks/${encodeURIComponent(run!.id)}/cancel`, { method: 'POST' });
    assert.equal(again.status, 404);

    const runs = (await (await fetch(`${base}/api/admin/runs?protocol=agui`)).json()) as {
      ref: string;
      state: string;
      agentName: string;
    }[];
    assert.deepEqual(
      runs.map((r) => [r.agentName, r.ref, r.state]),
      [['writer-agui', 'run-1', 'cancelled']],
    );
    assert.equal((await fetch(`${base}/api/admin/runs?state=bogus`)).status, 400);
  } finally {
    await fw.close();
  }
});

test('fw_cancel_task on /fw/admin/mcp (write tools on) cancels an AG-UI run in flight; @ag-ui/client sees it end cancelled', async () => {
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.data-dir': '',
    'fw.ai.auto': false,
    'fw.heartbeat.interval': 0,
    'fw.admin.mcp-write-tools': true,
  });
  await fw.use(mcpModule());
  const agents = new AgentModule({ providers: [new Endless()] });
  await fw.use(agents);
  agents.mount(Writer);
  await fw.use(admin());
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  const client = new Client({ name: 'agui-cancel-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/fw/admin/mcp`)));
  try {
    const agent = new HttpAgent({ url: `${base}/fw/agent/writer-agui/agui` });
    agent.messages = [{ id: 'u1', role: 'user', content: 'write forever' }];
    const events: BaseEvent[] = [];
    let streaming!: () => void;
    const firstToken = new Promise<void>((r) => (streaming = r));
    const run = agent.runAgent(
      { runId: 'run-mcp-1' },
      {
        onEvent: ({ event }) => {
          events.push(event);
          if (event.type === 'TEXT_MESSAGE_CONTENT') streaming();
        },
      },
    );
    await firstToken;

    const listed = await client.callTool({ name: 'fw_list_tasks', arguments: {} });
    assert.match(JSON.stringify(listed.content), /agui:writer-agui:run-mcp-1/);
    const cancelled = await client.callTool({
      name: 'fw_cancel_task',
      arguments: { taskId: 'agui:writer-agui:run-mcp-1', reason: 'stop' },
    });
    assert.notEqual(cancelled.isError, true, JSON.stringify(cancelled.content));
    assert.match(JSON.stringify(cancelled.content), /canceled/);

    await run;
    const last = events.at(-1) as BaseEvent & { outcome?: { type: string } };
    assert.equal(last.type, 'RUN_FINISHED');
    assert.deepEqual(last.outcome, { type: 'cancelled' });
    const again = await client.callTool({ name: 'fw_cancel_task', arguments: { taskId: 'agui:writer-agui:run-mcp-1' } });
    assert.equal(again.isError, true, 'a finished run is no longer cancellable');
    const runs = (await (await fetch(`${base}/api/admin/runs?protocol=agui`)).json()) as { ref: string; state: string }[];
    assert.deepEqual(
      runs.map((r) => [r.ref, r.state]),
      [['run-mcp-1', 'cancelled']],
    );
  } finally {
    await client.close();
    await fw.close();
  }
});
