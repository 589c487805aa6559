import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Framework } from '@fw/runtime';
import { mcp as mcpModule } from '@fw/mcp';
import { admin, DENY_ALL, type AdminOptions, type AuditEntry } from '../dist/index.js';
import { fakeAgent } from './doubles.js';

const READ_TOOLS = [
  'fw_overview',
  'fw_list_agents',
  'fw_list_agent_sessions',
  'fw_list_coordinators',
  'fw_list_broadcasters',
  'fw_list_rooms',
  'fw_list_resources',
  'fw_list_handlers',
  'fw_list_interceptors',
  'fw_query_journal',
  'fw_list_tasks',
  'fw_list_runtimes',
  'fw_list_mcp',
  'fw_list_audit',
];
const WRITE_TOOLS = ['fw_broadcast', 'fw_disconnect_resource', 'fw_destroy_broadcaster', 'fw_cancel_task'];

async function start(props: Record<string, unknown>, options: AdminOptions = {}) {
  const fw = new Framework({ configFile: false, 'fw.heartbeat.interval': 0, ...props });
  await fw.use(mcpModule());
  fw.services.provide('agent', fakeAgent());
  await fw.use(admin(options));
  fw.handle('/chat/{room}', {});
  const { port } = await fw.listen(0, '127.0.0.1');
  return { fw, port };
}

async function connect(port: number, headers: Record<string, string> = {}, path = '/fw/admin/mcp'): Promise<Client> {
  const client = new Client({ name: 'admin-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}${path}`), { requestInit: { headers } }));
  return client;
}

test("the fw_* tools live on /fw/admin/mcp; the app's /mcp has them only by opt-in", async () => {
  const { fw, port } = await start({});
  const user = await connect(port, {}, '/mcp');
  try {
    const names = (await user.listTools()).tools.map((t) => t.name);
    assert.deepEqual(
      names.filter((n) => n.startsWith('fw_')),
      [],
      'not on the user server by default',
    );
  } finally {
    await user.close();
    await fw.close();
  }
  const opted = await start({ 'fw.admin.mcp-tools-on-user-server': true });
  const optedUser = await connect(opted.port, {}, '/mcp');
  try {
    const names = (await optedUser.listTools()).tools.map((t) => t.name);
    for (const t of READ_TOOLS) assert.ok(names.includes(t), t);
  } finally {
    await optedUser.close();
    await opted.fw.close();
  }
});

function textOf(result: unknown): string {
  const content = (result as { content: { type: string; text: string }[] }).content;
  return content.map((c) => c.text).join('');
}

test('the SDK client sees the read tools, and no write tool unless enabled', async () => {
  const { fw, port } = await start({});
  const client = await connect(port);
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const t of READ_TOOLS) assert.ok(names.includes(t), t);
    for (const t of WRITE_TOOLS) assert.ok(!names.includes(t), t);
    const agents = await client.callTool({ name: 'fw_list_agents', arguments: {} });
    assert.notEqual(agents.isError, true);
    const parsed = JSON.parse(textOf(agents)) as { name: string; version: string; kind: string; protocols: string[] }[];
    assert.deepEqual(
      parsed.map((a) => [a.name, a.version, a.kind, a.protocols]),
      [
        ['research', '1.0.0', 'agent', ['a2a', 'mcp']],
        ['boss', '2.0.0', 'coordinator', ['a2a']],
      ],
    );
    const ov = JSON.parse(textOf(await client.callTool({ name: 'fw_overview', arguments: {} }))) as { status: string; agentCount: number };
    assert.equal(ov.status, 'UP');
    assert.equal(ov.agentCount, 1);
  } finally {
    await client.close();
    await fw.close();
  }
});

test('write tools act through the control plane; a deny-all authorizer gives isError and an audit entry', async () => {
  const { fw, port } = await start({ 'fw.admin.mcp-write-tools': true });
  const client = await connect(port);
  const chat = new WebSocket(`ws://127.0.0.1:${port}/fw/chat/lobby`);
  const received: string[] = [];
  chat.on('message', (d) => received.push(String(d)));
  try {
    await once(chat, 'open');
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const t of WRITE_TOOLS) assert.ok(names.includes(t), t);
    const ok = await client.callTool({ name: 'fw_broadcast', arguments: { broadcasterId: '/fw/chat/lobby', message: 'from mcp' } });
    assert.notEqual(ok.isError, true);
    assert.deepEqual(JSON.parse(textOf(ok)), { broadcasterId: '/fw/chat/lobby', delivered: 1 });
    while (received.length === 0) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(received, ['from mcp']);
    const missing = await client.callTool({ name: 'fw_cancel_task', arguments: { taskId: 'nope' } });
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /not_found/);
    const audit = JSON.parse(textOf(await client.callTool({ name: 'fw_list_audit', arguments: {} }))) as AuditEntry[];
    assert.deepEqual(
      audit.map((e) => [e.action, e.outcome, e.source]),
      [
        ['cancel', 'failed', 'mcp'],
        ['cancel', 'allowed', 'mcp'],
        ['broadcast', 'allowed', 'mcp'],
      ],
    );
  } finally {
    chat.close();
    await client.close();
    await fw.close();
  }

  const denied = await start({ 'fw.admin.mcp-write-tools': true }, { authorizer: DENY_ALL });
  const c2 = await connect(denied.port);
  try {
    const r = await c2.callTool({ name: 'fw_disconnect_resource', arguments: { uuid: 'whatever' } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /forbidden/);
    const res = await fetch(`http://127.0.0.1:${denied.port}/api/admin/audit`);
    const entries = (await res.json()) as AuditEntry[];
    assert.deepEqual(
      entries.map((e) => [e.action, e.target, e.outcome, e.source, e.success]),
      [['disconnect', 'whatever', 'refused', 'mcp', false]],
    );
  } finally {
    await c2.close();
    await denied.fw.close();
  }
});

test('with a token the admin MCP endpoint refuses a client without it, and serves one with it', async () => {
  const { fw, port } = await start({
    'fw.admin.auth.token': 'admin-token-0123456789',
    'fw.admin.mcp-write-tools': true,
    'fw.admin.mcp-tools-on-user-server': true,
  });
  await assert.rejects(connect(port), /401|nauthorized/);
  const authed = await connect(port, { authorization: 'Bearer admin-token-0123456789' });
  // On the user's server (opted in) a client without the token sees no fw_* tool and can call none.
  const anonUser = await connect(port, {}, '/mcp');
  try {
    assert.deepEqual(
      (await anonUser.listTools()).tools.filter((t) => t.name.startsWith('fw_')),
      [],
    );
    await assert.rejects(anonUser.callTool({ name: 'fw_cancel_task', arguments: { taskId: 't1' } }), /unknown tool/);
    const ok = await authed.callTool({ name: 'fw_cancel_task', arguments: { taskId: 't1' } });
    assert.notEqual(ok.isError, true);
    assert.equal((JSON.parse(textOf(ok)) as { state: string }).state, 'canceled');
    const audit = (await (
      await fetch(`http://127.0.0.1:${port}/api/admin/audit`, { headers: { authorization: 'Bearer admin-token-0123456789' } })
    ).json()) as AuditEntry[];
    assert.deepEqual(
      audit.map((e) => [e.action, e.principal, e.outcome]),
      [
        ['cancel', 'admin', 'allowed'],
        ['read', null, 'refused'],
      ],
    );
    assert.equal(audit[1]?.target, '/fw/admin/mcp');
  } finally {
    await anonUser.close();
    await authed.close();
    await fw.close();
  }
});
