/**
 * Shared helpers of the security suite: the demo on a loopback port (default configuration, or
 * with `fw.admin.auth.token`), raw HTTP requests and WebSocket handshakes with exactly the headers
 * an attack sends (an explicit `Host`, an `Origin`), and the list of fw surfaces the demo serves.
 * Everything goes over real sockets on 127.0.0.1.
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { FrameworkOptions } from '@fw/runtime';
import { WebSocket } from 'ws';
import { startDemo, type Demo } from '../../src/main.js';

export const TOKEN = 'security-suite-token';

/** The two configurations every attack runs against. */
export const CONFIGURATIONS: readonly { name: string; config: FrameworkOptions; auth: Record<string, string> }[] = [
  { name: 'default configuration', config: {}, auth: {} },
  { name: 'with fw.admin.auth.token', config: { 'fw.admin.auth.token': TOKEN }, auth: { authorization: `Bearer ${TOKEN}` } },
];

export interface Target {
  demo: Demo;
  port: number;
  /** `127.0.0.1:<port>`: the Host a legitimate local client sends. */
  host: string;
  /** `http://127.0.0.1:<port>`: the page's own origin. */
  origin: string;
  close(): Promise<void>;
}

/** The demo on an ephemeral loopback port; `config` on top of the defaults (no config file read). */
export async function startTarget(config: FrameworkOptions = {}): Promise<Target> {
  const demo = await startDemo({ port: 0, host: '127.0.0.1', config: { configFile: false, ...config } });
  const port = Number(new URL(demo.url).port);
  return { demo, port, host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}`, close: () => demo.close() };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

/**
 * One HTTP request over a fresh connection with exactly these headers (`host` defaults to the
 * target's own; pass another to play a rebinding page).
 */
export function send(
  target: Target,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
  options: { localAddress?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        method,
        path,
        agent: false,
        ...options,
        headers: { host: target.host, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        // SSE and long-lived answers: the head is enough.
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '', json: () => ({}) as never });
          res.destroy();
          return;
        }
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) as never });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path}: no answer in 10 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

export interface HandshakeResult {
  /** 101 when the server upgraded; otherwise the refusal's status. */
  status: number;
  /** The problem+json `code` of a refusal. */
  code: string | undefined;
}

/**
 * A WebSocket handshake with exactly these headers; the socket is closed at once when it opens.
 * Tells whether the server upgraded (101) or refused before the handshake (and with what).
 */
export function handshake(target: Target, path: string, headers: Record<string, string> = {}): Promise<HandshakeResult> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port: target.port,
      method: 'GET',
      path,
      agent: false,
      headers: {
        host: target.host,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 101, code: undefined });
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        let code: string | undefined;
        try {
          code = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { code?: string }).code;
        } catch {
          code = undefined;
        }
        resolve({ status: res.statusCode ?? 0, code });
      });
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`upgrade ${path}: no answer in 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

/** A real `ws` client (for message-level attacks); resolves once open. */
export function openSocket(
  target: Target,
  path: string,
  protocols: string[] = [],
  headers: Record<string, string> = {},
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${target.host}${path}`, protocols, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
}

/** The next text message on a socket (bounded in time). */
export function nextMessage(ws: WebSocket, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no message in time')), timeoutMs);
    ws.once('message', (data) => {
      clearTimeout(timer);
      resolve(String(data));
    });
  });
}

/** How the socket closed (bounded in time). */
export function closed(ws: WebSocket, timeoutMs = 10_000): Promise<{ code: number; reason: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('socket not closed in time')), timeoutMs);
    ws.once('close', (code, reason) => {
      clearTimeout(timer);
      resolve({ code, reason: reason.toString() });
    });
  });
}

export const JSON_TYPE = { 'content-type': 'application/json' };
export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export const initializeBody = (): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'security-suite', version: '1.0.0' } },
  });

export const a2aSendBody = (text: string): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'message/send',
    params: {
      message: { kind: 'message', messageId: `m-${randomBytes(4).toString('hex')}`, role: 'user', parts: [{ kind: 'text', text }] },
    },
  });

export const aguiRunBody = (runId: string): string =>
  JSON.stringify({
    threadId: 't',
    runId,
    messages: [{ id: 'm', role: 'user', content: 'hello' }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  });

/** A JSON value nested `levels` deep (arrays), as text: what a stack-overflow attack sends. */
export function deepJson(levels = 10_000): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

/** One HTTP request an fw surface answers (with the right Host it is not a 421). */
export interface HttpSurface {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Every HTTP surface the demo serves, one request each (issue 11, item 2). */
export const HTTP_SURFACES: readonly HttpSurface[] = [
  { name: 'admin REST read', method: 'GET', path: '/api/admin/overview' },
  {
    name: 'admin REST write',
    method: 'POST',
    path: '/api/admin/broadcasters/broadcast',
    headers: JSON_TYPE,
    body: JSON.stringify({ broadcasterId: '/fw/chat/lobby', message: 'x' }),
  },
  { name: 'dashboard', method: 'GET', path: '/fw/admin/' },
  { name: 'event stream (SSE)', method: 'GET', path: '/fw/admin/events', headers: { accept: 'text/event-stream' } },
  { name: '/mcp', method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: initializeBody() },
  { name: 'per-agent MCP', method: 'POST', path: '/fw/agent/research/mcp', headers: MCP_HEADERS, body: initializeBody() },
  { name: 'A2A', method: 'POST', path: '/fw/agent/assistant/a2a', headers: JSON_TYPE, body: '{}' },
  { name: 'agent card', method: 'GET', path: '/fw/agent/assistant/.well-known/agent-card.json' },
  { name: 'AG-UI', method: 'POST', path: '/fw/agent/assistant/agui', headers: JSON_TYPE, body: '{}' },
  { name: 'AG-UI cancel', method: 'POST', path: '/fw/agent/assistant/agui/runs/none/cancel' },
  { name: 'agent chat (SSE)', method: 'GET', path: '/fw/agent/assistant', headers: { accept: 'text/event-stream' } },
  { name: '/fw transports (SSE)', method: 'GET', path: '/fw/chat/lobby?transport=sse' },
  {
    name: '/fw transports (message POST)',
    method: 'POST',
    path: '/fw/chat/lobby?tracking=00000000-0000-4000-8000-000000000000',
    headers: { 'content-type': 'text/plain' },
    body: 'x',
  },
  { name: 'client assets', method: 'GET', path: '/fw/client.js' },
  { name: 'client assets (IIFE)', method: 'GET', path: '/fw/client.global.js' },
  { name: 'metrics', method: 'GET', path: '/fw/metrics' },
  { name: 'admin API description', method: 'GET', path: '/api/admin/openapi.json' },
  { name: 'agent card (A2A path)', method: 'GET', path: '/fw/agent/research/a2a/.well-known/agent-card.json' },
  { name: 'demo page route', method: 'GET', path: '/demo/rooms' },
];

/** Every WebSocket surface the demo serves (the path, and the subprotocol it wants). */
export const UPGRADE_SURFACES: readonly { name: string; path: string; headers?: Record<string, string> }[] = [
  { name: 'chat (raw)', path: '/fw/chat/lobby' },
  { name: 'chat (fw protocol)', path: '/fw/chat/lobby?fw=1' },
  { name: 'admin event stream', path: '/fw/admin/events' },
  { name: '/mcp', path: '/mcp', headers: { 'sec-websocket-protocol': 'mcp' } },
  { name: 'per-agent MCP', path: '/fw/agent/research/mcp', headers: { 'sec-websocket-protocol': 'mcp' } },
  { name: 'agent chat', path: '/fw/agent/assistant' },
];
