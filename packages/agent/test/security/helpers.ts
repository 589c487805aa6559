/**
 * What the agent attack tests share: the two configurations every attack runs in (anonymous, and
 * `fw.auth.tokens` with alice and bob), clients of the official A2A SDK for a caller, a fetch that
 * leaves from a chosen loopback address (two anonymous "clients" must come from two addresses
 * for per-address shares), raw JSON-RPC and AG-UI calls, and a chat client.
 */
import { request } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { Role, type Message, type SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import WebSocket from 'ws';
import { waitFor } from '@fw/testing';
import type { TestApp } from '../helpers.js';

/**
 * What no answer may contain: a stack frame, a path of this machine, a socket error, an address
 * with a port, a JavaScript TypeError's wording.
 */
export const INTERNALS =
  /\n\s+at |\(\/|file:\/\/|node_modules|\/work\/|\/home\/|\/tmp\/|ECONN|\b\d{1,3}(\.\d{1,3}){3}:\d+|Cannot read|is not a function|undefined \(reading/;

export const TOKENS = { alice: 'alice-token-0123456789abcdef', bob: 'bob-token-0123456789abcdef', carol: 'carol-token-0123456789abcdef' };

export interface Configuration {
  name: string;
  options: Record<string, unknown>;
  /** The credential of each caller; undefined when callers are anonymous. */
  token(who: 'alice' | 'bob' | 'carol'): string | undefined;
}

/** The two configurations every attack is performed in. */
export const CONFIGURATIONS: Configuration[] = [
  { name: 'anonymous (default)', options: {}, token: () => undefined },
  {
    name: 'fw.auth.tokens (alice, bob)',
    options: { 'fw.auth.tokens': `alice:viewer:${TOKENS.alice},bob:viewer:${TOKENS.bob},carol:viewer:${TOKENS.carol}` },
    token: (who) => TOKENS[who],
  },
];

/**
 * `fetch` over node:http, leaving from `localAddress` (any 127.0.0.0/8 address reaches a server on
 * 127.0.0.1 on Linux), with `token` as a bearer credential. Streams the body, so SSE works.
 */
export function fetchAs(options: { token?: string | undefined; localAddress?: string } = {}): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers = new Headers(init.headers);
    if (options.token) headers.set('authorization', `Bearer ${options.token}`);
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    if (body !== undefined && !headers.has('content-length')) headers.set('content-length', String(Buffer.byteLength(body)));
    return new Promise<Response>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          method: init.method ?? 'GET',
          headers: Object.fromEntries(headers),
          agent: false,
          ...(options.localAddress ? { localAddress: options.localAddress } : {}),
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (res) => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
          const status = res.statusCode ?? 0;
          const stream = status === 204 || status === 304 ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          resolve(new Response(stream, { status, headers: h }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }) as typeof fetch;
}

/** An A2A 1.0 client of the official SDK for one caller. */
export function a2aClient(app: TestApp, agent: string, token?: string, localAddress?: string): Promise<Client> {
  const fetchImpl = fetchAs({ token, ...(localAddress ? { localAddress } : {}) });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] }),
  );
  return factory.createFromUrl(`${app.base}/fw/agent/${agent}/a2a`);
}

/** An A2A 0.3 transport of the official SDK (no A2A-Version header) for one caller. */
export function legacyTransport(app: TestApp, agent: string, token?: string): LegacyJsonRpcTransport {
  return new LegacyJsonRpcTransport({ endpoint: `${app.base}/fw/agent/${agent}/a2a`, fetchImpl: fetchAs({ token }) });
}

export function userMessage(text: string, contextId = ''): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId: '',
    role: Role.ROLE_USER,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  };
}

export function sendRequest(text: string, contextId = ''): SendMessageRequest {
  return { tenant: '', message: userMessage(text, contextId), configuration: undefined, metadata: undefined };
}

export interface RpcAnswer {
  status: number;
  headers: Headers;
  text: string;
  body: { jsonrpc?: string; id?: unknown; result?: unknown; error?: { code: number; message: string; data?: Record<string, unknown> } };
}

/** One raw JSON-RPC POST to an agent's A2A endpoint (1.0 with the header, 0.3 without). */
export async function rpc(
  app: TestApp,
  agent: string,
  body: unknown,
  options: { token?: string | undefined; version?: '1.0' | '0.3'; localAddress?: string } = {},
): Promise<RpcAnswer> {
  const res = await fetchAs(options)(`${app.base}/fw/agent/${agent}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(options.version === '1.0' ? { 'a2a-version': '1.0' } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: RpcAnswer['body'] = {};
  try {
    parsed = JSON.parse(text) as RpcAnswer['body'];
  } catch {
    /* an SSE stream or a problem: the text says */
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

/** A JSON-RPC SendMessage (1.0) / message/send (0.3) request with a text prompt. */
export function sendBody(text: string, version: '1.0' | '0.3', options: { stream?: boolean; contextId?: string } = {}): object {
  const messageId = randomUUID();
  if (version === '1.0') {
    return {
      jsonrpc: '2.0',
      id: 1,
      method: options.stream ? 'SendStreamingMessage' : 'SendMessage',
      params: {
        message: { messageId, role: 'ROLE_USER', parts: [{ text }], ...(options.contextId ? { contextId: options.contextId } : {}) },
      },
    };
  }
  return {
    jsonrpc: '2.0',
    id: 1,
    method: options.stream ? 'message/stream' : 'message/send',
    params: {
      message: {
        kind: 'message',
        messageId,
        role: 'user',
        parts: [{ kind: 'text', text }],
        ...(options.contextId ? { contextId: options.contextId } : {}),
      },
    },
  };
}

/** A RunAgentInput with one user message. */
export function runInput(runId: string, text: string, threadId = 'thread-1'): object {
  return {
    threadId,
    runId,
    messages: [{ id: randomUUID(), role: 'user', content: text }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
}

/** An AG-UI run whose events are read as they come. */
export class AguiStream {
  readonly events: Record<string, unknown>[] = [];
  ended = false;
  private constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly problem: Record<string, unknown> | undefined,
  ) {}

  static async start(
    app: TestApp,
    agent: string,
    input: object,
    options: { token?: string | undefined; localAddress?: string } = {},
  ): Promise<AguiStream> {
    const res = await fetchAs(options)(`${app.base}/fw/agent/${agent}/agui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    if (res.status !== 200) return new AguiStream(res.status, res.headers, (await res.json()) as Record<string, unknown>);
    const s = new AguiStream(res.status, res.headers, undefined);
    void s.read(res.body!);
    return s;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    const reader = body.getReader();
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        buffer += decoder.decode(r.value, { stream: true });
        for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          const data = frame.split('\n').find((l) => l.startsWith('data: '));
          if (data) this.events.push(JSON.parse(data.slice(6)) as Record<string, unknown>);
        }
      }
    } catch {
      /* the connection went away: `ended` says so */
    }
    this.ended = true;
  }

  /** The owner key an anonymous run's RUN_STARTED carries. */
  async runKey(): Promise<string | undefined> {
    const started = await waitFor('RUN_STARTED', () => this.events.find((e) => e.type === 'RUN_STARTED'));
    return (started.metadata as Record<string, string> | undefined)?.['fw.runKey'];
  }

  async finished(): Promise<Record<string, unknown>> {
    await waitFor('the run stream to end', () => this.ended, 20_000);
    return this.events.at(-1) ?? {};
  }
}

/** POST …/agui/runs/{runId}/cancel as a caller, with an optional owner key. */
export async function cancelRun(
  app: TestApp,
  agent: string,
  runId: string,
  options: { token?: string | undefined; runKey?: string | undefined } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetchAs(options)(`${app.base}/fw/agent/${agent}/agui/runs/${encodeURIComponent(runId)}/cancel`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(options.runKey === undefined ? {} : { runKey: options.runKey }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export interface ChatFrame {
  type: string;
  id?: string;
  resumed?: boolean;
  history?: { role: string; content: string }[];
  delta?: string;
  text?: string;
  code?: string;
  message?: string;
  retryAfter?: number;
}

/** A raw WebSocket chat client of an agent's chat endpoint. */
export class ChatClient {
  readonly frames: ChatFrame[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => this.frames.push(JSON.parse(String(d)) as ChatFrame));
  }

  static async connect(
    app: TestApp,
    agent: string,
    options: { token?: string | undefined; session?: string; localAddress?: string } = {},
  ): Promise<ChatClient> {
    const query = new URLSearchParams();
    if (options.token) query.set('access_token', options.token);
    if (options.session) query.set('session', options.session);
    const ws = new WebSocket(
      `${app.base.replace('http', 'ws')}/fw/agent/${agent}?${query}`,
      options.localAddress ? { localAddress: options.localAddress } : {},
    );
    const c = new ChatClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return c;
  }

  session(): Promise<ChatFrame> {
    return waitFor('the session frame', () => this.frames.find((f) => f.type === 'session'));
  }

  /** Sends a prompt and returns its final frame (`done` or `error`). */
  async ask(text: string): Promise<ChatFrame> {
    const start = this.frames.length;
    this.ws.send(text);
    return waitFor('the answer', () => this.frames.slice(start).find((f) => f.type === 'done' || f.type === 'error'), 20_000);
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise((r) => this.ws.once('close', r));
    this.ws.close();
    await closed;
  }
}
