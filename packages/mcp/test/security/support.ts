/** What the MCP attack tests share: servers in both configurations, raw clients, a loop-lag probe, real JWTs. */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { WebSocket } from 'ws';
import { Framework } from '@fw/runtime';
import { mountMcpServer, ToolRegistry, type McpContext, type MountedServer } from '../../dist/index.js';

export const ALICE = 'alice-token-0123456789abcdef';
export const BOB = 'bob-token-0123456789abcdef';
/** `fw.auth.tokens` for the authenticated configuration: two principals, alice and bob. */
export const TOKENS = `alice:viewer:${ALICE},bob:viewer:${BOB}`;

export const MODERN = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
export const modernMeta = (capabilities: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

/** The tools and resources the attacks aim at: a task tool, a tool that waits, resource templates. */
export function attackRegistry(): ToolRegistry {
  const registry = new ToolRegistry('programmatic');
  registry.registerTool({
    name: 'wait',
    description: 'runs until cancelled',
    task: { support: 'optional' },
    handler: (_args, ctx: McpContext) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('aborted'))),
  });
  registry.registerTool({
    name: 'tick',
    description: 'reports progress, then runs until cancelled (its answer becomes a stream)',
    handler: (_args, ctx: McpContext) => {
      ctx.progress(1, 2, 'started');
      return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('aborted')));
    },
  });
  registry.registerTool({
    name: 'whoami',
    description: 'the caller',
    handler: (_args, ctx: McpContext) => ctx.principal?.id ?? 'anonymous',
  });
  registry.registerTool({
    name: 'echo',
    description: 'echoes',
    params: [{ name: 'text', type: 'string', required: false }],
    handler: (args) => String(args.text ?? ''),
  });
  // The templates of issue #24: an app's `notes://{owner}.{name}` and adjacent expressions.
  registry.registerResource({ uri: 'notes://{owner}.{name}', name: 'Note', read: (vars) => `note ${vars.name} of ${vars.owner}` });
  registry.registerResource({ uri: 'fw://grid/{a}{b}{c}{d}', name: 'Grid', read: (vars) => JSON.stringify(vars) });
  return registry;
}

export interface AttackServer {
  fw: Framework;
  port: number;
  url: string;
  mounted: MountedServer;
  close(): Promise<void>;
}

/** An MCP endpoint at `/mcp` serving `attackRegistry()`, with `options` (e.g. `fw.auth.tokens`). */
export async function startServer(options: Record<string, unknown> = {}): Promise<AttackServer> {
  const fw = new Framework({ configFile: false, env: {}, ...options });
  const mounted = mountMcpServer(fw, { name: 'attack', version: '1.0.0', path: '/mcp' }, { registries: [attackRegistry()] });
  const { port } = await fw.listen(0, '127.0.0.1');
  return { fw, port, url: `http://127.0.0.1:${port}/mcp`, mounted, close: () => fw.close() };
}

/** The two configurations every attack runs in. */
export const CONFIGS = [
  { name: 'anonymous (default)', options: {}, tokens: { alice: undefined, bob: undefined } },
  { name: 'fw.auth.tokens (alice, bob)', options: { 'fw.auth.tokens': TOKENS }, tokens: { alice: ALICE, bob: BOB } },
] as const;

export const bearer = (token: string | undefined): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json(): { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } };
}

/**
 * One HTTP request from `from` (a loopback address the client socket binds to: a distinct client
 * address). A response still open after 10 s (a stream that should have been refused) is cut and
 * resolved with what it sent, so that a test fails on its status instead of hanging.
 */
export function send(
  port: number,
  method: string,
  headers: Record<string, string>,
  body?: string,
  from = '127.0.0.1',
  path = '/mcp',
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, localAddress: from, agent: false, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        const cut = setTimeout(() => res.destroy(), 10_000);
        res.on('close', () => {
          clearTimeout(cut);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => lastMessage(text) });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The body as JSON, or the last `data:` of an SSE body. */
function lastMessage(text: string): ReturnType<Reply['json']> {
  if (text.startsWith('{') || text.startsWith('[')) return JSON.parse(text) as never;
  const data = text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => l.slice(6))
    .filter((l) => l.trim() !== '');
  return JSON.parse(data.pop() ?? '{}') as never;
}

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A 2026-07-28 POST with its standard headers (`Mcp-Method`, `Mcp-Name`). */
export function modernPost(
  port: number,
  method: string,
  params: Record<string, unknown>,
  options: { token?: string | undefined; from?: string; id?: number | string; capabilities?: Record<string, unknown> } = {},
): Promise<Reply> {
  const p: Record<string, unknown> = { ...params, _meta: modernMeta(options.capabilities) };
  const name =
    method === 'tools/call' || method === 'prompts/get'
      ? p.name
      : method === 'resources/read'
        ? p.uri
        : method.startsWith('tasks/')
          ? p.taskId
          : undefined;
  return send(
    port,
    'POST',
    {
      ...JSON_HEADERS,
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...bearer(options.token),
    },
    JSON.stringify({ jsonrpc: '2.0', id: options.id ?? 1, method, params: p }),
    options.from,
  );
}

/** initialize + notifications/initialized over HTTP; the session id. */
export async function legacySession(port: number, token?: string, from = '127.0.0.1'): Promise<string> {
  const init = await send(
    port,
    'POST',
    { ...JSON_HEADERS, ...bearer(token) },
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'attack', version: '0' } },
    }),
    from,
  );
  if (init.status !== 200) throw new Error(`initialize: ${init.status} ${init.text}`);
  const id = String(init.headers['mcp-session-id']);
  await send(
    port,
    'POST',
    { ...JSON_HEADERS, ...bearer(token), 'mcp-session-id': id },
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    from,
  );
  return id;
}

/** A raw JSON-RPC client on the MCP WebSocket: `ask` sends a request and resolves with its answer. */
export interface SocketClient {
  ws: WebSocket;
  ask(message: Record<string, unknown>, timeoutMs?: number): Promise<ReturnType<Reply['json']>>;
  messages: Record<string, unknown>[];
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export function openSocket(port: number, token?: string, from = '127.0.0.1'): Promise<SocketClient> {
  return openSocketWith(port, bearer(token), from);
}

/** `openSocket` with any upgrade headers. */
export async function openSocketWith(port: number, headers: Record<string, string>, from = '127.0.0.1'): Promise<SocketClient> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/mcp`, 'mcp', { headers, localAddress: from });
  const messages: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (d) => {
    messages.push(JSON.parse(d.toString()) as Record<string, unknown>);
    for (const w of [...waiters]) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const w of [...waiters]) w();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
  return {
    ws,
    messages,
    closed,
    close: () => ws.close(),
    ask: (message, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const found = messages.find((m) => m.id === message.id && ('result' in m || 'error' in m));
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found as never);
          } else if (ws.readyState === ws.CLOSED) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`the socket closed before answering ${String(message.id)}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no answer to ${String(message.id)} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        ws.send(JSON.stringify(message));
        check();
      }),
  };
}

/**
 * Measures how late a 5 ms interval timer fires while `work` runs: the longest the event loop
 * was blocked (the server runs in this process, so its blocking shows here).
 */
export async function loopLag<T>(work: () => Promise<T>): Promise<{ value: T; lagMs: number }> {
  let last = performance.now();
  let lag = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    lag = Math.max(lag, now - last - 5);
    last = now;
  }, 5);
  try {
    const value = await work();
    return { value, lagMs: lag };
  } finally {
    clearInterval(timer);
  }
}

/** A JWKS on loopback and RS256 tokens signed for it (issuer and audience below). */
export interface JwtIssuer {
  jwksUrl: string;
  issuer: string;
  audience: string;
  sign(sub: string, expiresInSeconds: number): Promise<string>;
  close(): Promise<void>;
}

export async function startJwtIssuer(): Promise<JwtIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = 'https://issuer.test';
  const audience = 'fw-mcp';
  return {
    jwksUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`,
    issuer,
    audience,
    sign: (sub, expiresInSeconds) => sign(privateKey, sub, issuer, audience, expiresInSeconds),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sign(key: CryptoKey, sub: string, issuer: string, audience: string, expiresInSeconds: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ roles: ['viewer'] })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setSubject(sub)
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt(now)
    .setExpirationTime(now + expiresInSeconds)
    .sign(key);
}

/** `promise`, or a failure naming what did not happen within `ms` (a test fails instead of hanging). */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
