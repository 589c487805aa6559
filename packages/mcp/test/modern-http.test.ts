import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FwError, Framework } from '@fw/runtime';
import { McpMessage, mountMcpServer, ToolRegistry, type McpContext } from '../dist/index.js';
import {
  MODERN_VERSION as V,
  modernCall as call,
  modernHeaders as headersFor,
  modernMeta as meta,
  type ModernAnswer as Answer,
} from './helpers.js';

/**
 * Streamable HTTP under 2026-07-28 beside the legacy era on one endpoint: the envelope and
 * header rules, multi round-trip requests with an HMAC-protected requestState, cancellation by
 * closing the stream, and subscriptions/listen. The conformance suite covers the happy paths;
 * these are the attacks and limits.
 */

class Probe {
  aborted = 0;
  started!: () => void;
  startedOnce = new Promise<void>((r) => (this.started = r));
  abortedOnce!: Promise<void>;
}

async function start(options: Record<string, unknown> = {}): Promise<{ fw: Framework; url: string; registry: ToolRegistry; probe: Probe }> {
  const fw = new Framework({ configFile: false, ...options });
  const registry = new ToolRegistry('programmatic');
  const probe = new Probe();
  registry.registerTool({
    name: 'ask_name',
    handler: async (_args, ctx: McpContext) => {
      const r = await ctx.input('who', 'elicitation/create', {
        message: 'Name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      return `hello ${String((r.content as { name?: string } | undefined)?.name)}`;
    },
  });
  registry.registerTool({ name: 'other', handler: () => 'other' });
  registry.registerTool({
    name: 'hang',
    handler: (_args, ctx: McpContext) =>
      new Promise((resolve) => {
        probe.abortedOnce = new Promise<void>((done) =>
          ctx.signal.addEventListener('abort', () => {
            probe.aborted++;
            resolve('aborted');
            done();
          }),
        );
        probe.started();
      }),
  });
  registry.registerTool({
    name: 'logs',
    handler: (_args, ctx: McpContext) => {
      ctx.log('warning', 'careful');
      return 'logged';
    },
  });
  registry.registerTool({
    name: 'regional',
    params: [
      { name: 'region', schema: { type: 'string', 'x-mcp-header': 'Region' } },
      { name: 'count', required: false, schema: { type: 'integer', 'x-mcp-header': 'Count' } },
    ],
    handler: (args) => `${String(args.region)} ${String(args.count ?? '')}`,
  });
  registry.registerPrompt({ name: 'p', handler: () => [McpMessage.user('hi')] });
  mountMcpServer(
    fw,
    { name: 'modern', version: '3.1.0', path: '/m' },
    {
      registries: [registry],
      frameworkRegistry: false,
      principalResolver: (req) => {
        const who = req.headers['x-user'];
        if (who === 'nobody') throw new FwError('unauthorized', 'who are you?', 401);
        return typeof who === 'string' ? { id: who, roles: [] } : undefined;
      },
    },
  );
  const addr = await fw.listen(0, '127.0.0.1');
  return { fw, url: `http://127.0.0.1:${addr.port}/m`, registry, probe };
}

async function withServer(options: Record<string, unknown>, fn: (s: Awaited<ReturnType<typeof start>>) => Promise<void>): Promise<void> {
  const s = await start(options);
  try {
    await fn(s);
  } finally {
    await s.fw.close();
  }
}

test('both eras on one endpoint: a modern request mints no session; a legacy session works beside it', () =>
  withServer({}, async ({ url }) => {
    const modern = await call(url, 'tools/call', { name: 'other', arguments: {} });
    assert.equal(modern.status, 200);
    assert.equal(modern.headers.get('mcp-session-id'), null);
    assert.equal(modern.body.result?.resultType, 'complete');
    assert.deepEqual((modern.body.result?._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/serverInfo'], {
      name: 'modern',
      version: '3.1.0',
    });

    const init = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id');
    assert.ok(session);
    const legacy = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'other', arguments: {} } }),
    });
    const lb = (await legacy.json()) as { result: Record<string, unknown> };
    assert.equal(lb.result.resultType, undefined, 'legacy results keep their 2025 shape');
    assert.deepEqual(lb.result.content, [{ type: 'text', text: 'other' }]);
  }));

test('envelope: missing _meta keys -32602/400, header mismatch -32020/400, unknown version -32022/400 with the supported list', () =>
  withServer({}, async ({ url }) => {
    const noMeta = await fetch(url, {
      method: 'POST',
      headers: headersFor('tools/list', {}),
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }),
    });
    assert.equal(noMeta.status, 400);
    assert.equal(((await noMeta.json()) as Answer['body']).error?.code, -32602);

    const noCaps = await call(url, 'tools/list', { _meta: { 'io.modelcontextprotocol/clientCapabilities': undefined } });
    assert.equal(noCaps.status, 400);
    assert.equal(noCaps.body.error?.code, -32602);

    const mismatch = await call(url, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-12-01' } });
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.error?.code, -32020);

    const unsupported = await call(
      url,
      'tools/list',
      { _meta: { 'io.modelcontextprotocol/protocolVersion': '2031-01-01' } },
      { 'mcp-protocol-version': '2031-01-01' },
    );
    assert.equal(unsupported.status, 400);
    assert.equal(unsupported.body.error?.code, -32022);
    assert.deepEqual(unsupported.body.error?.data, { supported: [V], requested: '2031-01-01' });

    const badLevel = await call(url, 'tools/list', { _meta: { 'io.modelcontextprotocol/logLevel': 'loud' } });
    assert.equal(badLevel.body.error?.code, -32602);
  }));

test('removed methods and unknown ones are -32601/404; GET and DELETE are 405; no batches', () =>
  withServer({}, async ({ url }) => {
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'nope/nope']) {
      const r = await call(url, method, {});
      assert.equal(r.status, 404, method);
      assert.equal(r.body.error?.code, -32601, method);
    }
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(url, { method, headers: { accept: 'text/event-stream', 'mcp-protocol-version': V } });
      assert.equal(r.status, 405, method);
      assert.equal(r.headers.get('allow'), 'POST, OPTIONS');
    }
    const batch = await fetch(url, {
      method: 'POST',
      headers: headersFor('tools/list', {}),
      body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } }]),
    });
    assert.equal(batch.status, 400);
  }));

test('Mcp-Method / Mcp-Name must match the body (Base64 form decoded); x-mcp-header parameters too', () =>
  withServer({}, async ({ url }) => {
    const wrongMethod = await call(url, 'tools/list', {}, { 'mcp-method': 'prompts/list' });
    assert.equal(wrongMethod.status, 400);
    assert.equal(wrongMethod.body.error?.code, -32020);
    const wrongName = await call(url, 'tools/call', { name: 'other', arguments: {} }, { 'mcp-name': 'ask_name' });
    assert.equal(wrongName.body.error?.code, -32020, 'a gateway routing on Mcp-Name must not be fooled');
    const encoded = await call(
      url,
      'tools/call',
      { name: 'other', arguments: {} },
      { 'mcp-name': `=?base64?${Buffer.from('other').toString('base64')}?=` },
    );
    assert.equal(encoded.status, 200);
    const badBase64 = await call(url, 'tools/call', { name: 'other', arguments: {} }, { 'mcp-name': '=?base64?b3RoZXI?=' });
    assert.equal(badBase64.body.error?.code, -32020, 'unpadded Base64 is refused');

    const ok = await call(
      url,
      'tools/call',
      { name: 'regional', arguments: { region: 'eu-west', count: 3 } },
      { 'mcp-param-region': 'eu-west', 'mcp-param-count': '3.0' },
    );
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const missing = await call(url, 'tools/call', { name: 'regional', arguments: { region: 'eu-west' } });
    assert.equal(missing.status, 400);
    assert.match(String(missing.body.error?.message), /Mcp-Param-Region/);
    const lying = await call(url, 'tools/call', { name: 'regional', arguments: { region: 'eu-west' } }, { 'mcp-param-region': 'us-east' });
    assert.equal(lying.body.error?.code, -32020);
    const unicode = await call(
      url,
      'tools/call',
      { name: 'regional', arguments: { region: 'Zürich' } },
      { 'mcp-param-region': `=?base64?${Buffer.from('Zürich').toString('base64')}?=` },
    );
    assert.equal(unicode.status, 200);
  }));

test('multi round-trip: input_required with a signed requestState; tampered, foreign or expired states are refused', () =>
  withServer({ 'fw.mcp.request-state-ttl': '2s' }, async ({ url }) => {
    const r1 = await call(url, 'tools/call', { name: 'ask_name', arguments: {} });
    assert.equal(r1.body.result?.resultType, 'input_required');
    assert.equal(r1.body.result?.ttlMs, undefined, 'interim results carry no caching hints');
    const state = String(r1.body.result?.requestState);
    assert.deepEqual(Object.keys(r1.body.result?.inputRequests as object), ['who']);
    const answer = { who: { action: 'accept', content: { name: 'Ada' } } };

    const done = await call(url, 'tools/call', { name: 'ask_name', arguments: {}, inputResponses: answer, requestState: state });
    assert.deepEqual(done.body.result?.content, [{ type: 'text', text: 'hello Ada' }]);

    const [body, mac] = state.split('.') as [string, string];
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), a: { who: answer.who } }),
    ).toString('base64url');
    const tampered = await call(url, 'tools/call', { name: 'ask_name', arguments: {}, requestState: `${forged}.${mac}` });
    assert.equal(tampered.body.error?.code, -32602);
    assert.match(String(tampered.body.error?.message), /integrity/);

    const foreign = await call(url, 'tools/call', { name: 'other', arguments: {}, requestState: state });
    assert.equal(foreign.body.error?.code, -32602, 'a state is bound to its tool');

    const asAlice = await call(url, 'tools/call', { name: 'ask_name', arguments: {} }, { 'x-user': 'alice' });
    const asBob = await call(
      url,
      'tools/call',
      { name: 'ask_name', arguments: {}, inputResponses: {}, requestState: asAlice.body.result?.requestState },
      { 'x-user': 'bob' },
    );
    assert.match(String(asBob.body.error?.message), /another principal/);

    const noCapability = await call(url, 'tools/call', {
      name: 'ask_name',
      arguments: {},
      _meta: { 'io.modelcontextprotocol/clientCapabilities': {} },
    });
    assert.equal(noCapability.status, 400);
    assert.equal(noCapability.body.error?.code, -32021);
    assert.deepEqual(noCapability.body.error?.data, { requiredCapabilities: { elicitation: {} } });

    for (const bad of [null, 5, { who: 12 }]) {
      const r = await call(url, 'tools/call', { name: 'ask_name', arguments: {}, inputResponses: bad });
      assert.equal(r.body.error?.code, -32602, JSON.stringify(bad));
    }
    await new Promise((r) => setTimeout(r, 2100));
    const expired = await call(url, 'tools/call', { name: 'ask_name', arguments: {}, inputResponses: answer, requestState: state });
    assert.match(String(expired.body.error?.message), /expired/);
  }));

test('closing the response stream cancels the request (the handler sees its signal abort)', () =>
  withServer({}, async ({ url, probe }) => {
    const controller = new AbortController();
    const params = { name: 'hang', arguments: {}, _meta: meta() };
    const pending = fetch(url, {
      method: 'POST',
      headers: headersFor('tools/call', params),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
      signal: controller.signal,
    }).catch(() => undefined);
    await probe.startedOnce;
    controller.abort();
    await pending;
    await probe.abortedOnce;
    assert.equal(probe.aborted, 1);
  }));

test('logs only reach a request that set io.modelcontextprotocol/logLevel, on its own stream', () =>
  withServer({}, async ({ url }) => {
    const quiet = await fetch(url, {
      method: 'POST',
      headers: headersFor('tools/call', { name: 'logs' }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'logs', arguments: {}, _meta: meta() } }),
    });
    assert.doesNotMatch(await quiet.text(), /notifications\/message/);
    const loud = await fetch(url, {
      method: 'POST',
      headers: headersFor('tools/call', { name: 'logs' }),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'logs', arguments: {}, _meta: meta({ 'io.modelcontextprotocol/logLevel': 'info' }) },
      }),
    });
    assert.match(String(loud.headers.get('content-type')), /text\/event-stream/);
    const text = await loud.text();
    assert.match(text, /notifications\/message/);
    assert.doesNotMatch(text, /^id:/m, '2026-07-28 streams carry no event ids');
  }));

test('subscriptions/listen: acknowledged first, filtered, tagged; capped by fw.mcp.max-subscriptions; graceful end on close', async () => {
  const { fw, url, registry } = await start({ 'fw.mcp.max-subscriptions': 1 });
  let closed = false;
  try {
    const params = { notifications: { promptsListChanged: true, resourceSubscriptions: ['fw://x'] }, _meta: meta() };
    const res = await fetch(url, {
      method: 'POST',
      headers: headersFor('subscriptions/listen', params),
      body: JSON.stringify({ jsonrpc: '2.0', id: 'sub-1', method: 'subscriptions/listen', params }),
    });
    assert.match(String(res.headers.get('content-type')), /text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const frames: Record<string, unknown>[] = [];
    let buffer = '';
    const next = async (): Promise<Record<string, unknown>> => {
      for (let i = 0; i < 50; i++) {
        const line = buffer.split('\n').find((l) => l.startsWith('data: '));
        if (line) {
          buffer = buffer.slice(buffer.indexOf(line) + line.length + 1);
          const f = JSON.parse(line.slice(6)) as Record<string, unknown>;
          frames.push(f);
          return f;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffer += value;
      }
      throw new Error('no frame');
    };
    const ack = await next();
    assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
    assert.deepEqual((ack.params as Record<string, unknown>).notifications, {
      promptsListChanged: true,
      resourceSubscriptions: ['fw://x'],
    });

    const second = await call(url, 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    assert.equal(second.status, 503, 'fw.mcp.max-subscriptions = 1');

    registry.registerTool({ name: 'new_tool', handler: () => 'x' }); // not subscribed: must not arrive
    registry.registerPrompt({ name: 'new_prompt', handler: () => [] });
    const changed = await next();
    assert.equal(changed.method, 'notifications/prompts/list_changed');
    assert.deepEqual(changed.params, { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } });
    registry.notifyResourceUpdated('fw://other');
    registry.notifyResourceUpdated('fw://x');
    const updated = await next();
    assert.deepEqual(updated.params, { uri: 'fw://x', _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } });

    await fw.close();
    closed = true;
    const final = await next();
    assert.equal(final.id, 'sub-1');
    assert.equal((final.result as Record<string, unknown>).resultType, 'complete');
  } finally {
    if (!closed) await fw.close();
  }
});

test('fw.mcp.max-stateless-requests bounds the stateless requests served at once: the next one is 503, then it frees', () =>
  withServer({ 'fw.mcp.max-stateless-requests': 1 }, async ({ url, probe }) => {
    const controller = new AbortController();
    const params = { name: 'hang', arguments: {}, _meta: meta() };
    const pending = fetch(url, {
      method: 'POST',
      headers: headersFor('tools/call', params),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
      signal: controller.signal,
    }).catch(() => undefined);
    await probe.startedOnce;
    const refused = await call(url, 'tools/list', {});
    assert.equal(refused.status, 503);
    assert.equal(refused.body.error?.code, -32000);
    assert.equal(refused.headers.get('retry-after'), '1');
    controller.abort();
    await pending;
    await probe.abortedOnce;
    let after: Answer | undefined;
    for (let i = 0; i < 50; i++) {
      after = await call(url, 'tools/list', {});
      if (after.status === 200) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(after?.status, 200, 'the slot is released when the cancelled request ends');
  }));
