import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpRegistry } from '@fw/mcp';
import { Agent, AgentTool } from '../dist/index.js';
import { startApp } from './helpers.js';

@Agent({ name: 'librarian', headless: true, version: '2.1.0' })
class Librarian {
  @AgentTool({
    description: 'Finds a book',
    input: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  })
  find(input: { title: string }): { title: string; shelf: number } {
    return { title: input.title, shelf: 7 };
  }

  @AgentTool({ name: 'burn', description: 'Always fails' })
  burnBooks(): never {
    throw new Error('not allowed');
  }
}

@Agent({ name: 'toolless', headless: true })
class Toolless {}

test('per-agent MCP endpoint serves the agent tools (and only them) to the official MCP client', async () => {
  const app = await startApp((m) => [Librarian, Toolless].forEach((c) => m.mount(c)));
  const offGlobal = McpRegistry.of(app.fw).registerTool({ name: 'global_tool', description: 'the framework registry', handler: () => 'x' });
  const client = new Client({ name: 'test', version: '1.0.0' });
  try {
    assert.deepEqual(app.module.view.agent('librarian')?.protocols, ['a2a', 'mcp', 'agui']);
    assert.deepEqual(app.module.view.agent('toolless')?.protocols, ['a2a', 'agui']);
    assert.equal((await fetch(`${app.base}/fw/agent/toolless/mcp`, { method: 'POST', body: '{}' })).status, 404);

    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.base}/fw/agent/librarian/mcp`)));
    assert.equal(client.getServerVersion()?.name, 'librarian');
    assert.equal(client.getServerVersion()?.version, '2.1.0');
    const tools = await client.listTools();
    assert.deepEqual(tools.tools.map((t) => t.name).sort(), ['burn', 'find']);
    assert.deepEqual(tools.tools.find((t) => t.name === 'find')?.inputSchema.required, ['title']);
    const found = await client.callTool({ name: 'find', arguments: { title: 'Dune' } });
    assert.deepEqual(found.content, [{ type: 'text', text: '{"title":"Dune","shelf":7}' }]);
    const burnt = await client.callTool({ name: 'burn', arguments: {} });
    assert.equal(burnt.isError, true);
    assert.deepEqual(burnt.content, [{ type: 'text', text: 'not allowed' }]);
  } finally {
    await client.close();
    await app.close();
    offGlobal();
  }
});
