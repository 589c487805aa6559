/**
 * fw's A2A adapter for one agent, mounted with `fw.route` under `/fw/agent/{name}/a2a`: the agent
 * card at the well-known path and JSON-RPC (A2A 1.0, and 0.3 when the `A2A-Version` header is
 * absent or `0.3`) with SSE streaming. The protocol work is @a2a-js/sdk's `DefaultRequestHandler`;
 * this adapter owns the HTTP side, the JSON-RPC envelope and params checks, the caller of each
 * call (its owner, its share of the live tasks, its prompt rate) and the shared cancel path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { A2A_VERSION_HEADER, type Task } from '@a2a-js/sdk';
import { TaskNotCancelableError as A2ATaskNotCancelable, TaskNotFoundError as A2ATaskNotFound, toJsonRpcError } from '@a2a-js/sdk/errors';
import { DefaultRequestHandler, JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  anonymousOwner,
  callerOf,
  FwError,
  newOwnerKey,
  NotFoundError,
  parseJson,
  principalOwner,
  RateLimitedError,
  readBody,
  requireJsonContentType,
  sendError,
  sendJson,
  ShareExceededError,
  whenClosed,
  type Framework,
  type Principal,
} from '@fw/runtime';
import type { AgentHost, MountedAgent } from '../host.js';
import { admitAgentCaller } from '../auth.js';
import { callContext, type CallerScope } from './call-scope.js';
import { agentCard, legacyAgentCard } from './card.js';
import { FwAgentExecutor } from './executor.js';
import { GuardedRequestHandler } from './guarded-handler.js';
import { hasPrompt, isA2AMethod, paramsProblem, PUSH_CONFIG_METHODS, sentContextId, sentTaskId } from './params.js';
import type { BoundedTaskStore } from './task-store.js';
import { TaskNotCancelableError } from '../errors.js';

export const JSONRPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  PUSH_NOT_SUPPORTED: -32003,
  VERSION_NOT_SUPPORTED: -32009,
  /**
   * A caller over its share or rate, or the whole capacity in use: JSON-RPC's implementation-defined
   * server error (A2A defines none for it); `data` says which limit, with `retryAfter` in seconds.
   */
  REFUSED: -32000,
} as const;

/** Methods that may create a task (1.0 and 0.3 names). */
const SENDS = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);

type RpcId = string | number | null;

export class A2AEndpoint {
  readonly handler: DefaultRequestHandler;
  readonly executor: FwAgentExecutor;
  private readonly v1: JsonRpcTransportHandler;
  private readonly legacy: LegacyJsonRpcTransportHandler;
  readonly path: string;

  constructor(
    private readonly host: AgentHost,
    private readonly agent: MountedAgent,
    private readonly store: BoundedTaskStore,
  ) {
    this.path = `${agent.path}/a2a`;
    this.executor = new FwAgentExecutor(host, agent.name, store);
    this.handler = new DefaultRequestHandler(agentCard(agent, this.path), store.forAgent(agent.name), this.executor);
    const guarded = new GuardedRequestHandler(this.handler, host.log, agent.name);
    this.v1 = new JsonRpcTransportHandler(guarded);
    this.legacy = new LegacyJsonRpcTransportHandler(guarded);
  }

  mount(fw: Framework): (() => void)[] {
    const card = (req: IncomingMessage, res: ServerResponse): void => this.card(req, res);
    return [
      fw.route('POST', this.path, (req, res) => this.post(req, res)),
      fw.route('GET', `${this.path}/.well-known/agent-card.json`, card),
      fw.route('GET', `${this.agent.path}/.well-known/agent-card.json`, card),
    ];
  }

  /**
   * The one cancel path: the protocol's CancelTask goes through the same request handler call,
   * here for an operator (the admin plane), who reaches every task.
   * Throws NotFoundError for an unknown task and TaskNotCancelableError for a finished one.
   */
  async cancel(taskId: string, reason?: string): Promise<Task> {
    if (reason) this.executor.reasons.set(taskId, reason);
    try {
      return await this.handler.cancelTask({ id: taskId, tenant: '', metadata: undefined }, callContext({ operator: true }));
    } catch (err) {
      if (err instanceof A2ATaskNotFound) throw new NotFoundError('task', taskId);
      if (err instanceof A2ATaskNotCancelable) throw new TaskNotCancelableError(taskId, 'finished');
      throw err;
    } finally {
      this.executor.reasons.delete(taskId);
    }
  }

  private card(req: IncomingMessage, res: ServerResponse): void {
    // fw.public-url (or the listening address), never the request's Host: a DNS-rebinding page
    // must not get a card that advertises its own host.
    const url = `${this.host.fw.security.baseUrl(req)}${this.path}`;
    const version = header(req, A2A_VERSION_HEADER);
    // The card is public (A2A §5.3 discovery) and says which credential the endpoint really wants.
    const auth = this.host.auth;
    const body =
      version && version !== '0.3'
        ? { ...agentCard(this.agent, url), ...auth?.cardSecurity() }
        : { ...legacyAgentCard(this.agent, url), ...auth?.legacyCardSecurity() };
    sendJson(res, 200, body, { vary: A2A_VERSION_HEADER });
  }

  private async post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A2A §4 (authentication at the transport): a refused call is an HTTP 401 before any JSON-RPC.
    const admitted = await admitAgentCaller(this.host.auth, req, res);
    if (!admitted) return;
    let text: string;
    try {
      // A form or text/plain POST (what another site's page may send without a preflight) is a 415.
      requireJsonContentType(req);
      text = await readBody(req, this.host.fw.config.get('fw.agent.max-body-bytes'));
    } catch (err) {
      sendError(res, err);
      return;
    }
    let body: unknown;
    try {
      body = parseJson(text, this.host.fw.security.jsonDepth);
    } catch (err) {
      // Too deep is checked before parsing and is an invalid request, never a -32603 stack overflow.
      if (err instanceof FwError && err.code === 'json_too_deep') {
        return rpcError(res, null, JSONRPC.INVALID_REQUEST, `Invalid Request: ${err.message}`, { code: 'json_too_deep' });
      }
      return rpcError(res, null, JSONRPC.PARSE_ERROR, 'Parse error: the body is not valid JSON');
    }
    const version = header(req, A2A_VERSION_HEADER) ?? '0.3';
    // `null`, an array or a scalar is valid JSON and no request: nothing of it is read before this check.
    if (!isRecord(body)) return rpcError(res, null, JSONRPC.INVALID_REQUEST, 'Invalid Request: expected a JSON-RPC 2.0 request object');
    const envelope = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    const id = validId(envelope.id) ? ((envelope.id ?? null) as RpcId) : null;
    if (envelope.jsonrpc !== '2.0' || typeof envelope.method !== 'string' || ('id' in envelope && !validId(envelope.id))) {
      return rpcError(res, id, JSONRPC.INVALID_REQUEST, 'Invalid Request: expected a JSON-RPC 2.0 request object');
    }
    if (version !== '0.3' && version !== '1.0') {
      return rpcError(res, id, JSONRPC.VERSION_NOT_SUPPORTED, `A2A version '${version}' is not supported (1.0, 0.3)`);
    }
    const legacy = version === '0.3';
    const method = envelope.method;
    if (!isA2AMethod(method, legacy)) {
      return rpcError(res, id, JSONRPC.METHOD_NOT_FOUND, `Method not found: ${method.slice(0, 100)} (A2A ${version})`);
    }
    if (envelope.params !== undefined && !isRecord(envelope.params)) {
      return rpcError(res, id, JSONRPC.INVALID_PARAMS, 'Invalid params: expected an object');
    }
    const params = envelope.params;
    if (PUSH_CONFIG_METHODS.has(method)) {
      return rpcError(res, id, JSONRPC.PUSH_NOT_SUPPORTED, 'Push Notification is not supported');
    }
    const problem = paramsProblem(method, params);
    if (problem) return rpcError(res, id, JSONRPC.INVALID_PARAMS, `Invalid params: ${problem}`);
    // fw serves one tenant per agent (the card's interfaces say ''): a tenant in the params would
    // only scope the SDK's event buses apart from the cancel path.
    if (params && 'tenant' in params) delete params.tenant;

    const { principal } = admitted;
    const scope: CallerScope = { operator: false, principal, owner: undefined, lease: undefined };
    if (SENDS.has(method)) {
      if (!hasPrompt(params, legacy)) {
        return rpcError(res, id, JSONRPC.INVALID_PARAMS, 'Invalid params: the message has no content (an empty prompt)');
      }
      try {
        this.host.store.budget.admit(); // 503 storage_budget_exceeded before the disk fills (store retention)
        this.admitSend(scope, req, principal, params);
      } catch (err) {
        return rpcRefusal(res, id, err);
      }
    }
    try {
      const ctx = callContext(scope, version);
      const out = await (legacy
        ? this.legacy.handle(envelope as Record<string, unknown>, ctx)
        : this.v1.handle(envelope as Record<string, unknown>, ctx));
      if (!isAsyncIterable(out)) {
        sendJson(res, 200, out);
        return;
      }
      await streamSse(
        res,
        out,
        id,
        legacy,
        this.host.fw.credentials.watch(principal, () => res.end()),
      );
    } finally {
      // A send that created no task (refused, failed before the SDK stored one) gives its share back.
      scope.lease?.release();
    }
  }

  /**
   * Before a send runs the model: the caller's prompt rate, the owner of what it creates, and (for
   * a new task) its share of the live tasks, taken now and kept by the task until it ends. Throws
   * the refusal.
   */
  private admitSend(
    scope: CallerScope,
    req: IncomingMessage,
    principal: Principal | undefined,
    params: Record<string, unknown> | undefined,
  ): void {
    const caller = callerOf(req, principal);
    this.host.limits.prompts.take(caller);
    // A principal owns its work. An anonymous caller that names a context continues the owner of
    // the anonymous tasks there (the context id is its capability); else it starts a new owner.
    scope.owner = principal
      ? principalOwner(principal.id)
      : (this.store.anonymousOwnerOf(this.agent.name, sentContextId(params)) ?? anonymousOwner(newOwnerKey()));
    // A message that continues a task by id runs on that task's share.
    if (!sentTaskId(params)) scope.lease = this.host.limits.tasks.acquire(caller);
  }
}

/**
 * The JSON-RPC error of a streaming method keeps the A2A code of the error (TaskNotFound -32001,
 * UnsupportedOperation -32004, …), as the non-streaming path does. A2A 0.3 errors carry no `data`.
 */
function streamError(err: unknown, legacy: boolean): { code: number; message: string; data?: unknown } {
  const e = toJsonRpcError(err);
  return legacy ? { code: e.code, message: e.message } : e;
}

/**
 * Streams the SDK's events as SSE. `stopWatching` ends the credential watch that closes the
 * stream when the caller's credential expires or is revoked mid-stream (the task goes on: A2A
 * tasks outlive streams).
 */
async function streamSse(
  res: ServerResponse,
  stream: AsyncGenerator<unknown, void, undefined>,
  id: RpcId,
  legacy: boolean,
  stopWatching: () => void,
): Promise<void> {
  const it = stream[Symbol.asyncIterator]();
  let first: IteratorResult<unknown>;
  try {
    first = await it.next();
  } catch (err) {
    stopWatching();
    sendJson(res, 200, { jsonrpc: '2.0', id, error: streamError(err, legacy) });
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  // The task goes on when the client leaves (A2A tasks outlive streams); we only stop writing.
  let gone = false;
  const onClose = (): void => {
    gone = true;
  };
  if (res.writableEnded) gone = true;
  whenClosed(res, onClose);
  try {
    if (!first.done) res.write(`data: ${JSON.stringify(first.value)}\n\n`);
    for (let r = first; !r.done; ) {
      r = await it.next();
      if (!r.done && !gone && !res.writableEnded) res.write(`data: ${JSON.stringify(r.value)}\n\n`);
    }
  } catch (err) {
    if (!gone && !res.writableEnded)
      res.write(`event: error\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: streamError(err, legacy) })}\n\n`);
  } finally {
    stopWatching();
    res.off('close', onClose);
    if (!res.writableEnded) res.end();
  }
}

function rpcError(
  res: ServerResponse,
  id: RpcId,
  code: number,
  message: string,
  data?: Record<string, unknown>,
  headers?: Record<string, string>,
): void {
  sendJson(res, 200, { jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } }, headers);
}

/**
 * A send refused for the caller's share or rate (or the whole capacity in use): a JSON-RPC error
 * whose `data` has the code, the limit's key and `retryAfter` (s), and the same `Retry-After` as
 * an HTTP header (the JSON-RPC answer itself stays a 200, which every A2A client reads).
 */
function rpcRefusal(res: ServerResponse, id: RpcId, err: unknown): void {
  if (!(err instanceof ShareExceededError || err instanceof RateLimitedError)) throw err;
  const retryAfter = Number(err.headers?.['retry-after'] ?? 1);
  rpcError(res, id, JSONRPC.REFUSED, err.message, { code: err.code, ...err.details, retryAfter }, err.headers);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function validId(id: unknown): boolean {
  return id === undefined || id === null || typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
}

function isAsyncIterable(v: unknown): v is AsyncGenerator<unknown, void, undefined> {
  return typeof (v as { [Symbol.asyncIterator]?: unknown })?.[Symbol.asyncIterator] === 'function';
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  const s = Array.isArray(v) ? v[0] : v;
  return s ? s.trim() : undefined;
}
