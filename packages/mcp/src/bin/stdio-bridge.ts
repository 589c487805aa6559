#!/usr/bin/env node
/**
 * fw-mcp-stdio-bridge <url>: lets a stdio-only MCP client (a desktop assistant) talk to an fw
 * Streamable HTTP endpoint. One JSON-RPC message per stdin line is POSTed; every message the
 * server sends back (JSON or SSE, and the GET stream's server-initiated messages) is written to
 * stdout, one per line, and nothing else ever is. Diagnostics go to stderr.
 *
 * Exit codes: 0 stdin closed, 2 bad usage or URL, 3 server unreachable.
 */
import { createInterface } from 'node:readline';

const EXIT_USAGE = 2;
const EXIT_UNREACHABLE = 3;

type Message = Record<string, unknown> & { id?: string | number; method?: string };

function fail(code: number, text: string): never {
  process.stderr.write(`fw-mcp-stdio-bridge: ${text}\n`);
  process.exit(code);
}

function parseTarget(arg: string | undefined): URL {
  if (!arg) fail(EXIT_USAGE, 'usage: fw-mcp-stdio-bridge <http(s)://host:port/mcp>');
  let url: URL;
  try {
    url = new URL(arg);
  } catch {
    fail(EXIT_USAGE, `not a URL: '${arg}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(EXIT_USAGE, `the URL must be http:// or https://, got '${arg}'`);
  return url;
}

const url = parseTarget(process.argv[2]);
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
async function forward(res: Response, swallow?: string | number): Promise<void> {
  const type = res.headers.get('content-type') ?? '';
  const out = (m: unknown) => {
    if (swallow !== undefined && (m as Message)?.id === swallow && !('method' in (m as Message))) return;
    emit(m);
  };
  if (type.includes('text/event-stream') && res.body) {
    for await (const data of sseMessages(res.body)) {
      try {
        out(JSON.parse(data));
      } catch {
        process.stderr.write(`fw-mcp-stdio-bridge: ignored a non-JSON SSE event\n`);
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
    process.stderr.write('fw-mcp-stdio-bridge: session expired; re-initializing\n');
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

async function handle(line: string): Promise<void> {
  let message: Message | Message[];
  try {
    message = JSON.parse(line) as Message | Message[];
  } catch {
    emit({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error: a line of stdin is not JSON' } });
    return;
  }
  const single = Array.isArray(message) ? undefined : message;
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

async function respond(res: Response, request: Message | undefined): Promise<void> {
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
    await forward(res);
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
  process.stderr.write(`fw-mcp-stdio-bridge: HTTP ${res.status}: ${detail}\n`);
  // A request must get an answer, or the client waits forever.
  if (request?.id !== undefined && request.method) emit({ jsonrpc: '2.0', id: request.id, error: { code: -32000, message: `HTTP ${res.status}: ${detail}` } });
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
const inFlight = new Set<Promise<void>>();
rl.on('line', (line) => {
  if (!line.trim()) return;
  const p = handle(line).catch((err: Error) => {
    process.stderr.write(`fw-mcp-stdio-bridge: ${err.message}\n`);
  });
  inFlight.add(p);
  void p.finally(() => inFlight.delete(p));
});
rl.on('close', () => {
  closing = true;
  void (async () => {
    await Promise.allSettled([...inFlight]);
    getStream?.abort();
    if (sessionId) {
      await fetch(url, { method: 'DELETE', headers: headers() }).then((r) => r.arrayBuffer(), () => undefined);
    }
    process.exit(0);
  })();
});
