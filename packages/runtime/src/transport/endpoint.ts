import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { FwError } from '../errors.js';
import type { TransportName } from '../events.js';
import { rejectUpgrade } from '../http/reject-upgrade.js';
import type { HandlerEntry } from '../handler.js';
import { readBody } from '../http/body.js';
import { sendError, sendProblem } from '../http/problem.js';
import type { RouteContext } from '../http/router.js';
import type { ConnectContext, Principal } from '../model.js';
import { FwResource } from '../resource/resource.js';
import type { Runtime } from '../runtime.js';
import { CredentialReason, encodeClose, isUpstreamKind } from '@fw/protocol';
import { expiryOf } from '../auth/credentials.js';
import { callerOf, type Caller } from '../tenancy/caller.js';
import type { Connection } from './connection.js';
import { HttpStreamConnection } from './http-stream.js';
import { LongPollConnection } from './long-polling.js';
import { parseConnectQuery, parseSeq, type ConnectQuery } from './query.js';
import type { WebSocketConnection } from './websocket.js';
import { whenClosed } from '../http/when-closed.js';

/** A resource opened by a principal is resumed, written to or ended by that principal only. */
function ownedBy(r: FwResource, cc: ConnectContext): void {
  if (r.principal !== undefined && cc.principal?.id !== r.principal.id) {
    throw new FwError('principal_mismatch', 'this resource belongs to another principal', 403);
  }
}

class Context implements ConnectContext {
  principal: Principal | undefined;
  private attrs: Map<string, unknown> | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly path: string,
    readonly params: Readonly<Record<string, string>>,
    readonly transport: TransportName,
    readonly url: URL,
  ) {}

  get attributes(): Map<string, unknown> {
    return (this.attrs ??= new Map());
  }

  get attributesIfAny(): Map<string, unknown> | undefined {
    return this.attrs;
  }
}

/** A WebSocket upgrade that passed every check, before its socket opens. */
export interface AdmittedUpgrade {
  readonly query: ConnectQuery;
  readonly cc: Context;
  readonly target: FwResource | undefined;
  readonly share: Caller | undefined;
}

/**
 * The four transports of one handler path (docs/protocol.md): the WebSocket upgrade, and on
 * plain HTTP `GET` (sse, streaming, long-polling), `POST` (a client message for `tracking`),
 * `DELETE` (the client ends its resource) and `OPTIONS` (CORS preflight).
 */
export class HandlerTransports {
  constructor(
    private readonly rt: Runtime,
    private readonly entry: HandlerEntry,
  ) {}

  readonly http = async (req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> => {
    // Host, Origin and CORS preflights were handled by the framework before this route ran.
    try {
      switch (req.method) {
        case 'GET':
          return await this.get(req, res, ctx);
        case 'POST':
          return await this.post(req, res, ctx);
        case 'DELETE':
          return await this.remove(req, res, ctx);
        default:
          sendProblem(res, 405, 'method_not_allowed', `${req.method} is not allowed on a real-time endpoint`, undefined, {
            allow: 'GET, POST, DELETE, OPTIONS',
          });
      }
    } catch (err) {
      sendError(res, err);
    }
  };

  readonly upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer, ctx: RouteContext): Promise<void> => {
    const admitted = await this.admitUpgrade(req, ctx);
    if (admitted instanceof FwError) {
      rejectUpgrade(socket, admitted.status, admitted.code, admitted.message, admitted.headers, admitted.details);
      return;
    }
    const { share } = admitted;
    // `ws` gives up on a socket that broke during the handshake without calling back: the place goes back then.
    const broken = (): void => this.rt.connections.giveBack(share!);
    if (share !== undefined) whenClosed(socket, broken);
    // The client left while it was admitted (its place went back just now).
    if (socket.destroyed) return;
    this.rt.wss().handleUpgrade(req, socket, head, (ws) => {
      if (share !== undefined) socket.off('close', broken);
      // The runtime's server constructs WebSocketConnection (its `WebSocket` option).
      const conn = (ws as WebSocketConnection).accept(admitted.query.fw, admitted.query.implicitIds, this.rt.looseSockets);
      this.upgraded(conn, admitted);
    });
  };

  /**
   * Everything a WebSocket upgrade is checked for before the 101, whatever server answers it
   * (`ws` on Node, `Bun.serve` on Bun): the query, the target of a resume, authentication and
   * ownership, and a fresh connection's place in `fw.connections.*`. An FwError is the refusal
   * the client reads (429/503 past its share, 401/403…), never a socket.
   */
  async admitUpgrade(req: IncomingMessage, ctx: RouteContext): Promise<AdmittedUpgrade | FwError> {
    const path = normalize(ctx.url.pathname);
    let target: FwResource | undefined;
    let share: Caller | undefined;
    try {
      this.refuseWhenUnavailable();
      const query = parseConnectQuery(ctx.url.searchParams);
      if (query.transport !== undefined && query.transport !== 'websocket') {
        throw new FwError('invalid_query', `transport '${query.transport}' cannot be used on a WebSocket upgrade`, 400, {
          parameter: 'transport',
        });
      }
      if (query.tracking !== undefined) target = this.target(query.tracking, path, query.last);
      const cc = await this.connect(req, ctx, 'websocket', path);
      if (target !== undefined) ownedBy(target, cc);
      this.refuseWhenUnavailable();
      // Refused here, before the 101: a client over its share gets a 429 it can read, never a socket.
      if (target === undefined) share = this.admit(cc);
      return { query, cc, target, share };
    } catch (err) {
      return err instanceof FwError ? err : new FwError('internal_error', 'an internal error occurred', 500);
    }
  }

  /** A place taken by `admitUpgrade` whose socket never opened goes back. */
  abandonUpgrade(admitted: AdmittedUpgrade): void {
    if (admitted.share !== undefined) this.rt.connections.giveBack(admitted.share);
  }

  /** The WebSocket is open: the resource is opened on it, or resumed. */
  upgraded(conn: Connection, admitted: AdmittedUpgrade): void {
    const { query, cc, target } = admitted;
    if (this.rt.closing) {
      // Upgraded while close() drained: an unknown socket would keep the server from closing.
      this.abandonUpgrade(admitted);
      conn.destroy();
      return;
    }
    if (target !== undefined) {
      if (target.closed) {
        conn.closeWith('resource expired', 4000);
        return;
      }
      target.renewCredential(cc.principal);
      this.resume(target, conn, query.last);
    } else {
      this.open(conn, cc, query);
    }
  }

  /** Takes a fresh connection's place in `fw.connections.*` (429/503 past its share or the capacity). */
  private admit(cc: Context): Caller {
    const caller = callerOf(cc.req, cc.principal);
    this.rt.connections.take(caller);
    return caller;
  }

  private async get(req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> {
    this.refuseWhenUnavailable();
    const q = parseConnectQuery(ctx.url.searchParams);
    const transport = q.transport ?? ((req.headers.accept ?? '').includes('text/event-stream') ? 'sse' : undefined);
    if (transport === undefined) {
      throw new FwError(
        'transport_required',
        'open a WebSocket, send `Accept: text/event-stream`, or pass `transport=sse|long-polling|streaming`',
        400,
      );
    }
    if (transport === 'websocket') throw new FwError('upgrade_required', 'transport=websocket needs a WebSocket upgrade', 426);
    if (transport === 'long-polling' && !q.fw)
      throw new FwError('fw_protocol_required', 'long-polling needs the fw protocol (`fw=1`)', 400);
    const path = normalize(ctx.url.pathname);
    let target: FwResource | undefined;
    if (q.tracking !== undefined) {
      try {
        target = this.target(q.tracking, path, q.last);
      } catch (err) {
        // A long-polling client learns why the server closed its resource from the close frame.
        if (transport === 'long-polling' && err instanceof FwError && err.code === 'resource_closed') {
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
          res.end(`[${encodeClose(String(err.details?.reason ?? 'closed'))}]`);
          return;
        }
        throw err;
      }
    }
    const cc = await this.connect(req, ctx, transport, path);
    // The client left while it was admitted: nothing is opened (or taken) for it.
    if (res.destroyed) return;
    if (target !== undefined) ownedBy(target, cc);
    this.refuseWhenUnavailable();
    if (target === undefined) this.admit(cc);
    const conn = this.httpConnection(transport, res, q.fw);
    if (target === undefined) {
      this.open(conn, cc, q);
    } else if (target.closed) {
      conn.closeWith('resource expired');
    } else {
      // Every poll and resume is authenticated anew: a renewed credential is watched from here on.
      target.renewCredential(cc.principal);
      if (transport === 'long-polling' && target.transport === 'long-polling') target.attach(conn, q.last, undefined);
      else this.resume(target, conn, q.last);
    }
  }

  /** A resume on a new connection: the handshake, what the client missed (or a gap), then the recovery summary. */
  private resume(target: FwResource, conn: Connection, last: number | undefined): void {
    this.rt.counters.resumes++;
    target.beginRecovery();
    target.attach(conn, last, { resumed: true });
    target.endRecovery();
  }

  private httpConnection(transport: Exclude<TransportName, 'websocket'>, res: ServerResponse, fw: boolean): Connection {
    if (transport === 'long-polling') {
      const conn = new LongPollConnection(res, this.rt.timers, this.rt.settings.longPollTimeout);
      res.on('close', () => conn.aborted());
      // Held until there is something to send: close() answers it when it shuts the resource down.
      this.rt.requests.hold(res);
      return conn;
    }
    res.writeHead(200, {
      'content-type':
        transport === 'sse' ? 'text/event-stream; charset=utf-8' : fw ? 'application/x-ndjson; charset=utf-8' : 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    // A stream from here on, ended by the runtime on close (a reconnect frame): not a request the drain waits for.
    this.rt.requests.release(res);
    const conn = new HttpStreamConnection(transport, res, fw);
    res.on('close', () => conn.resource?.detach(conn, 'connection lost'));
    return conn;
  }

  private async post(req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> {
    this.refuseWhileClosing();
    const q = parseConnectQuery(ctx.url.searchParams, false);
    if (q.tracking === undefined)
      throw new FwError('tracking_required', 'a message POST needs `tracking=<uuid>`', 400, { parameter: 'tracking' });
    const seq = parseSeq(ctx.url.searchParams);
    const path = normalize(ctx.url.pathname);
    await this.sameCaller(req, ctx, await this.targetHere(q.tracking, path), path);
    const frame = ctx.url.searchParams.get('frame');
    if (frame !== null && !isUpstreamKind(frame)) {
      throw new FwError('invalid_query', "query parameter 'frame' must be m or tool-response", 400, { parameter: 'frame' });
    }
    const body = await readBody(req, this.rt.settings.maxPayload);
    // Answered while its body arrived (503 from the shutdown drain): not taken, the client sends it again.
    if (res.headersSent) return;
    // Look again: the resource may have gone while the body arrived.
    const r = this.target(q.tracking, path, undefined);
    // `frame=tool-response`: a bridge answer (docs/protocol.md), for the pending call only. A
    // numbered message (`seq`) already taken is a resend whose answer was lost: answered 204 again.
    r.receiveNumbered(frame === 'tool-response' ? 'tool-response' : 'm', body, seq);
    res.writeHead(204, { 'cache-control': 'no-store' });
    res.end();
  }

  /**
   * A message POST or a DELETE names its resource by tracking id, which the admin plane lists: it
   * passes the handler's interceptors as a connection does (authentication, Origin), and a
   * resource opened by a principal answers only to that principal.
   */
  private async sameCaller(req: IncomingMessage, ctx: RouteContext, r: FwResource, path: string): Promise<void> {
    ownedBy(r, await this.connect(req, ctx, r.transport, path));
  }

  private async remove(req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> {
    const q = parseConnectQuery(ctx.url.searchParams, false);
    if (q.tracking === undefined) throw new FwError('tracking_required', 'DELETE needs `tracking=<uuid>`', 400, { parameter: 'tracking' });
    const path = normalize(ctx.url.pathname);
    await this.sameCaller(req, ctx, await this.targetHere(q.tracking, path), path);
    const r = this.target(q.tracking, path, undefined);
    const conn = r.connection;
    r.terminate('client closed');
    conn?.closeWith('client closed', 1000);
    res.writeHead(204, { 'cache-control': 'no-store' });
    res.end();
  }

  /**
   * `target` for a message POST or a DELETE, which must reach the node holding the resource: in a
   * cluster behind a balancer without sticky sessions it may land elsewhere, and a bare 404 would
   * read as "expired". 421 Misdirected Request (RFC 9110 §15.5.20) names the node that holds it.
   */
  private async targetHere(uuid: string, path: string): Promise<FwResource> {
    try {
      return this.target(uuid, path, undefined);
    } catch (err) {
      if (!(err instanceof FwError) || err.code !== 'unknown_tracking_id') throw err;
      const node = await this.rt.ownerElsewhere(uuid);
      if (node === undefined) throw err;
      this.rt.counters.misdirected++;
      throw new FwError(
        'misdirected_request',
        `resource '${uuid}' is held by cluster node '${node}', not this one: HTTP transports need sticky sessions in front of a cluster (docs/cluster.md, "Behind a load balancer")`,
        421,
        { node },
      );
    }
  }

  /** The resource a tracking id names on this path; 404 `unknown_tracking_id` or 410 `resource_closed` otherwise. */
  private target(uuid: string, path: string, last: number | undefined): FwResource {
    const r = this.rt.resources.get(uuid);
    if (r !== undefined && !r.closed && r.path === path) {
      if (last !== undefined && last > r.messagesOut) {
        throw new FwError('invalid_query', `query parameter 'last' (${last}) is ahead of the last message sent (${r.messagesOut})`, 400, {
          parameter: 'last',
        });
      }
      return r;
    }
    const reason = this.rt.resources.closedReason(uuid);
    if (reason !== undefined) throw new FwError('resource_closed', `the server closed this resource: ${reason}`, 410, { reason });
    throw new FwError('unknown_tracking_id', `no resource with tracking id '${uuid}' on ${path} (expired or never existed)`, 404);
  }

  /** Runs the interceptors' `connect` in order; a rejection (returned or thrown) refuses the connection. */
  private async connect(req: IncomingMessage, ctx: RouteContext, transport: TransportName, path: string): Promise<Context> {
    const cc = new Context(req, path, ctx.params, transport, ctx.url);
    for (const i of this.entry.chain()) {
      if (!i.connect) continue;
      let rejection;
      try {
        rejection = await i.connect(cc);
      } catch (err) {
        if (err instanceof FwError) throw err;
        const e = err as { status?: unknown; code?: unknown; detail?: unknown };
        if (typeof e?.status === 'number' && typeof e.code === 'string') throw new FwError(e.code, String(e.detail ?? e.code), e.status);
        this.rt.log.error({ err, interceptor: i.name }, 'interceptor failed');
        throw new FwError('interceptor_failed', `interceptor '${i.name}' failed`, 500);
      }
      if (rejection) throw new FwError(rejection.code, rejection.detail, rejection.status, { interceptor: i.name });
    }
    if (cc.principal !== undefined) this.refuseEndedCredential(cc.principal);
    return cc;
  }

  /**
   * A credential past its expiry or revoked (`fw.credentials`) opens nothing, whatever the
   * authenticator said: a socket opened with it would be closed at once (401, the code names why).
   */
  private refuseEndedCredential(principal: Principal): void {
    const revoked = this.rt.credentials.isRevoked(principal);
    if (!revoked && (expiryOf(principal) ?? Number.POSITIVE_INFINITY) > Date.now()) return;
    const code = revoked ? CredentialReason.revoked : CredentialReason.expired;
    const detail = revoked ? 'the credential was revoked' : 'the credential has expired';
    throw new FwError(code, detail, 401, undefined, { 'www-authenticate': `Bearer error="invalid_token", error_description="${detail}"` });
  }

  /** A fresh resource: registered, joined to its broadcaster, handshaken, announced, handed to the handler. */
  private open(conn: Connection, cc: Context, q: ConnectQuery): FwResource {
    const rt = this.rt;
    const r = new FwResource(rt, this.entry, flatUuid(), {
      transport: conn.transport,
      protocol: q.fw ? 'fw' : 'raw',
      // The path's broadcaster's own string when there is one: not one more copy per connection.
      path: rt.broadcasters.lookup(cc.path)?.id ?? cc.path,
      params: cc.params,
      // Only the query string, kept as a copy (QueryStrings): the URL would otherwise live as long as the resource.
      search: cc.url.search,
      req: cc.req,
      principal: cc.principal,
      attributes: cc.attributesIfAny,
    });
    rt.resources.add(r);
    r.holdsShare();
    r.watchCredential();
    this.entry.resourceCount++;
    forgetAddresses(cc.req.socket);
    // A fresh connection that catches up with `since` ends its replay with a recovery summary (`rec`).
    if (q.since !== undefined) r.beginRecovery();
    const choose = this.entry.options.broadcaster;
    const home = choose === null ? null : choose ? choose(r) : r.path;
    if (home !== null) {
      const b = rt.broadcasters.implicit(home);
      b.add(r);
      r.home = b.id; // the broadcaster's own string, not one more copy per connection
    }
    r.attach(conn, undefined, { resumed: false });
    for (const i of this.entry.chain()) {
      if (!i.attach) continue;
      try {
        const cleanup = i.attach(r);
        if (cleanup) (r.cleanups ??= []).push(cleanup);
      } catch (err) {
        this.rt.log.error({ err, interceptor: i.name }, 'interceptor failed');
      }
    }
    if (rt.events.wants('ResourceConnected'))
      rt.events.emit('ResourceConnected', { uuid: r.uuid, transport: r.transport, broadcaster: home, path: r.path });
    const open = this.entry.handler.open;
    if (open) {
      try {
        const p = open.call(this.entry.handler, r) as Promise<void> | undefined;
        if (p && typeof p.then === 'function') p.then(undefined, (err: unknown) => this.rt.log.error({ err }, 'handler open failed'));
      } catch (err) {
        this.rt.log.error({ err }, 'handler open failed');
      }
    }
    if (q.since !== undefined) {
      // Cursors from another epoch (a server that has restarted since) say nothing about this
      // numbering: everything in the cache is newer than what the client saw, so replay it all.
      const other = q.epoch !== undefined && q.epoch !== rt.epoch;
      // One this process had before (it joined a cluster after the client connected): its own
      // numbering, proven where its broadcaster has reached the cursor; beyond, as foreign.
      const former = other && rt.formerEpochs.has(q.epoch!);
      for (const [id, lastBid] of q.since) {
        const b = rt.broadcasters.lookup(id);
        // Only broadcasters the resource belongs to: `since` never reads someone else's topic.
        if (b?.members.has(r)) b.recover(r, lastBid, other && !(former && b.cache.next - 1 >= lastBid));
      }
    }
    r.endRecovery();
    return r;
  }

  /**
   * While close() drains, a new connection (a WebSocket upgrade too) is refused with 503 and
   * `Retry-After`: the drain timeout in whole seconds, by which time this node is gone (the
   * balancer sends the retry elsewhere) or back. fw clients treat the 503 as a drop and back off.
   * A scaling module may turn connections away too (a cluster node cut from Redis, see
   * ScalingHost.refuse), for handlers whose resources join a broadcaster: those are the ones that
   * would miss the other nodes' broadcasts here. Handlers that join none stay open.
   */
  /** New connections and resumes: refused while closing, and while cluster mode says this node cannot serve them. */
  private refuseWhenUnavailable(): void {
    if (this.rt.closing) this.refuseWhileClosing();
    const refusal = this.rt.refusal;
    if (refusal !== undefined && this.entry.options.broadcaster !== null) throw refusal;
  }

  /** Requests on an existing connection (message POSTs) are refused only while the framework closes. */
  private refuseWhileClosing(): void {
    if (!this.rt.closing) return;
    const retryAfter = String(Math.max(1, Math.ceil(this.rt.settings.drainTimeout / 1000)));
    throw new FwError('shutting_down', 'the server is shutting down', 503, undefined, { 'retry-after': retryAfter });
  }
}

/**
 * A fresh UUID as one flat string. Node builds `randomUUID()` by concatenation, and V8 keeps that
 * as a tree of a dozen cons-string nodes (~400 bytes) for as long as the resource holds it; Bun
 * (JavaScriptCore) makes it flat already, and the copy would only cost time.
 */
const flatUuid: () => string = 'Bun' in globalThis ? () => randomUUID() : () => Buffer.from(randomUUID(), 'latin1').toString('latin1');

function normalize(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/**
 * Node caches a socket's addresses once read (`_peername`, `_sockname`: an object and two strings
 * each, ~220 bytes per connection). fw has read what it needs by now (the security checks, the
 * resource's `remoteAddress`), so a long-lived connection does not keep them; Node reads them
 * from the handle again if anyone asks while the socket is open. `null` is their initial value.
 */
function forgetAddresses(socket: Socket | null | undefined): void {
  const s = socket as (Socket & { _peername?: unknown; _sockname?: unknown }) | null | undefined;
  if (s == null) return;
  if (s._peername) s._peername = null;
  if (s._sockname) s._sockname = null;
}
