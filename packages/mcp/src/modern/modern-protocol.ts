import type { Logger, Principal } from '@fw/runtime';
import { publicMessage } from '../public-error.js';
import type { McpEndpoint } from '../endpoint.js';
import { McpError, RpcCode } from '../errors.js';
import { McpProtocol } from '../protocol/dispatcher.js';
import { errorResponse, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { Sink } from '../protocol/session.js';
import type { Envelope } from './envelope.js';
import { LEGACY_VERSIONS, LIST_RESULTS, META, MODERN_METHODS, MODERN_VERSIONS, ModernCode } from './era.js';
import { StatelessSession } from './stateless-session.js';
import { TASKS_EXTENSION } from './tasks.js';

/** An answer and the HTTP status it travels with (transports that have none ignore it). */
export interface ModernAnswer {
  status: number;
  response: JsonRpcResponse;
}

/**
 * Serves one 2026-07-28 request on any transport, statelessly: a `StatelessSession` built from
 * the request's envelope runs it through the same `McpProtocol` (and so the same handlers) as
 * legacy sessions; the result then gets what this revision adds to every result — `resultType`,
 * `serverInfo` in `_meta`, and caching hints on cacheable ones.
 */
export class ModernProtocol {
  /** Stateless requests being served now (bounded by fw.mcp.max-stateless-requests). */
  private running = 0;

  constructor(private readonly endpoint: McpEndpoint) {}

  get inflight(): number {
    return this.running;
  }

  /** `subscriptions/listen` is the transport's business (a long-lived stream); everything else is here. */
  async serve(
    req: JsonRpcRequest,
    envelope: Envelope,
    principal: Principal | undefined,
    transport: 'streamable-http' | 'websocket',
    sink: Sink,
    signal?: AbortSignal,
    clientAddress?: string,
  ): Promise<ModernAnswer | undefined> {
    if (!MODERN_METHODS.has(req.method) || req.method === 'subscriptions/listen') {
      return {
        status: 404,
        response: errorResponse(
          req.id,
          RpcCode.MethodNotFound,
          `Method not found: ${req.method}${REMOVED.has(req.method) ? ' (removed in protocol 2026-07-28)' : ''}`,
        ),
      };
    }
    if (req.method === 'server/discover')
      return { status: 200, response: { jsonrpc: '2.0', id: req.id, result: this.decorate(req.method, this.discover()) } };
    const max = this.endpoint.limits.maxStatelessRequests;
    if (this.running >= max) {
      return {
        status: 503,
        response: errorResponse(
          req.id,
          RpcCode.ServerError,
          `the server is serving its maximum of ${max} stateless requests (fw.mcp.max-stateless-requests); retry shortly`,
        ),
      };
    }
    this.running++;
    try {
      return await this.run(req, envelope, principal, transport, sink, signal, clientAddress);
    } finally {
      this.running--;
    }
  }

  private async run(
    req: JsonRpcRequest,
    envelope: Envelope,
    principal: Principal | undefined,
    transport: 'streamable-http' | 'websocket',
    sink: Sink,
    signal?: AbortSignal,
    clientAddress?: string,
  ): Promise<ModernAnswer | undefined> {
    const session = new StatelessSession(this.endpoint.path, transport, principal, sink, envelope, clientAddress);
    try {
      this.endpoint.protocol.loadInputs(session, req);
    } catch (err) {
      return failure(req, err, this.endpoint.protocol.log);
    }
    const onAbort = (): void => void session.cancel(req.id);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const answer = await this.endpoint.protocol.request(session, req);
      if (!answer) return undefined;
      if ('error' in answer) return { status: statusOf(answer.error.code), response: answer };
      return { status: 200, response: { ...answer, result: this.decorate(req.method, answer.result) } };
    } finally {
      signal?.removeEventListener('abort', onAbort);
      session.close('request finished');
    }
  }

  /** server/discover (server/discover.mdx): every revision fw serves, and its capabilities. */
  discover(): Record<string, unknown> {
    const id = this.endpoint.identity;
    return {
      supportedVersions: [...MODERN_VERSIONS, ...LEGACY_VERSIONS.filter((v) => v !== '2024-11-05')],
      // Extensions are advertised here only: the tasks extension is not defined for the
      // initialize-based revisions (SEP-2663 "Backward Compatibility").
      capabilities: { ...McpProtocol.capabilities(), extensions: { [TASKS_EXTENSION]: {} } },
      ...(id.instructions ? { instructions: id.instructions } : {}),
    };
  }

  /** resultType, serverInfo and — on complete cacheable results — ttlMs/cacheScope. */
  decorate(method: string, result: Record<string, unknown>, extraMeta?: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = { ...result };
    out.resultType ??= 'complete';
    const meta = out._meta && typeof out._meta === 'object' ? (out._meta as Record<string, unknown>) : {};
    out._meta = {
      ...meta,
      ...extraMeta,
      [META.serverInfo]: { name: this.endpoint.identity.name, version: this.endpoint.identity.version },
    };
    if (out.resultType === 'complete') {
      const hints = LIST_RESULTS.has(method)
        ? this.endpoint.limits.listCache
        : method === 'resources/read'
          ? this.endpoint.limits.readCache
          : undefined;
      if (hints) {
        out.ttlMs ??= hints.ttlMs;
        out.cacheScope ??= hints.scope;
      }
    }
    return out;
  }
}

const REMOVED = new Set(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']);

/** HTTP status of a JSON-RPC error under 2026-07-28 (transports/streamable-http). */
export function statusOf(code: number): number {
  if (code === RpcCode.MethodNotFound) return 404;
  if (
    code === ModernCode.HeaderMismatch ||
    code === ModernCode.MissingRequiredClientCapability ||
    code === ModernCode.UnsupportedProtocolVersion
  )
    return 400;
  return 200;
}

function failure(req: JsonRpcRequest, err: unknown, log: Logger): ModernAnswer {
  if (err instanceof McpError)
    return { status: statusOf(err.rpcCode), response: errorResponse(req.id, err.rpcCode, err.message, err.data) };
  return {
    status: 200,
    response: errorResponse(req.id, RpcCode.InternalError, `internal error: ${publicMessage(err, log, req.method)}`),
  };
}
