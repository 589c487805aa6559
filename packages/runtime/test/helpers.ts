import { request } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { WebSocket as WsWebSocket } from 'ws';
import { Framework, type FrameworkOptions } from '../dist/index.js';

export interface Running {
  fw: Framework;
  base: string;
  ws: string;
  close(): Promise<void>;
}

/** A framework on an ephemeral loopback port, no autoloaded modules, no config file. */
export async function startFw(options: FrameworkOptions = {}, setup?: (fw: Framework) => void): Promise<Running> {
  const fw = new Framework({ configFile: false, env: {}, ...options });
  setup?.(fw);
  const { port } = await fw.listen(0, '127.0.0.1');
  return { fw, base: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${port}`, close: () => fw.close() };
}

/** An async queue: push items, await them in order. */
export class Queue<T> {
  private items: T[] = [];
  private waiters: ((v: T) => void)[] = [];

  push(item: T): void {
    const w = this.waiters.shift();
    if (w) w(item);
    else this.items.push(item);
  }

  /** Items pushed and not yet taken. */
  buffered(): number {
    return this.items.length;
  }

  next(timeoutMs = 5000): Promise<T> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise<T>((resolve, reject) => {
      const t = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(done), 1);
        reject(new Error('timed out waiting for the next item'));
      }, timeoutMs);
      t.unref();
      const done = (v: T): void => {
        clearTimeout(t);
        resolve(v);
      };
      this.waiters.push(done);
    });
  }

  async take(n: number, timeoutMs = 5000): Promise<T[]> {
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(await this.next(timeoutMs));
    return out;
  }

  get length(): number {
    return this.items.length;
  }
}

/**
 * The `ws` package's own client. On Node this is what `import 'ws'` gives; Bun answers that
 * import with a built-in client of its own, which has no TCP socket (`_socket`) for a test to
 * pause, and the slow-consumer tests need a reader that stops reading. Loading the package's
 * file runs the real `ws` on either runtime.
 */
const requireHere = createRequire(import.meta.url);
export const WebSocket: typeof WsWebSocket = requireHere(join(dirname(requireHere.resolve('ws/package.json')), 'index.js'));
export type WebSocket = WsWebSocket;

export interface WsClient {
  socket: WebSocket;
  messages: Queue<string>;
  closed: Promise<{ code: number; reason: string }>;
}

export function connectWs(url: string, options?: ConstructorParameters<typeof WebSocket>[2]): Promise<WsClient> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, options);
    const messages = new Queue<string>();
    socket.on('message', (d) => messages.push(d.toString()));
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      socket.on('close', (code, reason) => r({ code, reason: reason.toString() })),
    );
    socket.once('open', () => resolve({ socket, messages, closed }));
    socket.once('unexpected-response', (_req, res) => reject(new Error(`unexpected response ${res.statusCode}`)));
    socket.once('error', reject);
  });
}

export interface StreamClient {
  status: number;
  headers: Headers;
  /** SSE: one item per event (`{id, data}`); streaming: one item per line (`{data}`). */
  events: Queue<{ id?: string; data: string; comment?: boolean }>;
  ended: Promise<void>;
  abort(): void;
}

/** Reads an SSE (`sse: true`) or line-streaming response with fetch. */
export async function openStream(url: string, sse: boolean, headers: Record<string, string> = {}): Promise<StreamClient> {
  const ac = new AbortController();
  const res = await fetch(url, { headers: sse ? { accept: 'text/event-stream', ...headers } : headers, signal: ac.signal });
  const events = new Queue<{ id?: string; data: string; comment?: boolean }>();
  const ended = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        const sep = sse ? '\n\n' : '\n';
        let i: number;
        while ((i = buf.indexOf(sep)) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + sep.length);
          if (!sse) {
            events.push({ data: block });
            continue;
          }
          let id: string | undefined;
          const data: string[] = [];
          let comment = false;
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
            else if (line.startsWith(':')) comment = true;
          }
          events.push({ ...(id !== undefined ? { id } : {}), data: data.join('\n'), ...(comment ? { comment } : {}) });
        }
      }
    } catch {
      // aborted
    }
  })();
  return { status: res.status, headers: res.headers, events, ended, abort: () => ac.abort() };
}

export function recordEvents(fw: Framework): { type: string; [k: string]: unknown }[] {
  const seen: { type: string; [k: string]: unknown }[] = [];
  fw.events.onAny((e) => seen.push(e as unknown as { type: string }));
  return seen;
}

/** Attempts a WebSocket upgrade that the server is expected to refuse; returns its HTTP answer. */
export function refusedUpgrade(
  url: string,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  type: string;
  headers: Record<string, string | string[] | undefined>;
  body: { code?: string; status?: number; [k: string]: unknown };
}> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...headers,
      },
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      reject(new Error('upgrade was accepted'));
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type']),
          headers: res.headers,
          body: JSON.parse(text) as { code?: string },
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** Running on Bun (`bun test`, scripts/test-bun.mjs), where `fw.listen()` serves through `Bun.serve`. */
export const onBun = 'Bun' in globalThis;

/** A test's options that skip it on Bun, saying why (docs/bun.md lists them). */
export function notOnBun(reason: string): { skip: string | false } {
  return { skip: onBun ? `not on Bun: ${reason}` : false };
}
