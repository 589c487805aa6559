/**
 * What the admin attack tests share: a real framework with the admin plane on loopback, principals
 * in `fw.auth.tokens`, chat members that hold real sockets, and a bounded request flood.
 */
import { once } from 'node:events';
import WebSocket from 'ws';
import { Framework, type FrameworkModule } from '@fw/runtime';
import { admin, type AdminOptions, type AuditEntry } from '../../dist/index.js';

export const API = '/api/admin';

/** Static tokens (`fw.auth.tokens`): one principal per role. */
export const TOKENS = {
  viewer: 'viewer-token-0123456789',
  operator: 'operator-token-0123456789',
  admin: 'admin-token-0123456789abc',
} as const;
export const AUTH_TOKENS = `vera:viewer:${TOKENS.viewer},otto:operator:${TOKENS.operator},ada:admin:${TOKENS.admin}`;
export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

export interface AdminApp {
  fw: Framework;
  base: string;
  ws: string;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** The audit log as `GET /api/admin/audit` shows it (as `token`'s principal when given). */
  audit(query?: string, token?: string): Promise<AuditEntry[]>;
  close(): Promise<void>;
}

/**
 * A framework with the admin plane and a chat handler at `/fw/chat/{room}`, listening on loopback.
 * `modules` are installed first (e.g. `mcp()` for the admin MCP endpoint).
 */
export async function startAdmin(
  props: Record<string, unknown> = {},
  options: AdminOptions = {},
  modules: FrameworkModule[] = [],
): Promise<AdminApp> {
  const fw = new Framework({ configFile: false, 'fw.admin.mcp-tools': false, 'fw.heartbeat.interval': 0, ...props });
  for (const m of modules) await fw.use(m);
  await fw.use(admin(options));
  fw.handle('/chat/{room}', {});
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  const send = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    fetch(base + path, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
  return {
    fw,
    base,
    ws: `ws://127.0.0.1:${port}`,
    get: (path, headers) => fetch(base + path, { headers }),
    send,
    audit: async (query = '', token) => {
      const res = await fetch(`${base}${API}/audit?limit=1000${query ? `&${query}` : ''}`, { headers: token ? bearer(token) : {} });
      if (res.status !== 200) throw new Error(`GET audit: ${res.status} ${await res.text()}`);
      return (await res.json()) as AuditEntry[];
    },
    close: () => fw.close(),
  };
}

/** A raw WebSocket member of a chat room, collecting what it receives. */
export async function chatMember(app: AdminApp, room: string): Promise<{ socket: WebSocket; received: string[]; close(): Promise<void> }> {
  const socket = new WebSocket(`${app.ws}/fw/chat/${room}`);
  const received: string[] = [];
  socket.on('message', (d) => received.push(String(d)));
  await once(socket, 'open');
  return {
    socket,
    received,
    close: async () => {
      if (socket.readyState === WebSocket.CLOSED) return;
      const closed = once(socket, 'close');
      socket.close();
      await closed;
    },
  };
}

/**
 * Sends `n` requests, `concurrency` at a time (bounded), and counts the answers by status.
 * Each body is read so the connection is reused.
 */
export async function flood(n: number, concurrency: number, request: (i: number) => Promise<Response>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      const res = await request(i);
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return statuses;
}

/** The answer must be problem+json with `status` and `code`, and reveal nothing internal. */
export async function expectProblem(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status} ${code}, got ${res.status}: ${text}`);
  if (!/^application\/problem\+json/.test(res.headers.get('content-type') ?? '')) throw new Error(`not problem+json: ${text}`);
  const body = JSON.parse(text) as Record<string, unknown>;
  if (body.code !== code) throw new Error(`expected code ${code}, got ${text}`);
  return body;
}
