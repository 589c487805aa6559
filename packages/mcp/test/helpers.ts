import { request } from 'node:http';
import { Framework } from '@fw/runtime';
import { McpParam, McpServer, McpTool, mountMcpServer, type McpContext, type MountedServer } from '../dist/index.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): Record<string, unknown> & { error?: { code: number; message: string }; code?: string; result?: Record<string, unknown> };
}

/** A plain HTTP request (node:http, so Host and Origin can be set freely). */
export function http(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) as never });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export function initBody(version = '2025-06-18', id: number | string = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  });
}

export function rpc(method: string, params: Record<string, unknown> = {}, id: number | string = 2): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Tools the transport tests poke at. */
@McpServer({ name: 'edge', version: '2.0.0', path: '/t' })
export class EdgeServer {
  static aborted = 0;
  /** Calls of `gated` so far, and the releases of those still waiting. */
  static gatedCalls = 0;
  static readonly gates: (() => void)[] = [];

  /** Lets every waiting `gated` call finish. */
  static openGates(): void {
    for (const g of EdgeServer.gates.splice(0)) g();
  }

  @McpTool({ name: 'gated', description: 'waits until the test opens the gate (or it is cancelled)' })
  async gated(ctx: McpContext): Promise<string> {
    EdgeServer.gatedCalls++;
    await new Promise<void>((resolve) => {
      EdgeServer.gates.push(resolve);
      ctx.signal.addEventListener('abort', () => resolve());
    });
    return `gated-ok-${EdgeServer.gatedCalls}`;
  }

  @McpTool({ name: 'echo', description: 'echoes its text' })
  echo(@McpParam({ name: 'text', description: 'what to echo', type: 'string' }) text: string): string {
    return text;
  }

  @McpTool({ name: 'slow', description: 'waits until cancelled or 5 s' })
  async slow(ctx: McpContext): Promise<string> {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 5000);
      ctx.signal.addEventListener('abort', () => {
        EdgeServer.aborted++;
        clearTimeout(t);
        resolve();
      });
    });
    return 'done';
  }

  @McpTool({ name: 'chatty', description: 'logs at info and error' })
  chatty(ctx: McpContext): string {
    ctx.log('info', 'an info line');
    ctx.log('error', 'an error line');
    return 'ok';
  }

  @McpTool({ name: 'ask', description: 'asks the client to sample' })
  async ask(ctx: McpContext): Promise<string> {
    const r = await ctx.request('sampling/createMessage', { messages: [], maxTokens: 1 });
    return JSON.stringify(r);
  }

  @McpTool({ name: 'whoami', description: 'the session principal' })
  whoami(ctx: McpContext): string {
    return ctx.principal?.id ?? 'anonymous';
  }
}

export async function startEdge(
  options: Record<string, unknown> = {},
  mountOptions: Parameters<typeof mountMcpServer>[2] = {},
): Promise<{ fw: Framework; port: number; mounted: MountedServer }> {
  const fw = new Framework({ configFile: false, ...options });
  const mounted = mountMcpServer(fw, EdgeServer, mountOptions);
  const addr = await fw.listen(0, '127.0.0.1');
  return { fw, port: addr.port, mounted };
}

/** initialize + notifications/initialized; returns the session id. */
export async function openSession(port: number, version = '2025-06-18', path = '/t'): Promise<string> {
  const r = await http(port, 'POST', path, JSON_HEADERS, initBody(version));
  if (r.status !== 200) throw new Error(`initialize: ${r.status} ${r.text}`);
  const id = String(r.headers['mcp-session-id']);
  await http(
    port,
    'POST',
    path,
    { ...JSON_HEADERS, 'mcp-session-id': id },
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  );
  return id;
}

export interface SseHandle {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Everything received so far. */
  text(): string;
  /** Resolves once the received text matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  ended: Promise<void>;
  close(): void;
}

export function openSse(port: number, path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<SseHandle> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers }, agent: false },
      (res) => {
        let buf = '';
        const waiters = new Set<() => void>();
        let endResolve!: () => void;
        const ended = new Promise<void>((r) => (endResolve = r));
        res.on('data', (c: Buffer) => {
          buf += c.toString('utf8');
          for (const w of [...waiters]) w();
        });
        res.on('end', endResolve);
        res.on('close', endResolve);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: () => buf,
          ended,
          close: () => req.destroy(),
          waitFor: (pattern, timeoutMs = 3000) =>
            new Promise((ok, fail) => {
              const check = () => {
                const m = pattern.exec(buf);
                if (m) {
                  waiters.delete(check);
                  clearTimeout(timer);
                  ok(m[0]);
                }
              };
              const timer = setTimeout(() => {
                waiters.delete(check);
                fail(new Error(`timed out waiting for ${pattern} in ${JSON.stringify(buf)}`));
              }, timeoutMs);
              waiters.add(check);
              check();
            }),
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The stateless revision, and a request in it: `_meta` envelope, standard headers, JSON or SSE answer. */
export const MODERN_VERSION = '2026-07-28';
const V = MODERN_VERSION;
export const modernMeta = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  ...extra,
});

export function modernHeaders(method: string, params: Record<string, unknown>, extra: Record<string, string> = {}): Record<string, string> {
  const name =
    method === 'tools/call' || method === 'prompts/get'
      ? params.name
      : method === 'resources/read'
        ? params.uri
        : method.startsWith('tasks/')
          ? params.taskId
          : undefined;
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': V,
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    ...extra,
  };
}

export interface ModernAnswer {
  status: number;
  headers: Headers;
  body: { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } };
}

let nextId = 1;
export async function modernCall(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  extra: Record<string, string> = {},
): Promise<ModernAnswer> {
  const p = { ...params, _meta: { ...modernMeta(), ...(params._meta as object | undefined) } };
  const res = await fetch(url, {
    method: 'POST',
    headers: modernHeaders(method, p, extra),
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: p }),
  });
  const text = await res.text();
  const body = res.headers.get('content-type')?.includes('text/event-stream')
    ? JSON.parse(
        text
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .pop() ?? '{}',
      )
    : JSON.parse(text);
  return { status: res.status, headers: res.headers, body };
}

/** Running on Bun (`bun test`, scripts/test-bun.mjs), where `fw.listen()` serves through `Bun.serve`. */
export const onBun = 'Bun' in globalThis;

/** A test's options that skip it on Bun, saying why (docs/bun.md lists them). */
export function notOnBun(reason: string): { skip: string | false } {
  return { skip: onBun ? `not on Bun: ${reason}` : false };
}
