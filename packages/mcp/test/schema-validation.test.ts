import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { z } from 'zod';
import { McpToolResult, mountMcpServer, ToolRegistry } from '../dist/index.js';

/**
 * Tool arguments are validated against the declared schema before the handler runs, in both
 * eras: JSON Schema 2020-12 through Ajv, or a Standard Schema (zod 4 here; fw imports none).
 * A violation is a tool result with isError and a message naming the field; outputSchema binds
 * structuredContent.
 */
const V = '2026-07-28';
let calls = 0;

const booking = {
  type: 'object',
  properties: {
    room: { type: 'string', pattern: '^[a-z]+-[0-9]+$' },
    seats: { type: 'integer', minimum: 1, maximum: 12 },
    kind: { type: 'string', enum: ['meeting', 'focus'] },
    owner: { type: 'object', properties: { email: { type: 'string', pattern: '@' }, team: { type: 'string' } }, required: ['email'] },
  },
  required: ['room', 'seats'],
};

async function start(): Promise<{ fw: Framework; url: string }> {
  const fw = new Framework({ configFile: false });
  const registry = new ToolRegistry('programmatic');
  registry.registerTool({
    name: 'book',
    inputSchema: booking,
    handler: (args) => {
      calls++;
      return `booked ${String(args.room)}`;
    },
  });
  registry.registerTool({
    name: 'zod_book',
    inputSchema: z.object({
      room: z.string().min(2),
      seats: z.number().int().max(12).default(2),
      owner: z.object({ email: z.email() }).optional(),
    }),
    handler: (args) => {
      calls++;
      return `zod booked ${String(args.room)} for ${String(args.seats)}`;
    },
  });
  registry.registerTool({
    name: 'report',
    outputSchema: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] },
    params: [{ name: 'broken', type: 'boolean', required: false }],
    handler: (args) => (args.broken ? { total: 'many' } : { total: 3 }),
  });
  registry.registerTool({
    name: 'zod_report',
    outputSchema: z.object({ total: z.number() }),
    handler: () => new McpToolResult([{ type: 'text', text: 'x' }], { structuredContent: { total: 'x' } }),
  });
  mountMcpServer(fw, { name: 'schemas', version: '1.0.0', path: '/s' }, { registries: [registry], frameworkRegistry: false });
  const { port } = await fw.listen(0, '127.0.0.1');
  return { fw, url: `http://127.0.0.1:${port}/s` };
}

let nextId = 1;
async function modernCall(url: string, name: string, args: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'mcp-protocol-version': V,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} },
      },
    }),
  });
  return ((await res.json()) as { result: Record<string, unknown> }).result;
}

async function legacyCaller(url: string): Promise<(name: string, args: unknown) => Promise<Record<string, unknown>>> {
  const base = { 'content-type': 'application/json', accept: 'application/json' };
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  const session = init.headers.get('mcp-session-id') as string;
  await init.arrayBuffer();
  return async (name, args) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...base, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } }),
    });
    return ((await res.json()) as { result: Record<string, unknown> }).result;
  };
}

const text = (r: Record<string, unknown>): string => (r.content as { text: string }[])[0]?.text ?? '';

const cases: [string, unknown, RegExp][] = [
  ['type', { room: 'a-1', seats: 'two' }, /argument 'seats' must be integer/],
  ['enum', { room: 'a-1', seats: 2, kind: 'party' }, /argument 'kind' must be one of "meeting", "focus"/],
  ['minimum', { room: 'a-1', seats: 0 }, /argument 'seats' must be >= 1/],
  ['maximum', { room: 'a-1', seats: 13 }, /argument 'seats' must be <= 12/],
  ['required', { seats: 2 }, /argument 'room' is required/],
  ['nested object', { room: 'a-1', seats: 2, owner: { team: 'x' } }, /argument 'owner.email' is required/],
  ['nested type', { room: 'a-1', seats: 2, owner: { email: 5 } }, /argument 'owner.email' must be string/],
  ['pattern', { room: 'A1', seats: 2 }, /argument 'room' must match pattern "\^\[a-z\]\+-\[0-9\]\+\$"/],
];

test('every JSON Schema constraint kind is enforced before the handler, with a message naming the field, in both eras', async () => {
  const { fw, url } = await start();
  try {
    const legacy = await legacyCaller(url);
    for (const era of ['2026-07-28', '2025-11-25'] as const) {
      const callTool = era === V ? (n: string, a: unknown) => modernCall(url, n, a) : legacy;
      for (const [kind, args, message] of cases) {
        const before = calls;
        const r = await callTool('book', args);
        assert.equal(r.isError, true, `${era} ${kind}`);
        assert.match(text(r), message, `${era} ${kind}`);
        assert.match(text(r), /^invalid arguments for tool 'book': /);
        assert.equal(calls, before, `${era} ${kind}: the handler must not run`);
      }
      const ok = await callTool('book', { room: 'a-1', seats: 2, kind: 'focus', owner: { email: 'a@b' } });
      assert.equal(ok.isError, undefined);
      assert.equal(text(ok), 'booked a-1');
    }
  } finally {
    await fw.close();
  }
});

test('a Standard Schema (zod 4) validates and parses: the handler gets defaults; tools/list shows its JSON Schema', async () => {
  const { fw, url } = await start();
  try {
    const before = calls;
    const bad = await modernCall(url, 'zod_book', { room: 'x', owner: { email: 'nope' } });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /argument 'room': /);
    assert.match(text(bad), /argument 'owner.email': /);
    assert.equal(calls, before);
    const ok = await modernCall(url, 'zod_book', { room: 'lab' });
    assert.equal(text(ok), 'zod booked lab for 2', 'the parsed value (with its default) reaches the handler');
    const list = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': V, 'mcp-method': 'tools/list' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    });
    const tools = ((await list.json()) as { result: { tools: { name: string; inputSchema: Record<string, unknown> }[] } }).result.tools;
    const schema = tools.find((t) => t.name === 'zod_book')?.inputSchema as {
      type?: string;
      properties?: Record<string, unknown>;
      required?: string[];
    };
    assert.equal(schema.type, 'object');
    assert.deepEqual(Object.keys(schema.properties ?? {}).sort(), ['owner', 'room', 'seats']);
    assert.deepEqual(schema.required, ['room']);
  } finally {
    await fw.close();
  }
});

test('outputSchema binds structuredContent (JSON Schema and Standard Schema)', async () => {
  const { fw, url } = await start();
  try {
    const good = await modernCall(url, 'report', {});
    assert.deepEqual(good.structuredContent, { total: 3 });
    const bad = await modernCall(url, 'report', { broken: true });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /does not match its outputSchema: field 'total' must be number/);
    const zodBad = await modernCall(url, 'zod_report', {});
    assert.equal(zodBad.isError, true);
    assert.match(text(zodBad), /field 'total'/);
  } finally {
    await fw.close();
  }
});
