import { randomUUID } from 'node:crypto';
import type { Principal } from '@fw/runtime';
import type { LogLevel, McpSessionHandle } from '../context.js';
import { McpError, RpcCode } from '../errors.js';
import type { JsonRpcMessage, JsonRpcResponse, RequestId } from './jsonrpc.js';

/**
 * Where a session's outbound messages go. `related` is the id of the client request a message
 * belongs to (progress, logs, sampling), so Streamable HTTP can put it on that request's stream.
 * Returns false when nothing could carry the message.
 */
export type Sink = (message: JsonRpcMessage, related?: RequestId) => boolean;

interface Outgoing {
  resolve: (result: Record<string, unknown>) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Per-session protocol state, shared by both transports: negotiated version, client info, log
 * level, in-flight requests (with their AbortControllers) and server-to-client requests waiting
 * for an answer. `close()` releases all of it.
 */
export class McpSession implements McpSessionHandle {
  readonly id = randomUUID();
  readonly attributes = new Map<string, unknown>();
  readonly createdAt = Date.now();
  lastActivity = Date.now();
  requests = 0;
  protocolVersion = '';
  clientInfo: { name: string; version: string } | undefined;
  clientCapabilities: Record<string, unknown> = {};
  initialized = false;
  logLevel: LogLevel = 'info';
  readonly subscriptions = new Set<string>();
  readonly inflight = new Map<RequestId, AbortController>();
  private readonly outgoing = new Map<RequestId, Outgoing>();
  private nextId = 0;
  closed = false;

  constructor(
    readonly server: string,
    readonly transport: 'streamable-http' | 'websocket',
    public principal: Principal | undefined,
    public sink: Sink,
    readonly clientAddress: string | undefined = undefined,
  ) {}

  send(message: JsonRpcMessage, related?: RequestId): boolean {
    if (this.closed) return false;
    return this.sink(message, related);
  }

  /** A request to the client; rejects on timeout, on an error answer, or when the session ends. */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMs: number,
    related?: RequestId,
  ): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new McpError(RpcCode.ServerError, 'mcp_session_closed', 'the MCP session is closed'));
    const id = `fw-${++this.nextId}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.outgoing.delete(id);
        reject(new McpError(RpcCode.RequestTimeout, 'mcp_client_timeout', `the client did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.outgoing.set(id, { resolve, reject, timer });
      const sent = this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }, related);
      if (!sent) {
        clearTimeout(timer);
        this.outgoing.delete(id);
        reject(new McpError(RpcCode.ServerError, 'mcp_no_channel', `no open stream to send ${method} to the client`));
      }
    });
  }

  /** A response from the client to one of our requests. Unknown ids are ignored. */
  settle(response: JsonRpcResponse): void {
    const o = this.outgoing.get(response.id as RequestId);
    if (!o) return;
    this.outgoing.delete(response.id as RequestId);
    clearTimeout(o.timer);
    if ('error' in response) o.reject(new McpError(response.error.code, 'mcp_client_error', response.error.message, response.error.data));
    else o.resolve(response.result);
  }

  cancel(id: RequestId): boolean {
    const c = this.inflight.get(id);
    if (!c) return false;
    c.abort(new McpError(RpcCode.ServerError, 'mcp_cancelled', 'the client cancelled the request'));
    return true;
  }

  get pendingClientRequests(): number {
    return this.outgoing.size;
  }

  close(reason = 'session closed'): void {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.inflight.values()) c.abort(new McpError(RpcCode.ServerError, 'mcp_session_closed', reason));
    this.inflight.clear();
    for (const o of this.outgoing.values()) {
      clearTimeout(o.timer);
      o.reject(new McpError(RpcCode.ServerError, 'mcp_session_closed', reason));
    }
    this.outgoing.clear();
    this.subscriptions.clear();
  }
}
