/**
 * Spec §2.4: "Programmatic registration (a process-wide registry obtained by `McpRegistry.get()`)"
 * and "Programmatic and annotation-based registrations coexist; `tools/list` returns all of them".
 * The process's registry is the one framework's; with none or several there is no such registry,
 * and the error names McpRegistry.of(fw).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcp, McpMessage, McpRegistry, McpServer, McpTool } from '../dist/index.js';

@McpServer({ name: 'rooms', path: '/mcp' })
class Rooms {
  @McpTool({ name: 'list_rooms', description: 'annotation-based' })
  list(): string[] {
    return ['lobby'];
  }
}

test('McpRegistry.get() with no framework in the process: an error that names McpRegistry.of(fw)', () => {
  assert.deepEqual(Framework.live(), []);
  assert.throws(() => McpRegistry.get(), {
    code: 'no_framework',
    message: /no Framework is running in this process yet; create it first \(new Framework\(\)\), or use McpRegistry\.of\(fw\)$/,
  });
});

test('McpRegistry.get() is the one framework’s registry: what it registers is served beside the annotated tools', async () => {
  const fw = new Framework({ configFile: false, env: {} });
  try {
    assert.equal(McpRegistry.get(), McpRegistry.of(fw));
    assert.equal(McpRegistry.get(), fw.mcp);
    McpRegistry.get().registerTool({
      name: 'shout',
      description: 'programmatic',
      params: [{ name: 'text', description: 'what to shout', required: true, type: 'string' }],
      handler: (args) => String(args.text).toUpperCase(),
    });
    McpRegistry.get().registerPrompt({ name: 'greet', params: [{ name: 'who' }], handler: (a) => [McpMessage.user(`Hello ${a.who}`)] });
    await fw.use(mcp({ servers: [Rooms] }));
    const { port } = await fw.listen(0, '127.0.0.1');
    const client = new Client({ name: 'spec', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    try {
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['list_rooms', 'shout']);
      const shouted = await client.callTool({ name: 'shout', arguments: { text: 'hi' } });
      assert.deepEqual(shouted.content, [{ type: 'text', text: 'HI' }]);
      const prompt = await client.getPrompt({ name: 'greet', arguments: { who: 'ada' } });
      assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'Hello ada' });
    } finally {
      await client.close();
    }
  } finally {
    await fw.close();
  }
  assert.throws(() => McpRegistry.get(), { code: 'no_framework' }, 'a closed framework is not the process’s any more');
});

test('with two frameworks McpRegistry.get() refuses, naming McpRegistry.of(fw); when one closes, the other’s registry is it', async () => {
  const a = new Framework({ configFile: false, env: {} });
  const b = new Framework({ configFile: false, env: {} });
  try {
    assert.deepEqual(Framework.live(), [a, b]);
    assert.throws(() => McpRegistry.get(), {
      code: 'several_frameworks',
      message:
        'McpRegistry.get(): 2 frameworks are running in this process, so there is no one process registry; use McpRegistry.of(fw) with the framework you mean',
    });
    await b.close();
    assert.equal(McpRegistry.get(), McpRegistry.of(a));
    assert.notEqual(McpRegistry.of(a), McpRegistry.of(b));
  } finally {
    await a.close();
    await b.close();
  }
});
