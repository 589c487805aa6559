import type { IncomingMessage, ServerResponse } from 'node:http';
import { type CredentialEnd, FwError, parseJson, readBody, sendError, sendProblem, ShareExceededError, whenClosed } from '@fw/runtime';
import { credentialEndChallenge, credentialEndError } from '../credential-end.js';
import { shareRefusal } from '../share-refusal.js';
import type { McpEndpoint } from '../endpoint.js';
import { RpcCode } from '../errors.js';
import { classify, errorResponse, type JsonRpcMessage, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import { isRefusal, readEnvelope, type Envelope } from '../modern/envelope.js';
import { ModernCode } from '../modern/era.js';
import { parseFilter, tagged } from '../modern/subscriptions.js';
import { sendRefusal } from '../oauth/send-refusal.js';
import { checkParamHeaders, checkStandardHeaders, headerParams } from './request-headers.js';

/** An SSE response without event ids: 2026-07-28 removed resumability (changelog, major change 9). */
class ResponseStream {
  closed = false;

  constructor(private readonly res: ServerResponse) {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    whenClosed(res, () => {
      this.closed = true;
    });
  }

  send(message: unknown): boolean {
    if (this.closed || this.res.writableEnded) return false;
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    return true;
  }

  comment(text: string): void {
    if (!this.closed && !this.res.writableEnded) this.res.write(`: ${text}\n\n`);
  }

  end(): void {
    this.closed = true;
    if (!this.res.writableEnded) this.res.end();
  }
}

/**
 * Streamable HTTP under 2026-07-28: one POST per request, no session. The reply is JSON, or an
 * SSE stream opened when the first request-scoped notification (progress, log) arrives, so a
 * refusal raised by the handler (-32021) still gets its HTTP 400. Closing the response cancels
 * the request (transports/streamable-http "Cancellation"). `subscriptions/listen` holds its
 * stream open for list-change and resource-update notifications. GET and DELETE belong to legacy
 * sessions only: 405 here.
 */
export class ModernHttpTransport {
  constructor(private readonly endpoint: McpEndpoint) {}

  handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') {
      req.resume();
      return problem(
        res,
        405,
        'method_not_allowed',
        `${req.method} is only used by legacy (initialize-based) sessions, named by Mcp-Session-Id; protocol 2026-07-28 uses POST`,
        { allow: 'POST, OPTIONS' },
      );
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      req.resume();
      return problem(
        res,
        415,
        'mcp_unsupported_media_type',
        `Content-Type must be application/json, got '${req.headers['content-type'] ?? ''}'`,
      );
    }
    const accept = String(req.headers.accept ?? '*/*').toLowerCase();
    const acceptsSse = accept.includes('text/event-stream') || accept.includes('*/*');
    if (!acceptsSse && !accept.includes('application/json')) {
      req.resume();
      return problem(res, 406, 'mcp_not_acceptable', 'Accept must list application/json and text/event-stream');
    }
    let body: unknown;
    try {
      body = parseJson(await readBody(req, this.endpoint.limits.maxBody), this.endpoint.limits.jsonDepth);
    } catch (err) {
      // Too deep (checked before parsing) is an invalid request, never a -32603 from a blown stack.
      if (err instanceof FwError && err.code === 'json_too_deep')
        return json(res, 400, errorResponse(null, RpcCode.InvalidRequest, err.message));
      if (err instanceof FwError && err.code === 'invalid_json')
        return json(res, 400, errorResponse(null, RpcCode.ParseError, `parse error: ${err.message}`));
      return sendError(res, err);
    }
    if (Array.isArray(body))
      return json(res, 400, errorResponse(null, RpcCode.InvalidRequest, 'JSON-RPC batches are not part of protocol 2026-07-28'));
    const c = classify(body);
    if (c.kind === 'invalid') return json(res, 400, c.reply);
    if (c.kind === 'notification') {
      // No client notification is defined over HTTP in 2026-07-28 (cancellation = closing the stream).
      res.writeHead(202).end();
      return;
    }
    if (c.kind === 'response')
      return json(
        res,
        400,
        errorResponse(
          c.msg.id,
          RpcCode.InvalidRequest,
          'a client sends no JSON-RPC responses under protocol 2026-07-28 (input travels in inputResponses)',
        ),
      );
    const msg = c.msg;
    const envelope = readEnvelope(msg, String(req.headers['mcp-protocol-version']));
    if (isRefusal(envelope)) return json(res, envelope.status, envelope.reply);
    const mismatch = this.checkHeaders(req, msg);
    if (mismatch) return json(res, 400, errorResponse(msg.id, ModernCode.HeaderMismatch, `Header mismatch: ${mismatch}`));
    let principal;
    try {
      principal = await this.endpoint.resolvePrincipal(req);
      const denied = await this.endpoint.scopeRefusal(req, [msg]);
      if (denied) return sendRefusal(res, denied.refusal, msg.id);
    } catch (err) {
      return sendRefusal(res, err, msg.id);
    }
    if (msg.method === 'subscriptions/listen') return this.listen(req, res, msg, acceptsSse, principal);
    return this.reply(req, res, msg, envelope, principal, acceptsSse);
  };

  private checkHeaders(req: IncomingMessage, msg: JsonRpcRequest): string | undefined {
    const standard = checkStandardHeaders(req.headers, msg.method, msg.params);
    if (standard) return standard;
    if (msg.method !== 'tools/call' || typeof msg.params?.name !== 'string') return undefined;
    const tool = this.endpoint.catalog.tool(msg.params.name);
    return tool ? checkParamHeaders(req.headers, headerParams(tool.inputSchema), msg.params.arguments) : undefined;
  }

  private async reply(
    req: IncomingMessage,
    res: ServerResponse,
    msg: JsonRpcRequest,
    envelope: Envelope,
    principal: Awaited<ReturnType<McpEndpoint['resolvePrincipal']>>,
    acceptsSse: boolean,
  ): Promise<void> {
    const cancel = new AbortController();
    // A client gone before its call started cancels it at once.
    whenClosed(res, () => {
      if (!res.writableFinished) cancel.abort();
    });
    const mode = this.endpoint.limits.httpReplies;
    const streams = acceptsSse && mode !== 'json';
    let stream: ResponseStream | undefined;
    let dropKeepAlive: (() => void) | undefined;
    const open = (): ResponseStream => {
      const s = new ResponseStream(res);
      dropKeepAlive = this.endpoint.addKeepAlive({ keepAlive: () => s.comment('keep-alive') });
      stream = s;
      return s;
    };
    if (streams && mode === 'sse') open();
    const sink = (message: JsonRpcMessage): boolean => (streams && !cancel.signal.aborted ? (stream ?? open()).send(message) : false);
    // The request was authenticated when it arrived; the response must not outlive its credential.
    // When it expires or is revoked mid-way the handler is cancelled and the client gets the
    // refusal it would get now: the 401 itself while nothing was sent, else a JSON-RPC error on
    // the stream just before it ends.
    const stopWatching = this.endpoint.fw.credentials.watch(principal, (reason: CredentialEnd) => {
      if (res.writableEnded) return;
      cancel.abort();
      if (stream) stream.send(credentialEndError(msg.id, reason));
      else json(res, 401, credentialEndError(msg.id, reason), credentialEndChallenge(reason));
    });
    try {
      const answer = await this.endpoint.modern.serve(
        msg,
        envelope,
        principal,
        'streamable-http',
        sink,
        cancel.signal,
        this.endpoint.clientAddress(req),
      );
      if (cancel.signal.aborted || !answer) return;
      if (stream) stream.send(answer.response);
      else json(res, answer.status, answer.response, answer.status === 503 ? { 'retry-after': '1' } : undefined);
    } finally {
      stopWatching();
      dropKeepAlive?.();
      if (stream) stream.end();
      else if (!res.headersSent) res.writeHead(204).end();
    }
  }

  /**
   * subscriptions/listen (basic/patterns/subscriptions): acknowledged first, every message tagged,
   * until either side closes. The stream is the caller's (its principal, or an anonymous key bound
   * to this one stream), counts against its share of `fw.mcp.max-subscriptions`, and ends when
   * its credential expires or is revoked (a JSON-RPC error for the listen request first).
   */
  private listen(
    req: IncomingMessage,
    res: ServerResponse,
    msg: JsonRpcRequest,
    acceptsSse: boolean,
    principal: Awaited<ReturnType<McpEndpoint['resolvePrincipal']>>,
  ): void {
    const hub = this.endpoint.subscriptions;
    const limits = this.endpoint.limits;
    if (!acceptsSse)
      return json(
        res,
        406,
        errorResponse(
          msg.id,
          RpcCode.InvalidRequest,
          'subscriptions/listen answers with an SSE stream: Accept must include text/event-stream',
        ),
      );
    const filter = parseFilter(msg.params?.notifications, limits.maxResourceSubscriptions, limits.maxUriLength);
    if (typeof filter === 'string') return json(res, 400, errorResponse(msg.id, RpcCode.InvalidParams, filter));
    let stream: ResponseStream | undefined;
    const modern = this.endpoint.modern;
    let off: () => void;
    try {
      off = hub.add(
        { principal, address: this.endpoint.clientAddress(req) },
        {
          id: msg.id,
          filter,
          send: (n) => stream?.send(n) ?? false,
          end: () => {
            // Graceful closure: a complete result for the listen request, then the stream ends.
            stream?.send({
              jsonrpc: '2.0',
              id: msg.id,
              result: modern.decorate('subscriptions/listen', {}, { 'io.modelcontextprotocol/subscriptionId': msg.id }),
            });
            stream?.end();
          },
        },
      );
    } catch (err) {
      if (!(err instanceof ShareExceededError)) throw err;
      return json(res, err.status, shareRefusal(msg.id, err), err.headers);
    }
    stream = new ResponseStream(res);
    stream.send(tagged('notifications/subscriptions/acknowledged', msg.id, { notifications: filter }));
    const open = stream;
    const dropKeepAlive = this.endpoint.addKeepAlive({ keepAlive: () => open.comment('keep-alive') });
    const stopWatching = this.endpoint.fw.credentials.watch(principal, (reason) => {
      open.send(credentialEndError(msg.id, reason));
      open.end();
    });
    whenClosed(res, () => {
      off();
      dropKeepAlive();
      stopWatching();
    });
  }
}

function json(res: ServerResponse, status: number, value: unknown, headers?: Record<string, string>): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function problem(res: ServerResponse, status: number, code: string, detail: string, headers?: Record<string, string>): void {
  sendProblem(res, status, code, detail, { jsonrpc: '2.0', id: null, error: { code: RpcCode.InvalidRequest, message: detail } }, headers);
}
