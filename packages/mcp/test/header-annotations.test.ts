import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpRegistrationError, ToolRegistry } from '../dist/index.js';
import type { JsonSchema } from '../dist/schema.js';

/**
 * `x-mcp-header` annotations are checked when a tool is registered (2026-07-28
 * transports/streamable-http "Schema Extension"): a conforming client drops a tool that breaks
 * a constraint, so fw refuses it at once with the tool and the parameter named.
 */
const register =
  (inputSchema: JsonSchema): (() => void) =>
  () =>
    new ToolRegistry('programmatic').registerTool({ name: 'query', inputSchema, handler: () => 'ok' });

test('valid annotations register: string, integer, boolean, nested through properties only', () => {
  assert.doesNotThrow(
    register({
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        limit: { type: 'integer', 'x-mcp-header': 'Limit' },
        dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
        target: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
        // Data that merely looks like an annotation is not one.
        note: { type: 'object', default: { 'x-mcp-header': 'not an annotation' } },
      },
    }),
  );
});

const invalid: [string, JsonSchema, RegExp][] = [
  [
    'empty',
    { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': '' } } },
    /parameter 'region': x-mcp-header must be a non-empty string/,
  ],
  [
    'not a token (space)',
    { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'My Region' } } },
    /parameter 'region': x-mcp-header "My Region" is not an HTTP field-name token/,
  ],
  [
    'CR LF',
    { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region\r\nX-Evil: 1' } } },
    /parameter 'region'.*not an HTTP field-name token/,
  ],
  [
    'duplicate, case-insensitively',
    { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'REGION' } } },
    /parameter 'b': x-mcp-header 'REGION' is already used by parameter 'a'/,
  ],
  [
    'number type',
    { type: 'object', properties: { ratio: { type: 'number', 'x-mcp-header': 'Ratio' } } },
    /parameter 'ratio': x-mcp-header is only allowed on string, integer or boolean/,
  ],
  [
    'object type',
    { type: 'object', properties: { o: { type: 'object', 'x-mcp-header': 'O' } } },
    /parameter 'o'.*only allowed on string, integer or boolean/,
  ],
  [
    'under items',
    { type: 'object', properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } } },
    /parameter 'list'.*reachable from the root through 'properties' alone/,
  ],
  [
    'under anyOf',
    { type: 'object', properties: { v: { anyOf: [{ type: 'string', 'x-mcp-header': 'V' }] } } },
    /parameter 'v'.*reachable from the root/,
  ],
  [
    'under $defs',
    { type: 'object', properties: { v: { $ref: '#/$defs/v' } }, $defs: { v: { type: 'string', 'x-mcp-header': 'V' } } },
    /reachable from the root/,
  ],
];

for (const [what, schema, message] of invalid) {
  test(`an invalid x-mcp-header is refused at registration: ${what}`, () => {
    assert.throws(register(schema), (err: unknown) => {
      assert.ok(err instanceof McpRegistrationError);
      assert.match(err.message, /^tool 'query' has an invalid x-mcp-header annotation: /);
      assert.match(err.message, message);
      return true;
    });
  });
}

test('the tool is not registered when refused', () => {
  const registry = new ToolRegistry('programmatic');
  assert.throws(
    () =>
      registry.registerTool({ name: 'bad', params: [{ name: 'r', schema: { type: 'number', 'x-mcp-header': 'R' } }], handler: () => 'x' }),
    McpRegistrationError,
  );
  assert.equal(
    registry.tools().some((t) => t.name === 'bad'),
    false,
  );
});
