import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { McpError, mountMcpServer, RpcCode, ToolRegistry, type McpContext } from '../dist/index.js';
import { modernCall, type ModernAnswer } from './helpers.js';

/**
 * The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) over real HTTP on loopback:
 * cancellation that really aborts the handler, the limits at their edge, TTL expiry, the
 * binding of a task to the principal that created it, and the gating on the declared extension.
 * The conformance suite (conformance-2026.test.ts) covers the wire shapes.
 */
const EXT = 'io.modelcontextprotocol/tasks';

/** A 2026-07-28 request whose client declared the tasks extension (unless `tasks: false`), as `x-user` when given. */
function call(
  url: string,
  method: string,
  params: Record<string, unknown>,
  opts: { user?: string; tasks?: boolean } = {},
): Promise<ModernAnswer> {
  const caps = opts.tasks === false ? { elicitation: {} } : { elicitation: {}, extensions: { [EXT]: {} } };
  const p = { ...params, _meta: { 'io.modelcontextprotocol/clientCapabilities': caps } };
  return modernCall(url, method, p, opts.user ? { 'x-user': opts.user } : {});
}

/** Polls tasks/get until `done` holds (bounded: 200 polls, 20 s). */
async function until(
  url: string,
  taskId: string,
  done: (t: Record<string, unknown>) => boolean,
  user?: string,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 20_000;
  for (let i = 0; i < 200 && Date.now() < deadline; i++) {
    const r = await call(url, 'tasks/get', { taskId }, { user });
    if (r.body.result && done(r.body.result)) return r.body.result;
    if (r.body.error) return { error: r.body.error };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`task ${taskId} did not reach the expected state in time`);
}

class Probe {
  aborts = 0;
  finishedNormally = 0;
}

async function start(options: Record<string, unknown> = {}): Promise<{ fw: Framework; url: string; probe: Probe }> {
  const fw = new Framework({ configFile: false, ...options });
  const registry = new ToolRegistry('programmatic');
  const probe = new Probe();
  registry.registerTool({
    name: 'wait',
    task: { support: 'optional' },
    // Runs until its signal aborts: only a real abort ends it.
    handler: (_args, ctx: McpContext) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener(
          'abort',
          () => {
            probe.aborts++;
            resolve('aborted');
          },
          { once: true },
        );
      }),
  });
  registry.registerTool({
    name: 'quick',
    task: { support: 'optional' },
    handler: () => {
      probe.finishedNormally++;
      return 'done';
    },
  });
  registry.registerTool({ name: 'must_task', task: { support: 'required' }, handler: () => 'never synchronously' });
  registry.registerTool({
    name: 'broken',
    task: { support: 'optional' },
    handler: () => {
      throw new McpError(RpcCode.InternalError, 'boom', 'the backend is down');
    },
  });
  registry.registerTool({
    name: 'approve',
    task: { support: 'optional' },
    handler: async (_args, ctx: McpContext) => {
      const r = await ctx.input('ok', 'elicitation/create', {
        message: 'Approve?',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      });
      return `approved=${String((r.content as { ok?: unknown } | undefined)?.ok)}`;
    },
  });
  mountMcpServer(
    fw,
    { name: 'tasks', version: '1.0.0', path: '/m' },
    {
      registries: [registry],
      frameworkRegistry: false,
      principalResolver: (req) => (typeof req.headers['x-user'] === 'string' ? { id: req.headers['x-user'], roles: [] } : undefined),
    },
  );
  const addr = await fw.listen(0, '127.0.0.1');
  return { fw, url: `http://127.0.0.1:${addr.port}/m`, probe };
}

async function withServer(options: Record<string, unknown>, fn: (s: Awaited<ReturnType<typeof start>>) => Promise<void>): Promise<void> {
  const s = await start(options);
  try {
    await fn(s);
  } finally {
    await s.fw.close();
  }
}

test('a task-capable tool returns a task; tasks/get inlines the result; without the extension it answers synchronously', () =>
  withServer({}, async ({ url }) => {
    const created = await call(url, 'tools/call', { name: 'quick', arguments: {} });
    assert.equal(created.body.result?.resultType, 'task');
    const taskId = String(created.body.result?.taskId);
    // An anonymous caller's task id carries its 128-bit owner key after the id.
    assert.match(taskId, /^[0-9a-f-]{36}\.[A-Za-z0-9_-]{22}$/);
    const done = await until(url, taskId, (t) => t.status === 'completed');
    assert.deepEqual((done.result as { content: unknown }).content, [{ type: 'text', text: 'done' }]);
    const sync = await call(url, 'tools/call', { name: 'quick', arguments: {} }, { tasks: false });
    assert.equal(sync.body.result?.resultType, 'complete');
    assert.equal(sync.body.result?.taskId, undefined);
    const required = await call(url, 'tools/call', { name: 'must_task', arguments: {} }, { tasks: false });
    assert.equal(required.body.error?.code, -32021);
    assert.deepEqual(required.body.error?.data, { requiredCapabilities: { extensions: { [EXT]: {} } } });
    const gated = await call(url, 'tasks/get', { taskId }, { tasks: false });
    assert.equal(gated.body.error?.code, -32021);
  }));

test('a JSON-RPC error fails the task with the error inlined; input requests park it until tasks/update', () =>
  withServer({}, async ({ url }) => {
    const broken = await call(url, 'tools/call', { name: 'broken', arguments: {} });
    const failed = await until(url, String(broken.body.result?.taskId), (t) => t.status === 'failed');
    assert.deepEqual(failed.error, { code: -32603, message: 'the backend is down' });
    assert.equal(failed.result, undefined);
    const approve = await call(url, 'tools/call', { name: 'approve', arguments: {} });
    const taskId = String(approve.body.result?.taskId);
    const parked = await until(url, taskId, (t) => t.status === 'input_required');
    assert.deepEqual(Object.keys(parked.inputRequests as object), ['ok']);
    const bad = await call(url, 'tasks/update', { taskId, inputResponses: 'yes' });
    assert.equal(bad.body.error?.code, -32602);
    const ack = await call(url, 'tasks/update', { taskId, inputResponses: { ok: { action: 'accept', content: { ok: true } } } });
    assert.equal(ack.body.result?.resultType, 'complete');
    const done = await until(url, taskId, (t) => t.status === 'completed');
    assert.deepEqual((done.result as { content: unknown }).content, [{ type: 'text', text: 'approved=true' }]);
  }));

test("tasks/cancel aborts the handler's signal and settles the task to cancelled", () =>
  withServer({}, async ({ url, probe }) => {
    const created = await call(url, 'tools/call', { name: 'wait', arguments: {} });
    const taskId = String(created.body.result?.taskId);
    assert.equal((await call(url, 'tasks/get', { taskId })).body.result?.status, 'working');
    const ack = await call(url, 'tasks/cancel', { taskId });
    assert.deepEqual(Object.keys(ack.body.result ?? {}).sort(), ['_meta', 'resultType']);
    assert.equal(probe.aborts, 1);
    assert.equal((await call(url, 'tasks/get', { taskId })).body.result?.status, 'cancelled');
    // Idempotent on a terminal task; unknown ids are -32602.
    assert.equal((await call(url, 'tasks/cancel', { taskId })).body.result?.resultType, 'complete');
    assert.equal((await call(url, 'tasks/cancel', { taskId: 'no-such-task' })).body.error?.code, -32602);
  }));

test('a task belongs to its principal: another principal cannot read, answer or cancel it', () =>
  withServer({}, async ({ url, probe }) => {
    const created = await call(url, 'tools/call', { name: 'wait', arguments: {} }, { user: 'alice' });
    const taskId = String(created.body.result?.taskId);
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: {} }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      for (const user of ['mallory', undefined]) {
        const r = await call(url, method, params, { user });
        assert.equal(r.body.error?.code, -32602, `${method} as ${user ?? 'anonymous'}`);
        assert.equal(r.body.error?.message, `unknown task: ${taskId}`);
      }
    }
    assert.equal(probe.aborts, 0);
    assert.equal((await call(url, 'tasks/get', { taskId }, { user: 'alice' })).body.result?.status, 'working');
    await call(url, 'tasks/cancel', { taskId }, { user: 'alice' });
  }));

test('fw.mcp.max-tasks-per-principal: the limit is reached, not passed; another principal is not affected; a task counts until its TTL', () =>
  withServer({ 'fw.mcp.max-tasks-per-principal': 2, 'fw.mcp.task-ttl': '3s' }, async ({ url }) => {
    const a = await call(url, 'tools/call', { name: 'wait', arguments: {} }, { user: 'alice' });
    const b = await call(url, 'tools/call', { name: 'wait', arguments: {} }, { user: 'alice' });
    assert.equal(a.body.result?.resultType, 'task');
    assert.equal(b.body.result?.resultType, 'task');
    const refused = await call(url, 'tools/call', { name: 'wait', arguments: {} }, { user: 'alice' });
    assert.equal(refused.body.error?.code, -32000);
    assert.match(String(refused.body.error?.message), /fw\.mcp\.max-tasks-per-principal/);
    const data = refused.body.error?.data as { status: number; limit: string; retryAfter: number };
    assert.equal(data.status, 429);
    assert.equal(data.limit, 'fw.mcp.max-tasks-per-principal');
    assert.ok(data.retryAfter >= 1 && data.retryAfter <= 3, 'retry when the oldest task reaches its TTL');
    assert.equal((await call(url, 'tools/call', { name: 'wait', arguments: {} }, { user: 'bob' })).body.result?.resultType, 'task');
    // A finished (cancelled) task is kept for its TTL (a client may still read it), so it still counts...
    await call(url, 'tasks/cancel', { taskId: String(a.body.result?.taskId) }, { user: 'alice' });
    assert.equal((await call(url, 'tools/call', { name: 'wait', arguments: {} }, { user: 'alice' })).body.error?.code, -32000);
    // ...until it is forgotten.
    assert.equal((await until(url, String(a.body.result?.taskId), () => false, 'alice')).error !== undefined, true);
    assert.equal((await call(url, 'tools/call', { name: 'wait', arguments: {} }, { user: 'alice' })).body.result?.resultType, 'task');
  }));

test('fw.mcp.max-tasks: an endpoint keeps at most that many tasks', () =>
  withServer({ 'fw.mcp.max-tasks': 2 }, async ({ url }) => {
    assert.equal((await call(url, 'tools/call', { name: 'quick', arguments: {} })).body.result?.resultType, 'task');
    assert.equal((await call(url, 'tools/call', { name: 'quick', arguments: {} }, { user: 'bob' })).body.result?.resultType, 'task');
    const refused = await call(url, 'tools/call', { name: 'quick', arguments: {} }, { user: 'carol' });
    assert.equal(refused.body.error?.code, -32000);
    assert.match(String(refused.body.error?.message), /fw\.mcp\.max-tasks\b/);
  }));

test('fw.mcp.task-ttl: ttlMs is the setting; a task past it is aborted and forgotten', () =>
  withServer({ 'fw.mcp.task-ttl': '400ms', 'fw.mcp.task-poll-interval': '25ms' }, async ({ url, probe }) => {
    const created = await call(url, 'tools/call', { name: 'wait', arguments: {} });
    assert.equal(created.body.result?.ttlMs, 400);
    assert.equal(created.body.result?.pollIntervalMs, 25);
    const taskId = String(created.body.result?.taskId);
    // Still there before its TTL (SEP-2663: MUST NOT expire early).
    assert.equal((await call(url, 'tasks/get', { taskId })).body.result?.status, 'working');
    const gone = await until(url, taskId, () => false);
    assert.equal((gone.error as { code: number }).code, -32602);
    assert.ok(Date.now() - Date.parse(String(created.body.result?.createdAt)) >= 400);
    assert.equal(probe.aborts, 1);
  }));

test('shutdown cancels running tasks (their handlers are aborted)', async () => {
  const s = await start();
  await call(s.url, 'tools/call', { name: 'wait', arguments: {} });
  await s.fw.close();
  assert.equal(s.probe.aborts, 1);
});
