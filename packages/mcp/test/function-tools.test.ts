/**
 * The function-first tool API: `fw.mcp.tool(name, { input, output }, handler)`, the handler's
 * arguments typed from a Standard Schema (zod 4 here) or a JSON Schema, validated before it runs,
 * served like any other tool.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { mcp, McpRegistry } from '../dist/index.js';

test('tool(name, { input, output }, handler): typed arguments, validation before the handler, structured output', async () => {
  const fw = new Framework({ configFile: false });
  await fw.use(mcp());
  const tools = fw.mcp;
  assert.equal(tools, McpRegistry.of(fw), 'fw.mcp is the framework registry');
  let calls = 0;
  tools.tool(
    'add',
    {
      description: 'Adds two numbers',
      input: z.object({ a: z.number(), b: z.number().min(0) }),
      output: z.object({ sum: z.number() }),
    },
    ({ a, b }) => {
      calls++;
      const sum: number = a + b; // typed from the schema: a and b are numbers
      return { sum };
    },
  );
  tools.tool('echo', { input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, (args) =>
    String(args.text),
  );
  const { port } = await fw.listen(0, '127.0.0.1');
  const client = new Client({ name: 'fn', version: '1' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    const listed = (await client.listTools()).tools.find((t) => t.name === 'add');
    assert.equal(listed?.description, 'Adds two numbers');
    assert.ok(listed, 'add is listed');
    assert.deepEqual(Object.keys((listed.inputSchema as { properties: object }).properties), ['a', 'b']);
    const ok = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    assert.deepEqual(ok.structuredContent, { sum: 5 });
    const bad = await client.callTool({ name: 'add', arguments: { a: 2, b: -1 } });
    assert.equal(bad.isError, true);
    assert.match(JSON.stringify(bad.content), /b/, 'the message names the field');
    assert.equal(calls, 1, 'the handler never ran for invalid arguments');
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    assert.deepEqual(echoed.content, [{ type: 'text', text: 'hi' }]);
    const missing = await client.callTool({ name: 'echo', arguments: {} });
    assert.equal(missing.isError, true);
  } finally {
    await client.close();
    await fw.close();
  }
});
