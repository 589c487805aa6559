import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { WebSocket } from 'ws';
import { McpRegistry } from '../dist/index.js';
import { startFixture } from './fixtures/conformance-server.js';

// Node 20 has no global WebSocket; the SDK's WebSocket transport expects one.
(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;

const bridge = fileURLToPath(new URL('../dist/bin/stdio-bridge.js', import.meta.url));

/** initialize, list, call, read and get: what every transport must carry. */
async function exercise(client: Client): Promise<void> {
  assert.equal(client.getServerVersion()?.name, 'fw-conformance-fixture');
  assert.ok(client.getServerCapabilities()?.tools);
  const tools = await client.listTools();
  assert.ok(tools.tools.some((t) => t.name === 'test_simple_text'));
  const call = await client.callTool({ name: 'test_simple_text', arguments: {} });
  assert.deepEqual(call.content, [{ type: 'text', text: 'This is a simple text response for testing.' }]);
  const failed = await client.callTool({ name: 'test_error_handling', arguments: {} });
  assert.equal(failed.isError, true);
  assert.match(JSON.stringify(failed.content), /intentionally returns an error/);
  const read = await client.readResource({ uri: 'test://template/42/data' });
  assert.deepEqual(JSON.parse(String((read.contents[0] as { text?: string }).text)), {
    id: '42',
    templateTest: true,
    data: 'Data for ID: 42',
  });
  const templates = await client.listResourceTemplates();
  assert.deepEqual(
    templates.resourceTemplates.map((t) => t.uriTemplate),
    ['test://template/{id}/data'],
  );
  const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
  assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='a', arg2='b'" } }]);
  const invalid = await client.callTool({ name: 'test_sampling', arguments: {} });
  assert.equal(invalid.isError, true, 'schema violations are tool execution errors the model can read');
  assert.match(JSON.stringify(invalid.content), /argument 'prompt' is required/);
  await assert.rejects(client.readResource({ uri: 'test://nope' }), (err: { code?: number }) => err.code === -32002);
  const progress: number[] = [];
  await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress) });
  assert.deepEqual(progress, [0, 50, 100]);
}

function recordingFetch(contentTypes: string[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if ((init?.method ?? 'GET') === 'POST' && res.status === 200) contentTypes.push(res.headers.get('content-type') ?? '');
    return res;
  };
}

for (const mode of ['json', 'sse'] as const) {
  test(`SDK client over Streamable HTTP with ${mode.toUpperCase()} replies`, async () => {
    const { fw, url } = await startFixture(0, { 'fw.mcp.http-replies': mode });
    const contentTypes: string[] = [];
    const client = new Client({ name: 'sdk-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch(contentTypes) }));
      await exercise(client);
      const expected = mode === 'json' ? 'application/json' : 'text/event-stream';
      assert.ok(contentTypes.length > 5);
      assert.ok(
        contentTypes.every((t) => t.startsWith(expected)),
        contentTypes.join(', '),
      );
    } finally {
      await client.close();
      await fw.close();
    }
  });
}

test('SDK client over WebSocket (subprotocol mcp), with list_changed when the registry changes', async () => {
  const { fw, port } = await startFixture();
  const client = new Client({ name: 'sdk-ws', version: '1.0.0' });
  try {
    await client.connect(new WebSocketClientTransport(new URL(`ws://127.0.0.1:${port}/mcp`)) as Transport);
    await exercise(client);
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    const off = McpRegistry.of(fw).registerTool({
      name: 'runtime_added',
      description: 'registered while a client is connected',
      params: [{ name: 'n', type: 'integer' }],
      handler: (args) => ({ doubled: (args.n as number) * 2 }),
    });
    try {
      await changed;
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'runtime_added'));
      assert.ok(
        tools.tools.some((t) => t.name === 'test_simple_text'),
        'decorated and programmatic tools coexist',
      );
      const r = await client.callTool({ name: 'runtime_added', arguments: { n: 21 } });
      assert.deepEqual(r.structuredContent, { doubled: 42 });
    } finally {
      off();
    }
  } finally {
    await client.close();
    await fw.close();
  }
});

test('SDK client over WebSocket: elicitation and sampling as server-to-client requests (ctx.request and ctx.input), declined answers too', async () => {
  const { fw, port } = await startFixture();
  const client = new Client({ name: 'sdk-ws-input', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
  const asked: string[] = [];
  let decline = false;
  client.setRequestHandler(ElicitRequestSchema, async (r) => {
    asked.push(r.params.message);
    return decline ? { action: 'decline' } : { action: 'accept', content: { username: 'ada', email: 'ada@example.org', name: 'Ada' } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'Paris' },
    model: 'local-test',
  }));
  try {
    await client.connect(new WebSocketClientTransport(new URL(`ws://127.0.0.1:${port}/mcp`)) as Transport);
    const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    assert.deepEqual(elicited.content, [
      { type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"ada@example.org","name":"Ada"}' },
    ]);
    const input = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
    assert.deepEqual(input.content, [{ type: 'text', text: 'Hello, Ada!' }]);
    assert.deepEqual(asked, ['Who are you?', 'What is your name?']);
    const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Capital of France?' } });
    assert.deepEqual(sampled.content, [{ type: 'text', text: 'LLM response: Paris' }]);
    decline = true;
    const declined = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Again?' } });
    assert.deepEqual(declined.content, [{ type: 'text', text: 'User response: action=decline, content={}' }]);
  } finally {
    await client.close();
    await fw.close();
  }
});

test('SDK client over stdio through fw-mcp-stdio-bridge', async () => {
  const { fw, url } = await startFixture();
  const client = new Client({ name: 'sdk-stdio', version: '1.0.0' });
  try {
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [bridge, url], stderr: 'pipe' }));
    await exercise(client);
  } finally {
    await client.close();
    await fw.close();
  }
});
