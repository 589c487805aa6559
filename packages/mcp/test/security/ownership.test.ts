/**
 * Issue #24 "Safe between users": who may act on MCP work. A task belongs to the principal that
 * created it or, for an anonymous caller, to the 128-bit owner key inside the id it was handed
 * (before, every anonymous caller was one owner: anyone who learnt a task's id, e.g. from the
 * admin view, read, answered and cancelled it). A legacy session belongs to the principal that
 * initialized it, or to no principal at all: a token holder cannot use an anonymous session. Every
 * refusal reads exactly like an unknown id. Run in both configurations, over HTTP and WebSocket.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ALICE,
  BOB,
  bearer,
  CONFIGS,
  JSON_HEADERS,
  legacySession,
  modernMeta,
  modernPost,
  openSocket,
  send,
  startServer,
  TASKS_EXTENSION,
  TOKENS,
} from './support.js';

const TASKS = { extensions: { [TASKS_EXTENSION]: {} } };

/** The refusal with the id it names taken out: what must not differ between "not yours" and "no such task". */
function shape(error: { code: number; message: string; data?: unknown } | undefined, id: string): unknown {
  return error && { ...error, message: error.message.split(id).join('<id>') };
}

for (const config of CONFIGS) {
  const authenticated = config.tokens.alice !== undefined;
  test(`${config.name}: a task is its creator's alone: tasks/get, tasks/update, tasks/cancel by anyone else (HTTP and WebSocket, the id the admin view shows) read exactly like an unknown id; tasks/list and tasks/result do not exist; the admin view lists it`, async () => {
    const server = await startServer(config.options);
    const { port } = server;
    try {
      const created = await modernPost(
        port,
        'tools/call',
        { name: 'wait', arguments: {} },
        { token: config.tokens.alice, capabilities: TASKS },
      );
      const taskId = String(created.json().result?.taskId);
      assert.equal(created.json().result?.resultType, 'task');
      // What an operator (and anyone who reads the admin view or logs) sees of it.
      const [listed] = server.mounted.endpoint.protocol.tasks.all().map((t) => t.summary());
      assert.equal(listed?.owner, authenticated ? 'principal:alice' : 'anonymous');
      const visibleId = String(listed?.taskId);

      const unknown = '00000000-0000-4000-8000-000000000000';
      const intruders = authenticated
        ? [
            { who: 'bob', token: BOB, id: taskId, from: '127.0.0.1' },
            { who: 'anonymous (auth none)', token: undefined, id: taskId, from: '127.0.0.1' },
          ]
        : [
            // Another anonymous client that learnt the id from the admin view, from elsewhere and from the same address.
            { who: 'anonymous elsewhere', token: undefined, id: visibleId, from: '127.0.0.2' },
            { who: 'anonymous, same address', token: undefined, id: visibleId, from: '127.0.0.1' },
            { who: 'anonymous, guessed key', token: undefined, id: `${visibleId}.AAAAAAAAAAAAAAAAAAAAAA`, from: '127.0.0.1' },
          ];
      for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel'] as const) {
        const extra = method === 'tasks/update' ? { inputResponses: {} } : {};
        const none = await modernPost(port, method, { taskId: unknown, ...extra }, { token: config.tokens.alice, capabilities: TASKS });
        for (const intruder of intruders) {
          // Anonymous callers are only served with fw.mcp.auth=none when tokens are configured: that is the case tested here.
          if (authenticated && intruder.token === undefined) continue;
          const r = await modernPost(
            port,
            method,
            { taskId: intruder.id, ...extra },
            { token: intruder.token, from: intruder.from, capabilities: TASKS },
          );
          assert.equal(r.status, none.status, `${method} by ${intruder.who}`);
          assert.deepEqual(shape(r.json().error, intruder.id), shape(none.json().error, unknown), `${method} by ${intruder.who}`);
        }
      }
      // How: an anonymous caller's id carries its owner key after the id operators see.
      if (authenticated) assert.equal(visibleId, taskId);
      else assert.ok(taskId.startsWith(`${visibleId}.`) && taskId.length > visibleId.length + 20, 'an anonymous id carries its owner key');
      // The same over a WebSocket speaking 2026-07-28.
      const socket = await openSocket(port, authenticated ? BOB : undefined, '127.0.0.2');
      try {
        const id = authenticated ? taskId : visibleId;
        const viaSocket = await socket.ask({
          jsonrpc: '2.0',
          id: 1,
          method: 'tasks/cancel',
          params: { taskId: id, _meta: modernMeta(TASKS) },
        });
        assert.equal(viaSocket.error?.code, -32602);
        assert.equal(viaSocket.error?.message, `unknown task: ${id}`);
        for (const method of ['tasks/list', 'tasks/result']) {
          const r = await socket.ask({ jsonrpc: '2.0', id: method, method, params: { taskId, _meta: modernMeta(TASKS) } });
          assert.equal(r.error?.code, -32601, `${method} is not part of the extension`);
        }
      } finally {
        socket.close();
      }
      // Nothing of it moved; its owner still reads and cancels it, and the admin view still lists it.
      const mine = await modernPost(port, 'tasks/get', { taskId }, { token: config.tokens.alice, capabilities: TASKS });
      assert.equal(mine.json().result?.status, 'working');
      assert.equal((await modernPost(port, 'tasks/cancel', { taskId }, { token: config.tokens.alice, capabilities: TASKS })).status, 200);
      assert.equal(
        (await modernPost(port, 'tasks/get', { taskId }, { token: config.tokens.alice, capabilities: TASKS })).json().result?.status,
        'cancelled',
      );
      assert.equal(server.mounted.endpoint.protocol.tasks.all().length, 1);
    } finally {
      await server.close();
    }
  });
}

test("with fw.auth.tokens: the anonymous key of a task is no way in for a principal, and a principal's task id with a key appended is unknown", async () => {
  const server = await startServer({ 'fw.auth.tokens': TOKENS, 'fw.mcp.auth': 'none' });
  try {
    const anonymous = await modernPost(server.port, 'tools/call', { name: 'wait', arguments: {} }, { capabilities: TASKS });
    const anonymousId = String(anonymous.json().result?.taskId);
    const byBob = await modernPost(server.port, 'tasks/get', { taskId: anonymousId }, { token: BOB, capabilities: TASKS });
    assert.equal(byBob.json().error?.message, `unknown task: ${anonymousId}`);
    const alices = await modernPost(server.port, 'tools/call', { name: 'wait', arguments: {} }, { token: ALICE, capabilities: TASKS });
    const withKey = `${String(alices.json().result?.taskId)}.${anonymousId.split('.')[1]}`;
    for (const token of [ALICE, undefined]) {
      const r = await modernPost(server.port, 'tasks/get', { taskId: withKey }, { token, capabilities: TASKS });
      assert.equal(r.json().error?.message, `unknown task: ${withKey}`);
    }
  } finally {
    await server.close();
  }
});

test('a legacy session is bound to the principal that opened it, on every request, GET stream, resume and DELETE: another principal gets 403, and so does any principal on an anonymous session', async () => {
  // fw.mcp.auth=none: anonymous sessions are served next to authenticated ones.
  const server = await startServer({ 'fw.auth.tokens': TOKENS, 'fw.mcp.auth': 'none' });
  const { port } = server;
  try {
    const alices = await legacySession(port, ALICE);
    const anonymous = await legacySession(port, undefined);
    const attempts: [string, string | undefined, string][] = [
      ["bob on alice's session", BOB, alices],
      ["an anonymous caller on alice's session", undefined, alices],
      ['bob on an anonymous session', BOB, anonymous],
      ['alice on an anonymous session', ALICE, anonymous],
    ];
    for (const [what, token, session] of attempts) {
      const headers = { 'mcp-session-id': session, ...bearer(token) };
      const post = await send(
        port,
        'POST',
        { ...JSON_HEADERS, ...headers },
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
      );
      const get = await send(port, 'GET', { accept: 'text/event-stream', ...headers });
      const resume = await send(port, 'GET', { accept: 'text/event-stream', 'last-event-id': '1-1', ...headers });
      const del = await send(port, 'DELETE', headers);
      for (const [name, r] of [
        ['POST', post],
        ['GET', get],
        ['resume', resume],
        ['DELETE', del],
      ] as const) {
        assert.equal(r.status, 403, `${what}: ${name}`);
        assert.equal(JSON.parse(r.text).code, 'mcp_session_principal_mismatch', `${what}: ${name}`);
      }
    }
    // Both sessions survived and serve their owners.
    for (const [token, session, expected] of [
      [ALICE, alices, 'alice'],
      [undefined, anonymous, 'anonymous'],
    ] as const) {
      const r = await send(
        port,
        'POST',
        { ...JSON_HEADERS, 'mcp-session-id': session, ...bearer(token) },
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
      );
      assert.equal(r.status, 200);
      assert.deepEqual(r.json().result?.content, [{ type: 'text', text: expected }]);
    }
  } finally {
    await server.close();
  }
});
