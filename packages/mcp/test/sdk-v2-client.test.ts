import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport, type VersionNegotiationMode } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startFixture } from './fixtures/conformance-server.js';

/**
 * The official TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0) against the
 * conformance fixture over Streamable HTTP, in each of its version-negotiation modes: `legacy`
 * (initialize, 2025-11-25), `auto` (probes, lands on 2026-07-28) and pinned to 2026-07-28. The
 * same client code and the same fw handlers serve every mode — elicitation included, as a
 * server-to-client request in the legacy era and as a multi round-trip in the modern one.
 */
const modes: [string, VersionNegotiationMode, string][] = [
  ['legacy', 'legacy', '2025-11-25'],
  ['auto', 'auto', '2026-07-28'],
  ['pinned 2026-07-28', { pin: '2026-07-28' }, '2026-07-28'],
];

for (const [label, mode, expected] of modes) {
  test(`SDK v2 client (${label}) over Streamable HTTP: tools, resources, prompts, elicitation, schema errors`, async () => {
    const { fw, url } = await startFixture();
    const client = new Client(
      { name: 'sdk-v2-test', version: '1.0.0' },
      { capabilities: { elicitation: {}, sampling: {} }, versionNegotiation: { mode } },
    );
    let elicited = 0;
    client.setRequestHandler('elicitation/create', async () => {
      elicited++;
      return { action: 'accept', content: { name: 'Ada' } };
    });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      assert.equal(client.getNegotiatedProtocolVersion(), expected);
      assert.equal(client.getServerVersion()?.name, 'fw-conformance-fixture');

      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'test_simple_text'));
      const simple = await client.callTool({ name: 'test_simple_text', arguments: {} });
      assert.deepEqual(simple.content, [{ type: 'text', text: 'This is a simple text response for testing.' }]);

      const hello = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
      assert.deepEqual(hello.content, [{ type: 'text', text: 'Hello, Ada!' }]);
      assert.equal(elicited, 1);

      const invalid = await client.callTool({ name: 'test_sampling', arguments: {} });
      assert.equal(invalid.isError, true);
      assert.match(JSON.stringify(invalid.content), /argument 'prompt' is required/);

      const text = await client.readResource({ uri: 'test://static-text' });
      assert.deepEqual(text.contents, [
        { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
      ]);
      const templated = await client.readResource({ uri: 'test://template/42/data' });
      assert.match(JSON.stringify(templated.contents), /Data for ID: 42/);
      const templates = await client.listResourceTemplates();
      assert.deepEqual(
        templates.resourceTemplates.map((t) => t.uriTemplate),
        ['test://template/{id}/data'],
      );

      const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
      assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='a', arg2='b'" } }]);
    } finally {
      await client.close();
      await fw.close();
    }
  });
}

const bridge = fileURLToPath(new URL('../dist/bin/stdio-bridge.js', import.meta.url));

for (const [label, mode, expected] of modes) {
  test(`SDK v2 client (${label}) over stdio through fw-mcp-stdio-bridge`, async () => {
    const { fw, url } = await startFixture();
    const client = new Client(
      { name: 'sdk-v2-stdio', version: '1.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode } },
    );
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Grace' } }));
    try {
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [bridge, url], stderr: 'pipe' }));
      assert.equal(client.getNegotiatedProtocolVersion(), expected);
      const call = await client.callTool({ name: 'test_simple_text', arguments: {} });
      assert.deepEqual(call.content, [{ type: 'text', text: 'This is a simple text response for testing.' }]);
      const hello = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
      assert.deepEqual(hello.content, [{ type: 'text', text: 'Hello, Grace!' }]);
      const read = await client.readResource({ uri: 'test://static-text' });
      assert.equal((read.contents[0] as { text?: string }).text, 'This is the content of the static text resource.');
      const prompt = await client.getPrompt({ name: 'test_simple_prompt' });
      assert.equal(prompt.messages.length, 1);
    } finally {
      await client.close();
      await fw.close();
    }
  });
}
