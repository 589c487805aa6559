/**
 * Attack: on an agent's own MCP endpoint (`/fw/agent/{name}/mcp`), bob uses alice's MCP session
 * id to call the agent's tools as her. The session is bound to the principal that opened it by
 * @fw/mcp (which owns MCP sessions and tasks; see docs/security.md, Tenancy, MCP): the agent
 * endpoint must keep that binding. With fw.auth.tokens; anonymous MCP sessions are @fw/mcp's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, AgentTool } from '../../dist/index.js';
import { startApp } from '../helpers.js';
import { CONFIGURATIONS } from './helpers.js';

@Agent({ name: 'vault', headless: true })
class Vault {
  @AgentTool({ description: 'Reads the caller’s notes' })
  notes(): string {
    return 'alice-mcp-secret';
  }
}

const config = CONFIGURATIONS.find((c) => c.token('alice') !== undefined)!;

test('bob presenting alice’s MCP session id on the agent’s MCP endpoint is refused and calls nothing', async () => {
  const app = await startApp((m) => m.mount(Vault), config.options);
  const alice = new Client({ name: 'alice', version: '1.0.0' });
  try {
    const transport = new StreamableHTTPClientTransport(new URL(`${app.base}/fw/agent/vault/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${config.token('alice')}` } },
    });
    await alice.connect(transport);
    assert.ok(transport.sessionId);
    const res = await fetch(`${app.base}/fw/agent/vault/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${config.token('bob')}`,
        'mcp-session-id': transport.sessionId,
        'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'notes', arguments: {} } }),
    });
    const text = await res.text();
    assert.ok(res.status === 403 || res.status === 404, `${res.status} ${text}`);
    assert.ok(!text.includes('alice-mcp-secret'), text);
    // Alice's own session still works.
    const own = await alice.callTool({ name: 'notes', arguments: {} });
    assert.deepEqual(own.content, [{ type: 'text', text: 'alice-mcp-secret' }]);
  } finally {
    await alice.close();
    await app.close();
  }
});
