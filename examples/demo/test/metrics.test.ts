import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDemo } from '../src/main.js';

/** The value of one exposition line `name{labels} value` (labels in prom-client's order). */
function sampleValue(text: string, line: string): number {
  const escaped = line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  assert.ok(m, `${line} is in the scrape`);
  return Number(m[1]);
}

test('/fw/metrics on the demo: MCP tool calls by tool and agent runs by agent, after real calls', async () => {
  const demo = await startDemo({ port: 0, host: '127.0.0.1' });
  const client = new Client({ name: 'metrics-test', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${demo.url}mcp`)));
    await client.callTool({ name: 'list_rooms', arguments: {} });
    await client.callTool({ name: 'list_rooms', arguments: {} });
    await client.callTool({ name: 'post_message', arguments: { room: 'lobby', text: 'from the metrics test' } });

    const a2a = await fetch(`${demo.url}fw/agent/assistant/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'hello' }] } },
      }),
    });
    assert.equal(a2a.status, 200);
    assert.equal(((await a2a.json()) as { result: { status: { state: string } } }).result.status.state, 'completed');

    const res = await fetch(`${demo.url}fw/metrics`);
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.equal(sampleValue(text, 'fw_mcp_tool_call_duration_seconds_count{tool="list_rooms",outcome="ok"}'), 2);
    assert.equal(sampleValue(text, 'fw_mcp_tool_call_duration_seconds_count{tool="post_message",outcome="ok"}'), 1);
    assert.ok(sampleValue(text, 'fw_mcp_tool_call_duration_seconds_sum{tool="list_rooms",outcome="ok"}') >= 0);
    assert.equal(sampleValue(text, 'fw_agent_run_duration_seconds_count{agent="assistant",outcome="ok"}'), 1);
    assert.equal(sampleValue(text, 'fw_http_request_duration_seconds_count{route="/mcp",method="POST",status="200"}') >= 3, true);
    // An unknown tool is refused before it runs: no series for a name a client made up.
    await assert.rejects(client.callTool({ name: 'made_up_tool', arguments: {} }));
    const after = await (await fetch(`${demo.url}fw/metrics`)).text();
    assert.ok(!after.includes('made_up_tool'));
  } finally {
    await client.close();
    await demo.close();
  }
});
