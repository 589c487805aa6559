import type { IncomingMessage, ServerResponse } from 'node:http';
import { FwError, readBody, sendError, sendProblem } from '@fw/runtime';
import type { McpEndpoint } from '../endpoint.js';
import { RpcCode } from '../errors.js';
import { allowsBatches, SUPPORTED_VERSIONS } from '../protocol/dispatcher.js';
import { classify, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc.js';
import { McpSession } from '../protocol/session.js';
import { checkRequestSource, corsHeaders, preflight } from './origin.js';
import { SseStream } from './sse.js';
import { isModernHttpRequest } from '../modern/era.js';
import { ModernHttpTransport } from './modern-http.js';

const ALLOW = 'GET, POST, DELETE, OPTIONS';
const SESSION_HEADER = 'mcp-session-id';

/** The HTTP side of one session: its standalone GET stream and the SSE streams of POSTs in progress. */
class HttpChannel {
  getStream: SseStream | undefined;
  dropGetKeepAlive: (() => void) | undefined;
  readonly postStreams = new Map<RequestId, SseStream>();
  openPosts = 0;

  sink = (message: JsonRpcMessage, related?: RequestId): boolean => {
    if (related !== undefined) {
      const s = this.postStreams.get(related);
      if (s && !s.closed) return s.send(message);
    }
    return this.getStream ? this.getStream.send(message) : false;
  };

  close(): void {
    this.dropGetKeepAlive?.();
    this.getStream?.end();
    this.getStream = undefined;
    for (const s of new Set(this.postStreams.values())) s.end();
    this.postStreams.clear();
  }
}

/**
 * Streamable HTTP (MCP 2025-03-26, and the later revisions' header rules): POST carries client
 * messages and gets JSON or an SSE stream back, GET opens the server's stream, DELETE ends the
 * session. Every refusal is a problem+json body that also carries a JSON-RPC `error` member, so
 * both HTTP tooling and MCP clients can read it.
 */
export class StreamableHttpTransport {
  private readonly channels = new Map<string, HttpChannel>();
  private readonly modern: ModernHttpTransport;

  constructor(private readonly endpoint: McpEndpoint) {
    this.modern = new ModernHttpTransport(endpoint);
  }

  handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refusal = checkRequestSource(req, this.endpoint.limits);
    if (refusal) return fail(res, refusal.status, refusal.code, refusal.detail);
    const cors = corsHeaders(req);
    for (const [k, v] of Object.entries(cors)) res.setHeader(k, v);
    if (req.method !== 'OPTIONS') {
      try {
        await this.endpoint.checkAccess(req);
      } catch (err) {
        req.resume();
        return sendError(res, err);
      }
    }
    // Era dispatch (2026-07-28 basic/versioning): no legacy session named and a modern
    // MCP-Protocol-Version (or a GET/DELETE, which only legacy sessions may send) → stateless.
    if (isModernHttpRequest(req)) return this.modern.handle(req, res);
    switch (req.method) {
      case 'POST':
        return this.post(req, res);
      case 'GET':
        return this.get(req, res);
      case 'DELETE':
        return this.delete(req, res);
      case 'OPTIONS':
        return preflight(req, res);
      default:
        req.resume();
        return fail(res, 405, 'method_not_allowed', `${req.method} is not allowed on an MCP endpoint`, { allow: ALLOW });
    }
  };

  private async post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      req.resume();
      return fail(res, 415, 'mcp_unsupported_media_type', `Content-Type must be application/json, got '${req.headers['content-type'] ?? ''}'`);
    }
    const accept = parseAccept(req.headers.accept);
    if (!accept.json && !accept.sse) {
      req.resume();
      return fail(res, 406, 'mcp_not_acceptable', 'Accept must include application/json or text/event-stream');
    }
    let body: unknown;
    try {
      const text = await readBody(req, this.endpoint.limits.maxBody);
      body = JSON.parse(text);
    } catch (err) {
      if (err instanceof FwError) return sendError(res, err);
      return fail(res, 400, 'mcp_parse_error', `body is not valid JSON: ${(err as Error).message}`, undefined, RpcCode.ParseError);
    }
    const batch = Array.isArray(body);
    const items = batch ? (body as unknown[]) : [body];
    if (items.length === 0) return fail(res, 400, 'mcp_invalid_request', 'an empty batch is not a valid JSON-RPC request', undefined, RpcCode.InvalidRequest);
    const classified = items.map(classify);

    const init = classified.find((c) => c.kind === 'request' && c.msg.method === 'initialize');
    if (init && init.kind === 'request') {
      if (batch) return fail(res, 400, 'mcp_invalid_request', 'initialize must not be part of a batch', undefined, RpcCode.InvalidRequest);
      return this.initialize(req, res, init.msg, accept);
    }

    const found = await this.existingSession(req, res);
    if (!found) return;
    const { session, channel } = found;
    if (batch && !allowsBatches(session.protocolVersion)) {
      return fail(res, 400, 'mcp_batch_not_supported', `JSON-RPC batches are not part of protocol version ${session.protocolVersion}`, undefined, RpcCode.InvalidRequest);
    }

    const errors: JsonRpcResponse[] = [];
    const requests: JsonRpcRequest[] = [];
    for (const c of classified) {
      if (c.kind === 'invalid') errors.push(c.reply);
      else if (c.kind === 'notification') this.endpoint.protocol.notification(session, c.msg);
      else if (c.kind === 'response') this.endpoint.protocol.response(session, c.msg);
      else requests.push(c.msg);
    }
    if (requests.length === 0) {
      if (errors.length === 0) {
        res.writeHead(202).end();
        return;
      }
      return sendJsonRpc(res, 400, batch ? errors : errors[0]);
    }

    const sse = accept.sse && (!accept.json || this.endpoint.limits.httpReplies === 'sse'
      || (this.endpoint.limits.httpReplies === 'auto' && requests.some((r) => r.method === 'tools/call')));
    channel.openPosts++;
    try {
      if (sse) await this.replySse(res, session, channel, requests, errors);
      else await this.replyJson(res, session, requests, errors, batch);
    } finally {
      channel.openPosts--;
      session.lastActivity = Date.now();
    }
  }

  private async replyJson(res: ServerResponse, session: McpSession, requests: JsonRpcRequest[], errors: JsonRpcResponse[], batch: boolean): Promise<void> {
    const answers = await Promise.all(requests.map((r) => this.endpoint.protocol.request(session, r)));
    const out = [...errors, ...answers.filter((a): a is JsonRpcResponse => a !== undefined)];
    if (out.length === 0) {
      // Everything was cancelled: nothing is owed, but the HTTP exchange must end.
      res.writeHead(202).end();
      return;
    }
    sendJsonRpc(res, 200, batch ? out : out[0], { 'mcp-session-id': session.id });
  }

  private async replySse(res: ServerResponse, session: McpSession, channel: HttpChannel, requests: JsonRpcRequest[], errors: JsonRpcResponse[]): Promise<void> {
    const stream = new SseStream(res, { 'mcp-session-id': session.id }, primes(session));
    const dropKeepAlive = this.endpoint.addKeepAlive({ keepAlive: () => stream.comment('keep-alive') });
    for (const r of requests) channel.postStreams.set(r.id, stream);
    try {
      for (const e of errors) stream.send(e);
      await Promise.all(requests.map(async (r) => {
        const answer = await this.endpoint.protocol.request(session, r);
        if (answer) stream.send(answer);
      }));
    } finally {
      for (const r of requests) if (channel.postStreams.get(r.id) === stream) channel.postStreams.delete(r.id);
      dropKeepAlive();
      stream.end();
    }
  }

  private async initialize(req: IncomingMessage, res: ServerResponse, msg: JsonRpcRequest, accept: Accept): Promise<void> {
    let principal;
    try {
      principal = await this.endpoint.resolvePrincipal(req);
    } catch (err) {
      return sendError(res, err);
    }
    // Admission and registration with no await in between, so concurrent initializes cannot overshoot a cap.
    const address = this.endpoint.clientAddress(req);
    const refusal = this.endpoint.admit(address);
    if (refusal) return fail(res, refusal.status, refusal.code, refusal.detail, { 'retry-after': String(refusal.retryAfterSeconds) });
    const channel = new HttpChannel();
    const session = new McpSession(this.endpoint.path, 'streamable-http', principal, channel.sink, address);
    const answer = this.endpoint.protocol.initialize(session, msg);
    this.channels.set(session.id, channel);
    const idle = this.endpoint.limits.idleTimeoutMs;
    this.endpoint.add({
      session,
      close: () => {
        channel.close();
        this.channels.delete(session.id);
      },
      idle: (now) => !channel.getStream && channel.openPosts === 0 && session.inflight.size === 0 && now - session.lastActivity >= idle,
      quiet: () => !channel.getStream && channel.openPosts === 0 && session.inflight.size === 0,
    });
    const headers = { 'mcp-session-id': session.id };
    if (accept.json && this.endpoint.limits.httpReplies !== 'sse') return sendJsonRpc(res, 200, answer, headers);
    const stream = new SseStream(res, headers);
    stream.send(answer);
    stream.end();
  }

  /** The session a request names, or undefined after answering 400/404/403. */
  private async existingSession(req: IncomingMessage, res: ServerResponse): Promise<{ session: McpSession; channel: HttpChannel } | undefined> {
    const id = req.headers[SESSION_HEADER];
    if (typeof id !== 'string' || id === '') {
      req.resume();
      fail(res, 400, 'mcp_missing_session', 'the Mcp-Session-Id header is required (send initialize first)');
      return undefined;
    }
    const session = this.endpoint.session(id);
    const channel = this.channels.get(id);
    if (!session || !channel) {
      req.resume();
      fail(res, 404, 'mcp_unknown_session', `session '${id}' does not exist or has ended; initialize a new one`);
      return undefined;
    }
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !(SUPPORTED_VERSIONS as readonly string[]).includes(version)) {
      req.resume();
      fail(res, 400, 'mcp_unsupported_protocol_version', `MCP-Protocol-Version '${version}' is not supported (${SUPPORTED_VERSIONS.join(', ')})`);
      return undefined;
    }
    if (session.principal) {
      let principal;
      try {
        principal = await this.endpoint.resolvePrincipal(req);
      } catch (err) {
        req.resume();
        sendError(res, err);
        return undefined;
      }
      if (principal?.id !== session.principal.id) {
        req.resume();
        fail(res, 403, 'mcp_session_principal_mismatch', 'this session belongs to another principal');
        return undefined;
      }
    }
    return { session, channel };
  }

  private async get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const accept = parseAccept(req.headers.accept);
    if (!accept.sseExplicit && !accept.wildcard) {
      return fail(res, 406, 'mcp_not_acceptable', 'GET needs Accept: text/event-stream');
    }
    const found = await this.existingSession(req, res);
    if (!found) return;
    const { session, channel } = found;
    // A reconnect replaces a stale stream: only one GET stream per session.
    channel.dropGetKeepAlive?.();
    channel.getStream?.end();
    const stream = new SseStream(res, { 'mcp-session-id': session.id }, primes(session));
    channel.getStream = stream;
    const drop = this.endpoint.addKeepAlive({ keepAlive: () => stream.comment('keep-alive') });
    channel.dropGetKeepAlive = drop;
    session.lastActivity = Date.now();
    res.on('close', () => {
      drop();
      if (channel.getStream === stream) {
        channel.getStream = undefined;
        channel.dropGetKeepAlive = undefined;
        session.lastActivity = Date.now();
      }
    });
  }

  private async delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.resume();
    const found = await this.existingSession(req, res);
    if (!found) return;
    this.endpoint.end(found.session.id, 'deleted by the client');
    res.writeHead(204).end();
  }
}

interface Accept {
  json: boolean;
  sse: boolean;
  sseExplicit: boolean;
  wildcard: boolean;
}

function parseAccept(header: string | undefined): Accept {
  if (header === undefined || header.trim() === '') return { json: true, sse: true, sseExplicit: false, wildcard: true };
  const types = header.split(',').map((t) => {
    const [type = '', ...params] = t.split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return { type: type.trim().toLowerCase(), ok: !q || Number(q.slice(2)) > 0 };
  }).filter((t) => t.ok).map((t) => t.type);
  const wildcard = types.includes('*/*');
  const sseExplicit = types.includes('text/event-stream');
  return {
    json: wildcard || types.includes('application/json') || types.includes('application/*'),
    sse: wildcard || sseExplicit || types.includes('text/*'),
    sseExplicit,
    wildcard,
  };
}

function fail(res: ServerResponse, status: number, code: string, detail: string, headers?: Record<string, string>, rpcCode: number = RpcCode.ServerError): void {
  sendProblem(res, status, code, detail, { jsonrpc: '2.0', id: null, error: { code: rpcCode, message: detail } }, headers);
}

function sendJsonRpc(res: ServerResponse, status: number, value: unknown, headers?: Record<string, string>): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}


function primes(session: McpSession): boolean {
  return session.protocolVersion >= '2025-11-25';
}
