/**
 * MCP tasks (the tasks extension of 2026-07-28) in the admin Tasks view beside the A2A tasks:
 * listed with protocol 'mcp', readable one by one, and cancelled over REST — which aborts the
 * tool handler and is audited.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { mcp as mcpModule, mountMcpServer, ToolRegistry, type McpContext } from '@fw/mcp';
import { admin } from '../dist/index.js';

test('an MCP task is listed in /api/admin/tasks (protocol mcp) and cancelled there: the handler aborts, the cancel is audited', async () => {
  const fw = new Framework({ configFile: false, env: {}, 'fw.data-dir': '', 'fw.heartbeat.interval': 0 });
  await fw.use(mcpModule());
  await fw.use(admin());
  const registry = new ToolRegistry('programmatic');
  let aborted = 0;
  registry.registerTool({
    name: 'reindex',
    task: { support: 'optional' },
    handler: (_args, ctx: McpContext) =>
      new Promise((resolve) =>
        ctx.signal.addEventListener(
          'abort',
          () => {
            aborted++;
            resolve('stopped');
          },
          { once: true },
        ),
      ),
  });
  mountMcpServer(fw, { name: 'jobs', version: '1.0.0', path: '/jobs' }, { registries: [registry], frameworkRegistry: false });
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  try {
    const created = await fetch(`${base}/jobs`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'reindex',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'reindex',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
          },
        },
      }),
    });
    // Operators see a task by its id; an anonymous caller's id also carries its owner key after a dot, never shown here.
    const taskId = ((await created.json()) as { result: { taskId: string } }).result.taskId.split('.')[0] as string;
    const tasks = (await (await fetch(`${base}/api/admin/tasks`)).json()) as {
      id: string;
      protocol?: string;
      state: string;
      agentName: string;
      contextId: string;
      owner?: string;
    }[];
    const listed = tasks.find((t) => t.id === taskId);
    assert.deepEqual(
      listed && {
        protocol: listed.protocol,
        state: listed.state,
        agentName: listed.agentName,
        contextId: listed.contextId,
        owner: listed.owner,
      },
      { protocol: 'mcp', state: 'working', agentName: 'reindex', contextId: '/jobs', owner: 'anonymous' },
    );
    assert.equal(((await (await fetch(`${base}/api/admin/tasks/${taskId}`)).json()) as { protocol: string }).protocol, 'mcp');
    assert.equal(((await (await fetch(`${base}/api/admin/tasks?state=completed`)).json()) as unknown[]).length, 0);

    const cancel = await fetch(`${base}/api/admin/tasks/${taskId}/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'maintenance' }),
    });
    assert.equal(cancel.status, 200);
    assert.deepEqual((await cancel.json()) as { state: string; message: string }, {
      ...(listed as object),
      state: 'cancelled',
      message: 'maintenance',
      updatedAt: ((await (await fetch(`${base}/api/admin/tasks/${taskId}`)).json()) as { updatedAt: string }).updatedAt,
    });
    assert.equal(aborted, 1, 'the tool handler was aborted');
    const audit = (await (await fetch(`${base}/api/admin/audit`)).json()) as { action: string; target: string; outcome: string }[];
    assert.ok(
      audit.some((e) => e.action === 'cancel' && e.target === taskId && e.outcome === 'allowed'),
      JSON.stringify(audit),
    );
  } finally {
    await fw.close();
  }
});
