import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpMessage, McpParam, McpPrompt, McpResource, McpServer, McpTool, type McpContext } from '../dist/index.js';
import { buildRegistry, serverDeclaration } from '../dist/decorators.js';
import { toolResult } from '../dist/protocol/dispatcher.js';

class Base {
  @McpTool({ name: 'inherited', description: 'from the base class' })
  inherited(): string {
    return 'base';
  }
}

@McpServer({ name: 'decl' })
class Decl extends Base {
  @McpTool({ name: 'mixed', description: 'context between params' })
  mixed(
    @McpParam({ name: 'a', description: 'first', type: 'integer' }) a: number,
    ctx: McpContext,
    @McpParam({ name: 'b', required: false, schema: { type: 'array', items: { type: 'string' } } }) b: string[] | undefined,
  ): string {
    return `${a}|${ctx.requestId}|${JSON.stringify(b ?? null)}`;
  }

  @McpResource({ uri: 'fw://items/{itemId}' })
  item(@McpParam({ name: 'itemId' }) id: string): string {
    return `item ${id}`;
  }

  @McpPrompt({ name: 'p', description: 'a prompt' })
  prompt(@McpParam({ name: 'topic' }) topic: string): McpMessage[] {
    return [McpMessage.system(`about ${topic}`), McpMessage.assistant('ok')];
  }
}

test('@McpServer defaults: metadata on the class, nothing registered anywhere', () => {
  assert.deepEqual(serverDeclaration(Decl), { name: 'decl', version: '1.0.0', path: '/mcp', instructions: undefined });
});

test('decorated methods: inherited tools, generated schemas, context injected where no @McpParam is', async () => {
  const registry = buildRegistry(new Decl());
  assert.deepEqual(
    registry
      .tools()
      .map((t) => t.name)
      .sort(),
    ['inherited', 'mixed'],
  );
  const mixed = registry.findTool('mixed')!;
  assert.deepEqual(mixed.inputSchema, {
    type: 'object',
    properties: { a: { type: 'integer', description: 'first' }, b: { type: 'array', items: { type: 'string' } } },
    required: ['a'],
  });
  const ctx = { requestId: 'r-1' } as unknown as McpContext;
  assert.equal(await mixed.handler({ a: 3, b: ['x'] }, ctx), '3|r-1|["x"]');
  const res = registry.resources()[0]!;
  assert.equal(res.mimeType, 'text/plain');
  assert.equal(res.name, 'fw://items/{itemId}');
  assert.equal(await res.read({ itemId: '9' }, ctx), 'item 9');
  const prompt = registry.prompt('p')!;
  assert.deepEqual(
    prompt.params.map((p) => [p.name, p.required]),
    [['topic', true]],
  );
  const messages = (await prompt.handler({ topic: 'cats' }, ctx)) as McpMessage[];
  assert.deepEqual(
    JSON.parse(JSON.stringify(messages)),
    [
      { role: 'user', content: { type: 'text', text: 'about cats' } },
      { role: 'assistant', content: { type: 'text', text: 'ok' } },
    ],
    'a system message travels as user: MCP prompts have no system role',
  );
});

test('tool results: strings, nothing, records (structuredContent from 2025-06-18)', () => {
  assert.deepEqual(toolResult('hi', '2025-03-26'), { content: [{ type: 'text', text: 'hi' }] });
  assert.deepEqual(toolResult(undefined, '2025-06-18'), { content: [] });
  assert.deepEqual(toolResult([1, 2], '2025-06-18'), { content: [{ type: 'text', text: '[1,2]' }] });
  assert.deepEqual(toolResult({ a: 1 }, '2025-03-26'), { content: [{ type: 'text', text: '{"a":1}' }] });
  assert.deepEqual(toolResult({ a: 1 }, '2025-06-18'), { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } });
});
