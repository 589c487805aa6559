/**
 * fw's A2A adapter for one agent, mounted with `fw.route` under `/fw/agent/{name}/a2a`: the agent
 * card at the well-known path and JSON-RPC (A2A 1.0, and 0.3 when the `A2A-Version` header is
 * absent or `0.3`) with SSE streaming. The protocol work is @a2a-js/sdk's `DefaultRequestHandler`;
 * this adapter owns the HTTP side, the JSON-RPC envelope checks and the shared cancel path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { A2A_VERSION_HEADER, type Task } from '@a2a-js/sdk';
import { TaskNotCancelableError as A2ATaskNotCancelable, TaskNotFoundError as A2ATaskNotFound, toJsonRpcError } from '@a2a-js/sdk/errors';
import { DefaultRequestHandler, JsonRpcTransportHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { isLegacyJsonRpcMethod, isV1JsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import { FwError, NotFoundError, parseJson, readBody, requireJsonContentType, sendError, sendJson, type Framework } from '@fw/runtime';
import type { AgentHost, MountedAgent } from '../host.js';
import { admitAgentCall } from '../auth.js';
import { agentCard, legacyAgentCard } from './card.js';
import { FwAgentExecutor } from './executor.js';
import type { BoundedTaskStore } from './task-store.js';
import { TaskNotCancelableError } from '../errors.js';

export const JSONRPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  VERSION_NOT_SUPPORTED: -32009,
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
    this.v1 = new JsonRpcTransportHandler(this.handler);
    this.legacy = new LegacyJsonRpcTransportHandler(this.handler);
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
   * The one cancel path: the protocol's CancelTask goes through the same request handler call.
   * Throws NotFoundError for an unknown task and TaskNotCancelableError for a finished one.
   */
  async cancel(taskId: string, reason?: string): Promise<Task> {
    if (reason) this.executor.reasons.set(taskId, reason);
    try {
      return await this.handler.cancelTask({ id: taskId, tenant: '', metadata: undefined }, new ServerCallContext());
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
    if (!(await admitAgentCall(this.host.auth, req, res))) return;
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
    const envelope = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    const id = validId(envelope?.id) ? (envelope.id as RpcId) : null;
    if (
      !envelope ||
      typeof envelope !== 'object' ||
      Array.isArray(envelope) ||
      envelope.jsonrpc !== '2.0' ||
      typeof envelope.method !== 'string' ||
      ('id' in envelope && !validId(envelope.id))
    ) {
      return rpcError(res, id, JSONRPC.INVALID_REQUEST, 'Invalid Request: expected a JSON-RPC 2.0 request object');
    }
    if (version !== '0.3' && version !== '1.0') {
      return rpcError(res, id, JSONRPC.VERSION_NOT_SUPPORTED, `A2A version '${version}' is not supported (1.0, 0.3)`);
    }
    const legacy = version === '0.3';
    if (!(legacy ? isLegacyJsonRpcMethod(envelope.method) : isV1JsonRpcMethod(envelope.method))) {
      return rpcError(res, id, JSONRPC.METHOD_NOT_FOUND, `Method not found: ${envelope.method} (A2A ${version})`);
    }
    if (
      envelope.params !== undefined &&
      (typeof envelope.params !== 'object' || envelope.params === null || Array.isArray(envelope.params))
    ) {
      return rpcError(res, id, JSONRPC.INVALID_PARAMS, 'Invalid params: expected an object');
    }
    if (SENDS.has(envelope.method) && !hasPrompt(envelope.params)) {
      return rpcError(res, id, JSONRPC.INVALID_PARAMS, 'Invalid params: the message has no content (an empty prompt)');
    }
    if (SENDS.has(envelope.method)) this.host.store.budget.admit(); // 503 storage_budget_exceeded (store retention)
    if (SENDS.has(envelope.method) && this.store.isFull()) {
      // Refused before the agent starts: a task that cannot be stored must not run.
      return rpcError(res, id, JSONRPC.INTERNAL_ERROR, 'the task store is full (fw.agent.tasks.max live tasks); try again later', {
        code: 'limit_exceeded',
      });
    }
    const ctx = new ServerCallContext({ requestedVersion: version });
    const out = await (legacy
      ? this.legacy.handle(envelope as Record<string, unknown>, ctx)
      : this.v1.handle(envelope as Record<string, unknown>, ctx));
    if (!isAsyncIterable(out)) {
      sendJson(res, 200, out);
      return;
    }
    await streamSse(res, out, id, legacy);
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

/** A message has a prompt when some part is non-empty text, a file or data (A2A 1.0 and 0.3 shapes). */
function hasPrompt(params: unknown): boolean {
  const parts = (params as { message?: { parts?: unknown } } | undefined)?.message?.parts;
  if (!Array.isArray(parts)) return true; // malformed: the SDK's own validation answers
  return parts.some((p: unknown) => {
    if (!p || typeof p !== 'object') return false;
    const part = p as { kind?: unknown; text?: unknown };
    if (typeof part.text === 'string') return part.text.trim().length > 0;
    return part.kind !== 'text';
  });
}

async function streamSse(res: ServerResponse, stream: AsyncGenerator<unknown, void, undefined>, id: RpcId, legacy: boolean): Promise<void> {
  const it = stream[Symbol.asyncIterator]();
  let first: IteratorResult<unknown>;
  try {
    first = await it.next();
  } catch (err) {
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
  res.on('close', onClose);
  try {
    if (!first.done) res.write(`data: ${JSON.stringify(first.value)}\n\n`);
    for (let r = first; !r.done; ) {
      r = await it.next();
      if (!r.done && !gone) res.write(`data: ${JSON.stringify(r.value)}\n\n`);
    }
  } catch (err) {
    if (!gone) res.write(`event: error\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: streamError(err, legacy) })}\n\n`);
  } finally {
    res.off('close', onClose);
    if (!res.writableEnded) res.end();
  }
}

function rpcError(res: ServerResponse, id: RpcId, code: number, message: string, data?: Record<string, unknown>): void {
  sendJson(res, 200, { jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } });
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
