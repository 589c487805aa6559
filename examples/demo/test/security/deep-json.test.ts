/**
 * A body or message nested 10,000 levels deep, on every JSON endpoint the demo serves: a 400
 * `json_too_deep` (problem+json) on HTTP JSON endpoints, a JSON-RPC invalid request (-32600) on
 * A2A and MCP, a -32600 answer on an MCP socket and a 1007 close on an fw-protocol socket; never
 * a 5xx, a -32603 or a crash. Default configuration and with a token alike.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  CONFIGURATIONS,
  JSON_TYPE,
  MCP_HEADERS,
  closed,
  deepJson,
  initializeBody,
  nextMessage,
  openSocket,
  send,
  startTarget,
  type Target,
} from './requests.js';

const DEEP = deepJson(10_000);
const DEEP_OBJECT = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;

for (const { name, config, auth } of CONFIGURATIONS) {
  describe(`10,000-level JSON (${name})`, () => {
    let target: Target;
    before(async () => {
      target = await startTarget(config);
    });
    after(() => target.close());

    it('admin REST writes answer 400 json_too_deep', async () => {
      // A live resource on /fw/chat/lobby, so every write has a real target.
      const member = await openSocket(target, '/fw/chat/lobby');
      let uuid: string | undefined;
      for (let i = 0; i < 100 && uuid === undefined; i++) {
        const list = (await send(target, 'GET', '/api/admin/resources', auth)).json<{ uuid: string; path: string }[]>();
        uuid = list.find((r) => r.path === '/fw/chat/lobby')?.uuid;
        if (uuid === undefined) await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(uuid, 'the chat member is listed');
      const writes = [
        ['POST', '/api/admin/broadcasters/broadcast', `{"broadcasterId":"/fw/chat/lobby","message":${DEEP}}`],
        ['POST', '/api/admin/broadcasters/broadcast', DEEP_OBJECT],
        ['POST', `/api/admin/resources/${uuid}/message`, `{"message":${DEEP}}`],
        ['POST', '/api/admin/tasks/none/cancel', `{"reason":${DEEP}}`],
        ['DELETE', `/api/admin/resources/${uuid}`, `{"reason":${DEEP}}`],
      ] as const;
      for (const [method, path, body] of writes) {
        const r = await send(target, method, path, { ...JSON_TYPE, ...auth }, body);
        assert.equal(r.status, 400, `${method} ${path}: ${r.text}`);
        assert.equal(r.json().code, 'json_too_deep');
      }
      member.close();
    });

    it('AG-UI answers 400 json_too_deep; A2A answers a JSON-RPC -32600 (1.0 and 0.3)', async () => {
      for (const agent of ['assistant', 'lead', 'research']) {
        const agui = await send(
          target,
          'POST',
          `/fw/agent/${agent}/agui`,
          { ...JSON_TYPE, ...auth },
          `{"threadId":"t","runId":"r","messages":${DEEP}}`,
        );
        assert.equal(agui.status, 400, agui.text);
        assert.equal(agui.json().code, 'json_too_deep');
        for (const version of [{}, { 'a2a-version': '1.0' }] as Record<string, string>[]) {
          const a2a = await send(
            target,
            'POST',
            `/fw/agent/${agent}/a2a`,
            { ...JSON_TYPE, ...auth, ...version },
            `{"jsonrpc":"2.0","id":1,"method":"message/send","params":${DEEP}}`,
          );
          assert.ok(a2a.status < 500, a2a.text);
          const body = a2a.json<{ error?: { code: number } }>();
          assert.equal(body.error?.code, -32600, a2a.text);
        }
      }
    });

    it('MCP over HTTP (/mcp and per-agent) answers 400 with a -32600 error', async () => {
      for (const path of ['/mcp', '/fw/agent/research/mcp']) {
        const r = await send(
          target,
          'POST',
          path,
          { ...MCP_HEADERS, ...auth },
          `{"jsonrpc":"2.0","id":1,"method":"initialize","params":${DEEP}}`,
        );
        assert.equal(r.status, 400, r.text);
        const body = r.json<{ code: string; error: { code: number } }>();
        assert.equal(body.code, 'json_too_deep');
        assert.equal(body.error.code, -32600);
      }
    });

    it('an MCP WebSocket message gets a -32600 answer and the session goes on', async () => {
      const ws = await openSocket(target, '/mcp', ['mcp'], auth);
      try {
        ws.send(initializeBody());
        assert.match(await nextMessage(ws), /"result"/);
        ws.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":${DEEP}}`);
        const answer = JSON.parse(await nextMessage(ws)) as { error?: { code: number } };
        assert.equal(answer.error?.code, -32600);
        ws.send('{"jsonrpc":"2.0","id":3,"method":"ping"}');
        assert.match(await nextMessage(ws), /"id":3/);
      } finally {
        ws.close();
      }
    });

    it('an fw-protocol WebSocket frame closes the socket with 1007; the server keeps serving', async () => {
      const ws = await openSocket(target, '/fw/chat/lobby?fw=1');
      const done = closed(ws);
      ws.send(DEEP);
      assert.equal((await done).code, 1007);
      const overview = await send(target, 'GET', '/api/admin/overview', auth);
      assert.equal(overview.status, 200);
    });
  });
}

describe('fw.limits.json-depth at its edge', () => {
  let target: Target;
  before(async () => {
    target = await startTarget({ 'fw.limits.json-depth': 4 });
  });
  after(() => target.close());

  it('a body nested exactly at the limit is read; one level more is 400 json_too_deep (HTTP and JSON-RPC)', async () => {
    const at = JSON.stringify({ broadcasterId: '/fw/chat/lobby', message: 'x', meta: [[[]]] }); // 1 + 3 levels
    const over = JSON.stringify({ broadcasterId: '/fw/chat/lobby', message: 'x', meta: [[[[]]]] });
    const ok = await send(target, 'POST', '/api/admin/broadcasters/broadcast', JSON_TYPE, at);
    assert.notEqual(ok.json().code, 'json_too_deep', ok.text);
    assert.ok(ok.status < 500, ok.text);
    const refused = await send(target, 'POST', '/api/admin/broadcasters/broadcast', JSON_TYPE, over);
    assert.equal(refused.status, 400);
    assert.equal(refused.json().code, 'json_too_deep');
    // JSON-RPC: 4 levels in all (envelope, params, x, b) pass; 5 do not.
    const initialize = (inner: unknown): string =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'edge', version: '1' }, x: inner },
      });
    const mcpOk = await send(target, 'POST', '/mcp', MCP_HEADERS, initialize({ b: [] }));
    assert.equal(mcpOk.status, 200, mcpOk.text);
    const mcpOver = await send(target, 'POST', '/mcp', MCP_HEADERS, initialize({ b: [[]] }));
    assert.equal(mcpOver.status, 400);
    assert.equal(mcpOver.json<{ error: { code: number } }>().error.code, -32600);
  });
});
