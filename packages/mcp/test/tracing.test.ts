import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startFixture } from './fixtures/conformance-server.js';
import { parentOf, registerTracing, spanNamed } from '@fw/testing/tracing';

const exporter = registerTracing();

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';

test('tools/call over Streamable HTTP: a server span per call, continuing the HTTP traceparent; errors and _meta trace context', async () => {
  const { fw, url } = await startFixture();
  const client = new Client({ name: 'traced', version: '1.0.0' });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { traceparent: `00-${TRACE}-${PARENT}-01` } } }),
    );
    const ok = await client.callTool({ name: 'test_simple_text', arguments: {} });
    assert.equal(ok.isError, undefined);
    const span = spanNamed(exporter, 'tools/call test_simple_text');
    assert.equal(span.kind, SpanKind.SERVER);
    assert.equal(span.spanContext().traceId, TRACE);
    assert.equal(parentOf(span), PARENT);
    assert.equal(span.attributes['mcp.method.name'], 'tools/call');
    assert.equal(span.attributes['gen_ai.tool.name'], 'test_simple_text');
    assert.equal(span.attributes['gen_ai.operation.name'], 'execute_tool');
    assert.equal(typeof span.attributes['jsonrpc.request.id'], 'string');
    assert.equal(typeof span.attributes['mcp.protocol.version'], 'string');
    assert.equal(span.status.code, SpanStatusCode.UNSET);
    assert.ok(!Object.keys(span.attributes).includes('mcp.session.id'), 'the session id (a bearer of the session) is not exported');

    // A tool execution error: a result for the model, and a failed span for the operator.
    const failed = await client.callTool({ name: 'test_error_handling', arguments: {} });
    assert.equal(failed.isError, true);
    const error = spanNamed(exporter, 'tools/call test_error_handling');
    assert.equal(error.status.code, SpanStatusCode.ERROR);
    assert.equal(error.attributes['error.type'], 'tool_error');

    // An unknown tool: a protocol error; the client's made-up name stays out of the span name.
    await assert.rejects(client.callTool({ name: 'no_such_tool_x', arguments: {} }));
    const unknown = spanNamed(exporter, 'tools/call');
    assert.equal(unknown.status.code, SpanStatusCode.ERROR);
    assert.equal(unknown.attributes['error.type'], '-32602');
    assert.ok(!exporter.getFinishedSpans().some((s) => s.name.includes('no_such_tool_x')));

    // Trace context in params._meta (the MCP semantic conventions' carrier) wins over the HTTP one.
    const metaTrace = '11111111111111111111111111111111';
    const metaParent = '2222222222222222';
    await client.callTool({ name: 'test_simple_text', arguments: {}, _meta: { traceparent: `00-${metaTrace}-${metaParent}-01` } });
    const carried = spanNamed(exporter, 'tools/call test_simple_text');
    assert.equal(carried.spanContext().traceId, metaTrace);
    assert.equal(parentOf(carried), metaParent);
  } finally {
    await client.close();
    await fw.close();
  }
});
