import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type CredentialEnd,
  FwError,
  NotFoundError,
  readBody,
  parseJson,
  requireJsonContentType,
  sendProblem,
  type Logger,
  type Principal,
} from '@fw/runtime';
import { credentialEndChallenge, credentialEndReason } from '../credential-end.js';
import type { McpEndpoint } from '../endpoint.js';
import { RpcCode } from '../errors.js';
import { allowsBatches, SUPPORTED_VERSIONS } from '../protocol/dispatcher.js';
import { classify, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc.js';
import { McpSession } from '../protocol/session.js';
import { SseStream } from './sse.js';
import { type ReplayableStream, SessionReplayLog } from './replayable-stream.js';
import { isModernHttpRequest } from '../modern/era.js';
import { ModernHttpTransport } from './modern-http.js';
import { sendRefusal } from '../oauth/send-refusal.js';

const ALLOW = 'GET, POST, DELETE, OPTIONS';
const SESSION_HEADER = 'mcp-session-id';

/** JSON-RPC error code of the answer a cancelled request gets in JSON mode (as LSP's RequestCancelled). */
const REQUEST_CANCELLED = -32800;

/**
 * The HTTP side of one session: its SSE streams (the standalone GET stream and those of POSTs in
 * progress), each resumable with `Last-Event-ID` from the session's replay buffer.
 */
class HttpChannel {
  readonly log: SessionReplayLog;
  standalone: ReplayableStream | undefined;
  readonly postStreams = new Map<RequestId, ReplayableStream>();
  openPosts = 0;

  constructor(replayBuffer: number) {
    this.log = new SessionReplayLog(replayBuffer);
  }

  /**
   * A message goes on the stream of the request it belongs to while that request is open, even
   * when the stream's connection dropped (it is held for the resume); otherwise on the standalone
   * stream. Each message is sent on exactly one stream (basic/transports, "Multiple Connections").
   */
  sink = (message: JsonRpcMessage, related?: RequestId): boolean => {
    if (related !== undefined) {
      const s = this.postStreams.get(related);
      if (s && !s.finished) return s.send(message);
    }
    return this.standalone && !this.standalone.finished ? this.standalone.send(message) : false;
  };

  /** Whether any HTTP connection is open on this session (its streams or POSTs). */
  get busy(): boolean {
    return this.openPosts > 0 || this.log.connected().length > 0;
  }

  close(): void {
    this.standalone = undefined;
    this.postStreams.clear();
    this.log.close();
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

  private readonly log: Logger;

  private readonly unmounts: (() => void)[] = [];
  private lookups = 0;

  constructor(private readonly endpoint: McpEndpoint) {
    this.modern = new ModernHttpTransport(endpoint);
    this.log = endpoint.fw.logger.child({ module: 'mcp' });
    // Cluster mode: another node asks whether a session it does not hold is ours (see misdirected()).
    endpoint.fw.services.whenProvided('cluster', (cluster) => {
      this.unmounts.push(
        cluster.handle(this.sessionMethod, (a) => {
          if (!this.endpoint.session(String(a.id))) throw new NotFoundError('MCP session', String(a.id));
          return true;
        }),
      );
    });
  }

  close(): void {
    for (const off of this.unmounts.splice(0)) off();
  }

  private get sessionMethod(): string {
    return `mcp.session ${this.endpoint.identity.path}`;
  }

  /**
   * The cluster node holding session `id` when it is not this one: a balancer without sticky
   * sessions sent the request here. Bounded like the runtime's lookups (fw.limits.cluster-lookups):
   * each one asks every node.
   */
  private async misdirected(id: string): Promise<string | undefined> {
    const cluster = this.endpoint.fw.services.get('cluster');
    if (!cluster || this.lookups >= this.endpoint.fw.config.get('fw.limits.cluster-lookups')) return undefined;
    this.lookups++;
    try {
      const found = await cluster.route(this.sessionMethod, { id });
      return found.outcome === 'done' && found.node !== null && found.node !== cluster.nodeId ? found.node : undefined;
    } catch {
      return undefined;
    } finally {
      this.lookups--;
    }
  }

  handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Host, Origin (DNS-rebinding protection, MCP transports §Security Warning) and CORS
    // preflights are the framework's: it screened this request before the route ran.
    try {
      await this.endpoint.checkAccess(req);
    } catch (err) {
      req.resume();
      return sendRefusal(res, err);
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
      default:
        req.resume();
        return fail(res, 405, 'method_not_allowed', `${req.method} is not allowed on an MCP endpoint`, { allow: ALLOW });
    }
  };

  private async post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      requireJsonContentType(req);
    } catch (err) {
      return fail(res, 415, 'mcp_unsupported_media_type', (err as Error).message);
    }
    const accept = parseAccept(req.headers.accept);
    if (!accept.json && !accept.sse) {
      req.resume();
      // basic/transports: the client MUST send an Accept listing application/json and
      // text/event-stream; one that accepts neither (or sends none) cannot read any answer.
      return fail(
        res,
        406,
        'mcp_not_acceptable',
        req.headers.accept === undefined
          ? 'Accept is required: application/json, text/event-stream'
          : 'Accept must include application/json or text/event-stream',
      );
    }
    let body: unknown;
    try {
      const text = await readBody(req, this.endpoint.limits.maxBody);
      body = parseJson(text, this.endpoint.limits.jsonDepth);
    } catch (err) {
      // Too deep is an invalid request (checked before parsing), never a -32603 from a blown stack.
      if (err instanceof FwError && err.code === 'json_too_deep')
        return fail(res, 400, 'json_too_deep', err.message, undefined, RpcCode.InvalidRequest);
      if (err instanceof FwError && err.code === 'invalid_json')
        return fail(res, 400, 'mcp_parse_error', err.message, undefined, RpcCode.ParseError);
      // A refused body (413 past fw.mcp.max-body) carries a JSON-RPC error too, like every refusal here.
      if (err instanceof FwError)
        return fail(res, err.status, err.code, err.message, undefined, err.status === 413 ? RpcCode.InvalidRequest : RpcCode.ServerError);
      return fail(res, 400, 'mcp_parse_error', `body is not valid JSON: ${(err as Error).message}`, undefined, RpcCode.ParseError);
    }
    const batch = Array.isArray(body);
    const items = batch ? (body as unknown[]) : [body];
    if (items.length === 0)
      return fail(res, 400, 'mcp_invalid_request', 'an empty batch is not a valid JSON-RPC request', undefined, RpcCode.InvalidRequest);
    const classified = items.map(classify);

    const init = classified.find((c) => c.kind === 'request' && c.msg.method === 'initialize');
    if (init && init.kind === 'request') {
      if (batch) return fail(res, 400, 'mcp_invalid_request', 'initialize must not be part of a batch', undefined, RpcCode.InvalidRequest);
      return this.initialize(req, res, init.msg, accept);
    }

    const found = await this.existingSession(req, res);
    if (!found) return;
    const { session, channel, principal } = found;
    if (batch && !allowsBatches(session.protocolVersion)) {
      return fail(
        res,
        400,
        'mcp_batch_not_supported',
        `JSON-RPC batches are not part of protocol version ${session.protocolVersion}`,
        undefined,
        RpcCode.InvalidRequest,
      );
    }
    // OAuth: a tools/call the token has no scope for is a 403 before any part of the POST runs.
    let denied;
    try {
      denied = await this.endpoint.scopeRefusal(
        req,
        classified.flatMap((c) => (c.kind === 'request' ? [c.msg] : [])),
      );
    } catch (err) {
      return sendRefusal(res, err);
    }
    if (denied) return sendRefusal(res, denied.refusal, denied.request.id);

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

    const sse =
      accept.sse &&
      (!accept.json ||
        this.endpoint.limits.httpReplies === 'sse' ||
        (this.endpoint.limits.httpReplies === 'auto' && requests.some((r) => r.method === 'tools/call')));
    channel.openPosts++;
    try {
      if (sse) await this.replySse(res, session, channel, requests, errors, principal);
      else await this.replyJson(res, session, requests, errors, batch, principal);
    } finally {
      channel.openPosts--;
      session.lastActivity = Date.now();
    }
  }

  private async replyJson(
    res: ServerResponse,
    session: McpSession,
    requests: JsonRpcRequest[],
    errors: JsonRpcResponse[],
    batch: boolean,
    principal: Principal | undefined,
  ): Promise<void> {
    // The POST was authenticated when it arrived; if its credential expires or is revoked while
    // the answer is still being worked out, the requests are cancelled and the POST gets the 401
    // it would get now, instead of an answer delivered on a lapsed credential.
    let stopWatching = (): void => {};
    const lapsed = new Promise<CredentialEnd>((resolve) => {
      stopWatching = this.endpoint.fw.credentials.watch(principal, resolve);
    });
    const answered = Promise.all(requests.map((r) => this.endpoint.protocol.request(session, r)));
    const outcome = await Promise.race([answered, lapsed]);
    stopWatching();
    if (typeof outcome === 'string') {
      for (const r of requests) session.cancel(r.id);
      return fail(
        res,
        401,
        'invalid_token',
        `the request's credential ended: ${credentialEndReason(outcome)}`,
        credentialEndChallenge(outcome),
      );
    }
    const answers = outcome;
    // A cancelled request gets no result (basic/utilities/cancellation), but a POST carrying a
    // request MUST be answered with JSON or SSE (basic/transports), never 202: in JSON mode the
    // answer is an error saying so, which the cancelling client ignores as the spec asks.
    const out = [...errors, ...answers.map((a, i) => a ?? cancelledAnswer(requests[i]!.id))];
    sendJsonRpc(res, 200, batch ? out : out[0], { 'mcp-session-id': session.id });
  }

  /**
   * The POST's own SSE stream: resumable (its events have ids; a GET with `Last-Event-ID` carries
   * it on if this connection drops), ended once every request of the POST is answered. A
   * cancelled request's answer is left out (SSE mode), so the stream just ends.
   */
  private async replySse(
    res: ServerResponse,
    session: McpSession,
    channel: HttpChannel,
    requests: JsonRpcRequest[],
    errors: JsonRpcResponse[],
    principal: Principal | undefined,
  ): Promise<void> {
    const stream = channel.log.open('post');
    this.carry(stream, new SseStream(res, { 'mcp-session-id': session.id }), session, 0, principal);
    for (const r of requests) channel.postStreams.set(r.id, stream);
    try {
      for (const e of errors) stream.send(e);
      await Promise.all(
        requests.map(async (r) => {
          const answer = await this.endpoint.protocol.request(session, r);
          if (answer) stream.send(answer);
        }),
      );
    } finally {
      for (const r of requests) if (channel.postStreams.get(r.id) === stream) channel.postStreams.delete(r.id);
      stream.finish();
    }
  }

  /**
   * Puts a stream on an SSE connection: priming event (2025-11-25+), keep-alives, replay after
   * `afterSeq`, and with `fw.mcp.sse-poll-interval` the connection's planned end (a `retry`, then
   * the close; the client polls with Last-Event-ID, basic/transports "SSE polling"). The
   * connection lives no longer than the credential of the request that opened it (`principal`):
   * when it expires the connection ends the same way (the stream stays, for a resume with a fresh
   * token); when it is revoked the whole session ends.
   */
  private carry(stream: ReplayableStream, conn: SseStream, session: McpSession, afterSeq: number, principal: Principal | undefined): void {
    const limits = this.endpoint.limits;
    const modern = primes(session);
    const dropKeepAlive = this.endpoint.addKeepAlive({ keepAlive: () => conn.comment('keep-alive') });
    let poll: NodeJS.Timeout | undefined;
    const onClose = (): void => {
      if (stream.connection === conn) stream.detach();
      else cleanup();
    };
    const stopWatching = this.endpoint.fw.credentials.watch(principal, (reason) => {
      if (reason === 'revoked') this.endpoint.end(session.id, 'credentials revoked');
      else if (stream.connection === conn) stream.release(limits.sseRetryMs);
      else conn.end();
    });
    const cleanup = (): void => {
      dropKeepAlive();
      stopWatching();
      if (poll) clearTimeout(poll);
      poll = undefined;
      conn.res.off('close', onClose);
      session.lastActivity = Date.now();
    };
    conn.res.on('close', onClose);
    stream.attach(conn, afterSeq, cleanup, modern ? limits.sseRetryMs : undefined);
    // The client left before its stream was attached (the request awaited): its close was missed.
    if (conn.res.destroyed && stream.connection === conn) {
      conn.res.off('close', onClose);
      onClose();
    }
    if (modern && limits.ssePollIntervalMs > 0 && stream.connection === conn) {
      poll = setTimeout(() => {
        poll = undefined;
        if (stream.connection === conn) stream.release(limits.sseRetryMs);
      }, limits.ssePollIntervalMs);
    }
  }

  private async initialize(req: IncomingMessage, res: ServerResponse, msg: JsonRpcRequest, accept: Accept): Promise<void> {
    let principal;
    try {
      principal = await this.endpoint.resolvePrincipal(req);
    } catch (err) {
      return sendRefusal(res, err);
    }
    // Admission and registration with no await in between, so concurrent initializes cannot overshoot a cap.
    const address = this.endpoint.clientAddress(req);
    const { lease, refusal } = this.endpoint.admit({ principal, address });
    if (refusal) return fail(res, refusal.status, refusal.code, refusal.detail, { 'retry-after': String(refusal.retryAfterSeconds) });
    const channel = new HttpChannel(this.endpoint.limits.replayBuffer);
    const session = new McpSession(this.endpoint.path, 'streamable-http', principal, channel.sink, address);
    const answer = this.endpoint.protocol.initialize(session, msg);
    this.channels.set(session.id, channel);
    const idle = this.endpoint.limits.idleTimeoutMs;
    this.endpoint.add({
      session,
      lease,
      close: () => {
        channel.close();
        this.channels.delete(session.id);
      },
      idle: (now) => !channel.busy && session.inflight.size === 0 && now - session.lastActivity >= idle,
      quiet: () => !channel.busy && session.inflight.size === 0,
    });
    const headers = { 'mcp-session-id': session.id };
    if (accept.json && this.endpoint.limits.httpReplies !== 'sse') return sendJsonRpc(res, 200, answer, headers);
    // As SSE, the answer is the one event of a stream of its own, with an id like every other.
    const stream = channel.log.open('post');
    this.carry(stream, new SseStream(res, headers), session, 0, principal);
    stream.send(answer);
    stream.finish();
  }

  /**
   * The session a request names and the request's principal, or undefined after answering
   * 400/404/403. A session belongs to the principal that initialized it, or, opened anonymously,
   * to whoever holds its id (122 random bits) without presenting a credential: every request, GET
   * stream and DELETE must come from that same principal (or again without one).
   */
  private async existingSession(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{ session: McpSession; channel: HttpChannel; principal: Principal | undefined } | undefined> {
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
      // MCP transports §Session Management: 404 for a session that does not exist (the client
      // then initializes a new one). A session alive on another cluster node is not that: 421
      // (RFC 9110 §15.5.20) names the node instead of silently costing the client its session.
      const node = await this.misdirected(id);
      if (node !== undefined) {
        this.endpoint.fw.runtime.counters.misdirected++;
        fail(
          res,
          421,
          'mcp_misdirected_request',
          `session '${id}' is held by cluster node '${node}', not this one: MCP sessions need sticky sessions in front of a cluster (docs/cluster.md, "Behind a load balancer")`,
        );
        return undefined;
      }
      fail(res, 404, 'mcp_unknown_session', `session '${id}' does not exist or has ended; initialize a new one`);
      return undefined;
    }
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !(SUPPORTED_VERSIONS as readonly string[]).includes(version)) {
      req.resume();
      fail(
        res,
        400,
        'mcp_unsupported_protocol_version',
        `MCP-Protocol-Version '${version}' is not supported (${SUPPORTED_VERSIONS.join(', ')})`,
      );
      return undefined;
    }
    let principal: Principal | undefined;
    try {
      principal = await this.endpoint.resolvePrincipal(req);
    } catch (err) {
      req.resume();
      sendRefusal(res, err);
      return undefined;
    }
    if ((principal?.id ?? null) !== (session.principal?.id ?? null)) {
      req.resume();
      fail(res, 403, 'mcp_session_principal_mismatch', 'this session belongs to another principal');
      return undefined;
    }
    return { session, channel, principal };
  }

  /**
   * GET: without `Last-Event-ID` it opens the standalone stream (replacing an earlier one); with
   * it, it resumes the stream that id came from, whether a POST's or the standalone one,
   * replaying what followed it (basic/transports, "Resumability and Redelivery").
   */
  private async get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const accept = parseAccept(req.headers.accept);
    if (!accept.sseExplicit && !accept.wildcard) {
      return fail(res, 406, 'mcp_not_acceptable', 'GET needs Accept: text/event-stream');
    }
    const found = await this.existingSession(req, res);
    if (!found) return;
    const { session, channel, principal } = found;
    session.lastActivity = Date.now();
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId === 'string' && lastEventId !== '') {
      const at = channel.log.find(lastEventId);
      if (!at) {
        return fail(
          res,
          400,
          'mcp_replay_unavailable',
          `Last-Event-ID '${lastEventId.slice(0, 40)}' names no stream this session still holds (the replay buffer keeps fw.mcp.replay-buffer = ${this.endpoint.limits.replayBuffer} events)`,
          undefined,
          RpcCode.InvalidRequest,
        );
      }
      if (at === 'finished') {
        return fail(
          res,
          405,
          'mcp_stream_finished',
          `the stream of '${lastEventId}' is finished and nothing of it is held any more (fw.mcp.replay-buffer)`,
          { allow: ALLOW },
        );
      }
      const { stream, seq } = at;
      if (stream.finished && !stream.held.some((e) => e.seq > seq)) {
        // Nothing left to replay and nothing more will come: per the spec a GET is answered with
        // an SSE stream or 405, and 405 stops a client from polling a finished stream forever.
        const lost =
          stream.written > seq ? ` (${stream.written - seq} later event(s) were dropped from the replay buffer, fw.mcp.replay-buffer)` : '';
        return fail(res, 405, 'mcp_stream_finished', `stream ${stream.no} is finished; nothing follows '${lastEventId}'${lost}`, {
          allow: ALLOW,
        });
      }
      if (stream.hasGapAfter(seq))
        this.log.warn(
          { stream: stream.no, key: 'fw.mcp.replay-buffer' },
          'an MCP session resumed a stream after events were dropped from its replay buffer',
        );
      this.carry(stream, new SseStream(res, { 'mcp-session-id': session.id }), session, seq, principal);
      return;
    }
    // A new standalone stream replaces the old one: only one per session.
    channel.standalone?.finish();
    const stream = channel.log.open('standalone');
    channel.standalone = stream;
    this.carry(stream, new SseStream(res, { 'mcp-session-id': session.id }), session, 0, principal);
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
  // No Accept at all accepts nothing here: basic/transports requires the client to list the types.
  if (header === undefined || header.trim() === '') return { json: false, sse: false, sseExplicit: false, wildcard: false };
  const types = header
    .split(',')
    .map((t) => {
      const [type = '', ...params] = t.split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { type: type.trim().toLowerCase(), ok: !q || Number(q.slice(2)) > 0 };
    })
    .filter((t) => t.ok)
    .map((t) => t.type);
  const wildcard = types.includes('*/*');
  const sseExplicit = types.includes('text/event-stream');
  return {
    json: wildcard || types.includes('application/json') || types.includes('application/*'),
    sse: wildcard || sseExplicit || types.includes('text/*'),
    sseExplicit,
    wildcard,
  };
}

function fail(
  res: ServerResponse,
  status: number,
  code: string,
  detail: string,
  headers?: Record<string, string>,
  rpcCode: number = RpcCode.ServerError,
): void {
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

function cancelledAnswer(id: RequestId): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: { code: REQUEST_CANCELLED, message: 'the client cancelled this request (notifications/cancelled)' } };
}
