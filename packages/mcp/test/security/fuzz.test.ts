/**
 * Issue #25 item 8: every MCP JSON-RPC endpoint answers malformed bodies with JSON-RPC errors,
 * never a 5xx, and no answer reveals internal addresses, paths or stack traces. A seeded fuzz
 * (reproducible: FW_FUZZ_SEED picks another run, FW_FUZZ_CASES scales it) mutates valid requests
 * structurally — any node at any depth replaced by null, arrays, objects, numbers, long strings;
 * keys dropped and added; ids, methods and params of every wrong type; batches; broken JSON — and
 * sends them over real sockets: Streamable HTTP in both eras (a legacy session; stateless
 * 2026-07-28 POSTs with their headers) and the WebSocket in both eras. At least 20,000 HTTP cases
 * per era, plus WebSocket cases. The MCP-shaped mutations are this file's; the seeded generator
 * is @fw/testing's, so a failing case replays from its seed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { WebSocket } from 'ws';
import { Framework } from '@fw/runtime';
import { McpMessage, mountMcpServer, ToolRegistry } from '../../dist/index.js';
import { MODERN, modernMeta, TASKS_EXTENSION } from './support.js';
import { seededRandom } from '@fw/testing';

const SEED = Number(process.env.FW_FUZZ_SEED ?? 20_251_126);
const HTTP_CASES = Number(process.env.FW_FUZZ_CASES ?? 20_000);
const SOCKET_CASES = Math.ceil(HTTP_CASES / 4);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What a node becomes: every JSON type, edge numbers, long and odd strings, prototype keys, deep nesting. */
const REPLACEMENTS: Json[] = [
  null,
  [],
  {},
  '',
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 1,
  true,
  false,
  'x'.repeat(2048),
  '\u0000\u0001',
  '\ud800',
  'é🙂',
  '../../../etc/passwd',
  '%00%2e%2e',
  '{"jsonrpc":"2.0"}',
  '=?base64?!!!?=',
  [null],
  [[[[[]]]]],
  { a: { b: { c: { d: null } } } },
  { __proto__: { polluted: true } } as unknown as Json,
  JSON.parse('{"__proto__":{"polluted":true}}') as Json,
  { constructor: { prototype: { polluted: true } } },
  { toString: 1, valueOf: null, hasOwnProperty: 'x' },
  '2.0',
  '1',
  'tools/call',
];

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;

/** Every path into `value` (objects' keys and arrays' indexes), the root included. */
function paths(value: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...at, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths(v, [...at, k], out);
  return out;
}

function get(value: Json, path: (string | number)[]): Json {
  let node = value;
  for (const p of path) node = (node as Record<string | number, Json>)[p] as Json;
  return node;
}

/** One structural mutation somewhere in `value` (returns the new root). */
function mutateOnce(value: Json, r: () => number): Json {
  const all = paths(value);
  const path = pick(r, all);
  const node = get(value, path);
  const parent = path.length ? get(value, path.slice(0, -1)) : undefined;
  const key = path[path.length - 1];
  const replace = (next: Json): Json => {
    if (parent === undefined || key === undefined) return next;
    (parent as Record<string | number, Json>)[key] = next;
    return value;
  };
  switch (Math.floor(r() * 8)) {
    case 0:
    case 1:
    case 2:
      // null most often: it is what unchecked code trips on (`Object.entries(null)`, `null.x`).
      return replace(r() < 0.3 ? null : structuredClone(pick(r, REPLACEMENTS)));
    case 3: // drop the key
      if (parent && !Array.isArray(parent) && typeof key === 'string') delete (parent as Record<string, Json>)[key];
      else if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1);
      return value;
    case 4: // an unknown key, or a known one where it does not belong
      if (node !== null && typeof node === 'object' && !Array.isArray(node))
        node[pick(r, ['id', 'method', 'params', 'jsonrpc', '_meta', 'name', 'uri', 'taskId', 'extra', 'cursor', 'arguments'])] =
          structuredClone(pick(r, REPLACEMENTS));
      return value;
    case 5: // wrapped in an array (a batch, a list where a value was)
      return replace([structuredClone(node)]);
    case 6: // the same type, another value
      return replace(
        typeof node === 'string'
          ? `${node}${pick(r, ['/', '{', '}', '?x=1', '#', '.', '%'])}`
          : typeof node === 'number'
            ? -node - 1
            : node,
      );
    default: // a scalar becomes an object holding it
      return replace({ value: structuredClone(node) });
  }
}

interface Case {
  /** The body as sent (broken JSON included). */
  text: string;
  /** The parsed body, when it is JSON. */
  body: Json | undefined;
}

/** A mutated (or, one time in twenty, a valid) request from `bases`; one in twenty-five is broken JSON. */
function makeCase(r: () => number, bases: Json[]): Case {
  let body = structuredClone(pick(r, bases));
  if (r() < 0.95) for (let n = 1 + Math.floor(r() * 3); n > 0; n--) body = mutateOnce(body, r);
  const text = JSON.stringify(body);
  if (r() < 0.04) return { text: text.slice(0, Math.floor(r() * text.length)), body: undefined };
  return { text, body };
}

/** Answers must never show these: server paths, stack frames, internal addresses, system error codes. */
// A stack frame is `at fn (/path…)`; Node 22's JSON errors say `at position 17 (line 1 column 18)`, which is not one.
const LEAK =
  /\/work\/|node_modules|node:internal|file:\/\/|\bat [\w$.<>[\] ]+ \((?:\/|file:|node:|[A-Za-z]:\\)|\.[cm]?[jt]s:\d+|\bE(?:CONN\w+|ADDR\w+|NOENT|ACCES)\b|127\.0\.0\.1:\d+|\[::1\]:\d+/;

interface Verdict {
  problems: string[];
}

function judge(verdict: Verdict, where: string, status: number, text: string): void {
  if (status >= 500) verdict.problems.push(`${where}: HTTP ${status} ${text.slice(0, 300)}`);
  if (LEAK.test(text)) verdict.problems.push(`${where}: the answer leaks ${LEAK.exec(text)?.[0]}: ${text.slice(0, 300)}`);
  if (text === '') return;
  const messages =
    text.startsWith('{') || text.startsWith('[')
      ? [text]
      : text
          .split('\n')
          .filter((l) => l.startsWith('data: ') && l.length > 6)
          .map((l) => l.slice(6));
  for (const m of messages) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(m);
    } catch {
      verdict.problems.push(`${where}: an answer that is not JSON: ${m.slice(0, 200)}`);
      continue;
    }
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
      const o = item as Record<string, unknown>;
      // A JSON-RPC response or notification, or a problem+json refusal carrying a JSON-RPC error.
      const rpc = o?.jsonrpc === '2.0' && ('result' in o || 'error' in o || typeof o.method === 'string');
      if (!rpc) verdict.problems.push(`${where}: not a JSON-RPC message: ${m.slice(0, 200)}`);
      const error = o?.error as { code?: unknown; message?: unknown } | undefined;
      if (error && (typeof error.code !== 'number' || typeof error.message !== 'string'))
        verdict.problems.push(`${where}: a malformed JSON-RPC error: ${m.slice(0, 200)}`);
      // The fuzzed handlers never fail: an internal error means input reached code that did not check it.
      if (error?.code === -32603) verdict.problems.push(`${where}: an internal error (unchecked input): ${m.slice(0, 200)}`);
    }
  }
}

/** The server fuzzed: quick tools only (nothing waits on a cancel that a fuzz case never sends). */
async function startFuzzServer(): Promise<{ fw: Framework; port: number }> {
  const fw = new Framework({ configFile: false, env: {}, 'fw.mcp.keep-alive-interval': '0' });
  const registry = new ToolRegistry('programmatic');
  registry.registerTool({
    name: 'echo',
    description: 'echoes',
    params: [
      { name: 'text', type: 'string' },
      { name: 'n', type: 'integer', required: false },
      { name: 'tags', schema: { type: 'array', items: { type: 'string' } }, required: false },
    ],
    handler: (args) => ({ text: args.text, n: args.n ?? 0 }),
  });
  registry.registerTool({ name: 'quick', description: 'a task that ends at once', task: { support: 'optional' }, handler: () => 'done' });
  registry.registerTool({
    name: 'ask',
    description: 'asks the client',
    handler: async (_args, ctx) =>
      JSON.stringify(await ctx.input('k', 'elicitation/create', { message: 'ok?', requestedSchema: { type: 'object', properties: {} } })),
  });
  registry.registerResource({ uri: 'notes://{owner}.{name}', name: 'Note', read: (vars) => `note ${vars.name}` });
  registry.registerResource({ uri: 'fw://static', name: 'Static', read: () => ({ ok: true }) });
  registry.registerPrompt({
    name: 'greet',
    params: [{ name: 'who', complete: (v: string) => ['alice', 'bob'].filter((c) => c.startsWith(v)) }],
    handler: (args) => [McpMessage.user(`Hello ${args.who}`)],
  });
  mountMcpServer(fw, { name: 'fuzz', version: '1.0.0', path: '/mcp' }, { registries: [registry] });
  const { port } = await fw.listen(0, '127.0.0.1');
  return { fw, port };
}

/** Valid requests of every method (the seeds the mutations start from), with `meta` in params when given. */
function bases(meta: Record<string, unknown> | undefined, taskId: string): Json[] {
  const p = (params: Record<string, Json>): Json => (meta ? { ...params, _meta: meta as Json } : params);
  const req = (id: number | string, method: string, params: Record<string, Json>): Json => ({
    jsonrpc: '2.0',
    id,
    method,
    params: p(params),
  });
  const out: Json[] = [
    req(1, 'tools/list', { cursor: 'bzox' }),
    req(2, 'tools/call', { name: 'echo', arguments: { text: 'hi', n: 3, tags: ['a'] } }),
    req('s', 'tools/call', { name: 'ask', arguments: {}, inputResponses: { k: { action: 'accept', content: {} } }, requestState: 'x.y' }),
    req('r', 'tools/call', { name: 'ask', arguments: {}, inputResponses: { k: { action: 'accept', content: {} } } }),
    req('p', 'prompts/get', { name: 'greet', arguments: { who: 'x' }, inputResponses: { k: {} } }),
    req(3, 'resources/list', {}),
    req(4, 'resources/templates/list', {}),
    req(5, 'resources/read', { uri: 'notes://alice.todo' }),
    req(6, 'prompts/list', {}),
    req(7, 'prompts/get', { name: 'greet', arguments: { who: 'x' } }),
    req(8, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'who', value: 'a' },
      context: { arguments: {} },
    }),
    req(9, 'completion/complete', { ref: { type: 'ref/resource', uri: 'notes://{owner}.{name}' }, argument: { name: 'owner', value: '' } }),
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'x' } },
    { jsonrpc: '2.0', id: 'fw-1', result: {} },
    { jsonrpc: '2.0', id: 'fw-2', error: { code: -1, message: 'no' } },
  ];
  if (meta) {
    out.push(
      req(10, 'server/discover', {}),
      req(11, 'tasks/get', { taskId }),
      req(12, 'tasks/update', { taskId, inputResponses: { k: { action: 'accept' } } }),
      req(13, 'tasks/cancel', { taskId }),
      req(14, 'tools/call', { name: 'quick', arguments: {} }),
    );
  } else {
    out.push(
      req(15, 'ping', {}),
      req(16, 'logging/setLevel', { level: 'debug' }),
      req(17, 'resources/subscribe', { uri: 'fw://static' }),
      req(18, 'resources/unsubscribe', { uri: 'fw://static' }),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      [req(19, 'ping', {}), req(20, 'tools/list', {})],
    );
  }
  return out;
}

/** The standard 2026-07-28 headers for a (mutated) body: right when the body allows it, so that cases reach past the header checks. */
function modernHeaders(body: Json | undefined, r: () => number): Record<string, string> {
  const o = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, Json>;
  const params = (o.params && typeof o.params === 'object' && !Array.isArray(o.params) ? o.params : {}) as Record<string, Json>;
  const headers: Record<string, string> = { 'mcp-protocol-version': r() < 0.97 ? MODERN : pick(r, ['2024-01-01', 'x', '']) };
  if (typeof o.method === 'string') headers['mcp-method'] = headerValue(o.method);
  const name = params.name ?? params.uri ?? params.taskId;
  if (typeof name === 'string') headers['mcp-name'] = headerValue(name);
  if (r() < 0.05) headers['mcp-name'] = pick(r, ['', 'other', '=?base64?AAAA?=', '=?base64?%%%?=']);
  return headers;
}

/** A header carries printable ASCII; anything else travels base64-encoded, as the revision says. */
function headerValue(v: string): string {
  return /^[\x20-\x7e]*$/.test(v) && v.trim() === v ? v : `=?base64?${Buffer.from(v, 'utf8').toString('base64')}?=`;
}

/** POSTs the cases over keep-alive connections, `parallel` at a time; an SSE answer is read to its end (or cut after 2 s). */
async function postAll(
  port: number,
  cases: { text: string; headers: Record<string, string> }[],
  verdict: Verdict,
  label: string,
  parallel = 8,
): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: parallel });
  const statuses: number[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const i = next++;
      const c = cases[i] as { text: string; headers: Record<string, string> };
      const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/mcp',
            agent,
            headers: {
              host: `127.0.0.1:${port}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...c.headers,
            },
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (body += chunk));
            // A stream that stays open (a subscription) is cut: what came so far is judged.
            const cut = setTimeout(() => res.destroy(), 2000);
            res.on('close', () => {
              clearTimeout(cut);
              resolve({ status: res.statusCode ?? 0, text: body });
            });
          },
        );
        req.on('error', reject);
        req.end(c.text);
      });
      statuses[i] = status;
      judge(verdict, `${label} case ${i} ${c.text.slice(0, 160)}`, status, text);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  agent.destroy();
  return statuses;
}

/** Sends the cases over one socket (opening a new one if a case closed it) and judges each answer. */
async function socketAll(port: number, texts: string[], verdict: Verdict, label: string, legacy: boolean): Promise<void> {
  const open = async (): Promise<{ ws: WebSocket; inbox: string[] }> => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/mcp`, 'mcp');
    const inbox: string[] = [];
    ws.on('message', (d) => inbox.push(d.toString()));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    if (legacy)
      ws.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'init',
          method: 'initialize',
          params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } },
        }),
      );
    return { ws, inbox };
  };
  let socket = await open();
  let reopened = 0;
  for (let i = 0; i < texts.length; i += 50) {
    // 50 cases, then a ping whose answer says the socket processed them all.
    for (const t of texts.slice(i, i + 50)) socket.ws.send(t);
    const marker = `ping-${i}`;
    socket.ws.send(
      JSON.stringify(
        legacy
          ? { jsonrpc: '2.0', id: marker, method: 'ping' }
          : { jsonrpc: '2.0', id: marker, method: 'server/discover', params: { _meta: modernMeta() } },
      ),
    );
    const deadline = Date.now() + 10_000;
    while (!socket.inbox.some((m) => m.includes(`"${marker}"`)) && socket.ws.readyState === socket.ws.OPEN && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 2));
    for (const m of socket.inbox.splice(0)) judge(verdict, `${label} cases ${i}…${i + 49}`, 200, m);
    if (socket.ws.readyState !== socket.ws.OPEN) {
      verdict.problems.push(`${label} cases ${i}…${i + 49}: the server closed the socket`);
      if (++reopened > 5) return;
      socket = await open();
    }
  }
  socket.ws.close();
}

test(`fuzz: ${HTTP_CASES} malformed requests per era over Streamable HTTP and ${SOCKET_CASES} per era over WebSocket (seed ${SEED}): JSON-RPC errors only, never a 5xx, nothing internal revealed`, async (t) => {
  const uncaught: unknown[] = [];
  const onError = (err: unknown): void => void uncaught.push(err);
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
  const { fw, port } = await startFuzzServer();
  const verdict: Verdict = { problems: [] };
  const started = Date.now();
  try {
    const tasksMeta = modernMeta({ elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } });
    // A real task, so that tasks/* cases reach a task.
    const created = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'quick',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'quick', arguments: {}, _meta: tasksMeta } }),
    });
    const taskId = String(((await created.json()) as { result: { taskId: string } }).result.taskId);

    // Legacy era: a 2025-03-26 session (batches allowed), every case names it.
    const init = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'fuzz', version: '0' } },
      }),
    });
    const session = String(init.headers.get('mcp-session-id'));
    await init.text();
    const legacyBases = bases(undefined, taskId);
    const r1 = seededRandom(SEED);
    const legacy = Array.from({ length: HTTP_CASES }, () => {
      const c = makeCase(r1, legacyBases);
      return { text: c.text, headers: { 'mcp-session-id': session } };
    });
    const legacyStatuses = await postAll(port, legacy, verdict, 'legacy HTTP');

    // 2026-07-28: stateless POSTs with the envelope and the standard headers.
    const modernBases = bases(tasksMeta, taskId);
    const r2 = seededRandom(SEED + 1);
    const modern = Array.from({ length: HTTP_CASES }, () => {
      const c = makeCase(r2, modernBases);
      return { text: c.text, headers: modernHeaders(c.body, r2) };
    });
    const modernStatuses = await postAll(port, modern, verdict, 'modern HTTP');

    // WebSocket, both eras.
    const r3 = seededRandom(SEED + 2);
    await socketAll(
      port,
      Array.from({ length: SOCKET_CASES }, () => makeCase(r3, legacyBases).text),
      verdict,
      'legacy WebSocket',
      true,
    );
    const r4 = seededRandom(SEED + 3);
    await socketAll(
      port,
      Array.from({ length: SOCKET_CASES }, () => makeCase(r4, modernBases).text),
      verdict,
      'modern WebSocket',
      false,
    );

    // The server is still well: a plain request is served.
    const after = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'still here' }, _meta: modernMeta() },
      }),
    });
    assert.equal(after.status, 200);
    assert.equal(({}.constructor as { polluted?: unknown }).polluted, undefined, 'no prototype was polluted');
    assert.equal((Object.prototype as { polluted?: unknown }).polluted, undefined, 'no prototype was polluted');

    const tally = (xs: number[]) => {
      const counts: Record<number, number> = {};
      for (const x of xs) counts[x] = (counts[x] ?? 0) + 1;
      return counts;
    };
    const took = Date.now() - started;
    t.diagnostic(`legacy statuses ${JSON.stringify(tally(legacyStatuses))}, modern ${JSON.stringify(tally(modernStatuses))}, ${took} ms`);
    assert.deepEqual(verdict.problems.slice(0, 20), [], `${verdict.problems.length} problems`);
    assert.deepEqual(uncaught, []);
    // Enough of the cases got past the envelope to reach the methods (not all refused at the door).
    assert.ok(legacyStatuses.filter((s) => s === 200).length > HTTP_CASES / 4, 'legacy cases reached the methods');
    assert.ok(modernStatuses.filter((s) => s === 200).length > HTTP_CASES / 10, 'modern cases reached the methods');
  } finally {
    process.off('uncaughtException', onError);
    process.off('unhandledRejection', onError);
    await fw.close();
  }
});
