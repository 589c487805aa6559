#!/usr/bin/env node
/**
 * fw-mcp-stdio-bridge [options] <url>: lets a stdio-only MCP client (a desktop assistant) talk
 * to an fw Streamable HTTP endpoint, in both eras. One JSON-RPC message per stdin line is
 * POSTed; every message the server sends back (JSON or SSE, and a legacy session's GET-stream
 * messages) is written to stdout, one per line, and nothing else ever is. Quiet by default:
 * stderr carries fatal errors only, diagnostics with --verbose. `--header` and
 * FW_MCP_BRIDGE_TOKEN carry a credential. `--help` explains all of it.
 *
 * A message with the 2026-07-28 `_meta` envelope is sent statelessly with the request metadata
 * headers that revision requires; `notifications/cancelled` for it closes its HTTP stream, which
 * is how Streamable HTTP cancels. An `initialize` opens a legacy session as before.
 *
 * Exit codes: 0 stdin closed, 2 bad usage or URL, 3 server unreachable.
 */
import { createInterface } from 'node:readline';
import { parseArgs, USAGE } from './bridge-options.js';
import { ModernHeaders } from './modern-headers.js';

const EXIT_USAGE = 2;
const EXIT_UNREACHABLE = 3;

type Message = Record<string, unknown> & { id?: string | number; method?: string };

function fail(code: number, text: string): never {
  process.stderr.write(`fw-mcp-stdio-bridge: ${text}\n`);
  process.exit(code);
}

const parsed = parseArgs(process.argv.slice(2), process.env);
if (parsed.kind === 'help') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (parsed.kind === 'error') {
  process.stderr.write(`fw-mcp-stdio-bridge: ${parsed.message}\n`);
  fail(EXIT_USAGE, "usage: fw-mcp-stdio-bridge [--header 'Name: value'] [--verbose] <http(s)://host:port/mcp> (--help for details)");
}
const { url, headers: extraHeaders, verbose } = parsed.options;

/** A diagnostic: on stderr with --verbose, dropped otherwise (stdout is the protocol's). */
function log(text: string): void {
  if (verbose) process.stderr.write(`fw-mcp-stdio-bridge: ${text}\n`);
}

const modernHeaders = new ModernHeaders();
/** 2026-07-28 requests (and subscriptions) in flight, by id: cancelling one aborts its HTTP exchange. */
const modernInFlight = new Map<string | number, AbortController>();
/** Ids of open subscriptions/listen requests. */
const listens = new Set<string | number>();
let sessionId: string | undefined;
let protocolVersion: string | undefined;
let initRequest: Message | undefined;
let initialized = false;
let getStream: AbortController | undefined;
let reinitializing: Promise<void> | undefined;
let reinitCount = 0;
let closing = false;
/** Messages wait for the initialize exchange so that they carry the session id. */
let sessionReady: Promise<void> = Promise.resolve();

function emit(message: unknown): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function headers(): Record<string, string> {
  return {
    ...extraHeaders,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}),
  };
}

async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (line === '') {
        if (data.length) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
      }
    }
  }
  if (data.length) yield data.join('\n');
}

/** Forwards a response body (JSON or SSE) to stdout; `swallow` drops the answer to one id. */
async function forward(res: Response, swallow?: string | number, tap?: (m: unknown) => void): Promise<void> {
  const type = res.headers.get('content-type') ?? '';
  const out = (m: unknown) => {
    if (swallow !== undefined && (m as Message)?.id === swallow && !('method' in (m as Message))) return;
    tap?.(m);
    emit(m);
  };
  if (type.includes('text/event-stream') && res.body) {
    for await (const data of sseMessages(res.body)) {
      try {
        out(JSON.parse(data));
      } catch {
        log('ignored a non-JSON SSE event');
      }
    }
  } else if (type.includes('json')) {
    const value = (await res.json()) as unknown;
    for (const m of Array.isArray(value) ? value : [value]) out(m);
  } else {
    await res.arrayBuffer();
  }
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

async function post(message: Message | Message[], allowReinit = true): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: headers(), body: JSON.stringify(message) });
  } catch (err) {
    fail(EXIT_UNREACHABLE, `cannot reach ${url.href}: ${describe(err)}`);
  }
  if (res.status === 404 && sessionId && allowReinit && initRequest) {
    await res.arrayBuffer();
    await reinitialize();
    return post(message, false);
  }
  return res;
}

/** The server forgot our session (restart, reaper): open a new one with the client's own initialize. */
function reinitialize(): Promise<void> {
  reinitializing ??= (async () => {
    log('session expired; re-initializing');
    sessionId = undefined;
    getStream?.abort();
    const id = `fw-bridge-reinit-${++reinitCount}`;
    const res = await post({ ...(initRequest as Message), id }, false);
    if (!res.ok) fail(EXIT_UNREACHABLE, `re-initialize failed with HTTP ${res.status}`);
    sessionId = res.headers.get('mcp-session-id') ?? undefined;
    await forward(res, id);
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, false)).arrayBuffer();
    openGetStream();
  })().finally(() => {
    reinitializing = undefined;
  });
  return reinitializing;
}

/** The standalone GET stream carries server-initiated messages (list_changed, …). */
function openGetStream(): void {
  if (!sessionId || closing) return;
  getStream?.abort();
  const controller = new AbortController();
  getStream = controller;
  void (async () => {
    for (let attempt = 0; attempt < 5 && !controller.signal.aborted; attempt++) {
      try {
        const res = await fetch(url, { method: 'GET', headers: { ...headers(), accept: 'text/event-stream' }, signal: controller.signal });
        if (res.status === 405 || !res.ok || !res.body) {
          await res.arrayBuffer().catch(() => undefined);
          return;
        }
        attempt = 0;
        await forward(res);
      } catch {
        if (controller.signal.aborted) return;
      }
      await new Promise((r) => setTimeout(r, 1000).unref());
    }
  })();
}

function isModern(m: Message | undefined): boolean {
  const meta = (m?.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return !!meta && typeof meta === 'object' && typeof meta['io.modelcontextprotocol/protocolVersion'] === 'string';
}

function modernPost(message: Message, signal: AbortSignal): Promise<Response> {
  const h = {
    ...extraHeaders,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...modernHeaders.for(message),
  };
  return fetch(url, { method: 'POST', headers: h, body: JSON.stringify(message), signal });
}

/** A 2026-07-28 request: no session; cancelled by aborting its exchange. */
async function handleModern(message: Message): Promise<void> {
  const id = message.id;
  const controller = new AbortController();
  if (id !== undefined) modernInFlight.set(id, controller);
  if (id !== undefined && message.method === 'subscriptions/listen') listens.add(id);
  try {
    let res = await modernPost(message, controller.signal);
    const name = (message.params as { name?: unknown } | undefined)?.name;
    if (res.status === 400 && message.method === 'tools/call' && typeof name === 'string' && !modernHeaders.knows(name)) {
      // A HeaderMismatch for a tool whose x-mcp-header parameters we never saw: learn them from
      // tools/list and retry once (transports/streamable-http "Client Behavior").
      const body = (await res
        .clone()
        .json()
        .catch(() => undefined)) as { error?: { code?: number } } | undefined;
      if (body?.error?.code === -32020) {
        await res.arrayBuffer();
        await learnTools(message, controller.signal);
        res = await modernPost(message, controller.signal);
      }
    }
    await respond(res, message, (m) => {
      if (message.method === 'tools/list' && (m as Message).id === id) modernHeaders.learn((m as { result?: unknown }).result);
    });
  } catch (err) {
    if (controller.signal.aborted) return;
    fail(EXIT_UNREACHABLE, `cannot reach ${url.href}: ${describe(err)}`);
  } finally {
    if (id !== undefined && modernInFlight.get(id) === controller) modernInFlight.delete(id);
    if (id !== undefined) listens.delete(id);
  }
}

let learnCount = 0;
async function learnTools(like: Message, signal: AbortSignal): Promise<void> {
  const meta = (like.params as { _meta?: unknown })._meta;
  const request: Message = { jsonrpc: '2.0', id: `fw-bridge-tools-${++learnCount}`, method: 'tools/list', params: { _meta: meta } };
  const res = await modernPost(request, signal);
  if (!res.ok) {
    await res.arrayBuffer();
    return;
  }
  const type = res.headers.get('content-type') ?? '';
  const answer =
    type.includes('text/event-stream') && res.body
      ? await (async () => {
          for await (const data of sseMessages(res.body as ReadableStream<Uint8Array>)) {
            const m = JSON.parse(data) as Message;
            if (m.id === request.id) return m;
          }
          return undefined;
        })()
      : ((await res.json()) as Message);
  modernHeaders.learn((answer as { result?: unknown } | undefined)?.result);
}

async function handle(line: string): Promise<void> {
  let message: Message | Message[];
  try {
    message = JSON.parse(line) as Message | Message[];
  } catch {
    emit({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error: a line of stdin is not JSON' } });
    return;
  }
  const single = Array.isArray(message) ? undefined : message;
  if (single?.method === 'notifications/cancelled') {
    const target = (single.params as { requestId?: unknown } | undefined)?.requestId;
    const controller = typeof target === 'string' || typeof target === 'number' ? modernInFlight.get(target) : undefined;
    if (controller) {
      // Streamable HTTP under 2026-07-28: closing the request's stream is the cancellation.
      controller.abort();
      return;
    }
  }
  if (single && !sessionId && single.method !== 'initialize' && isModern(single)) return handleModern(single);
  if (single?.method === 'initialize') {
    initRequest = single;
    let release!: () => void;
    sessionReady = new Promise((r) => (release = r));
    try {
      sessionId = undefined;
      const res = await post(single, false);
      sessionId = res.headers.get('mcp-session-id') ?? undefined;
      await respond(res, single);
    } finally {
      release();
    }
    return;
  }
  await sessionReady;
  if (reinitializing) await reinitializing;
  const res = await post(message);
  await respond(res, single);
  if (single?.method === 'notifications/initialized' && res.ok && !initialized) {
    initialized = true;
    openGetStream();
  }
}

async function respond(res: Response, request: Message | undefined, tap?: (m: unknown) => void): Promise<void> {
  if (res.status === 202) {
    await res.arrayBuffer();
    return;
  }
  if (res.ok) {
    if (request?.method === 'initialize') {
      const text = await res.clone().text();
      const match = /"protocolVersion"\s*:\s*"([^"]+)"/.exec(text);
      if (match) protocolVersion = match[1];
    }
    await forward(res, undefined, tap);
    return;
  }
  const text = await res.text();
  let detail = text;
  try {
    const body = JSON.parse(text) as unknown;
    // A JSON-RPC error answer for the request's own id: forward it as is.
    const answers = (Array.isArray(body) ? body : [body]) as { id?: unknown; error?: unknown }[];
    if (answers.every((a) => a && a.error !== undefined && a.id !== null && a.id !== undefined)) {
      for (const a of answers) emit(a);
      return;
    }
    const problem = body as { detail?: string; error?: { message?: string } };
    detail = problem.detail ?? problem.error?.message ?? text;
  } catch {
    // not JSON: keep the text
  }
  log(`HTTP ${res.status}: ${detail}`);
  // A request must get an answer, or the client waits forever.
  if (request?.id !== undefined && request.method)
    emit({ jsonrpc: '2.0', id: request.id, error: { code: -32000, message: `HTTP ${res.status}: ${detail}` } });
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
const inFlight = new Set<Promise<void>>();
rl.on('line', (line) => {
  if (!line.trim()) return;
  const p = handle(line).catch((err: Error) => {
    log(err.message);
  });
  inFlight.add(p);
  void p.finally(() => inFlight.delete(p));
});
rl.on('close', () => {
  closing = true;
  void (async () => {
    // Open subscriptions/listen streams never end by themselves: stdin closing ends them.
    for (const id of listens) modernInFlight.get(id)?.abort();
    await Promise.allSettled([...inFlight]);
    getStream?.abort();
    if (sessionId) {
      await fetch(url, { method: 'DELETE', headers: headers() }).then(
        (r) => r.arrayBuffer(),
        () => undefined,
      );
    }
    process.exit(0);
  })();
});
