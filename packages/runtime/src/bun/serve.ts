import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Framework } from '../framework.js';
import { sendError, sendProblem } from '../http/problem.js';
import type { Logger } from '../logging/logger.js';
import { nativeEndpoint, type NativeWebSocketRoute } from '../transport/native-upgrade.js';
import { type AdmittedUpgrade, HandlerTransports } from '../transport/endpoint.js';
import { FwError } from '../errors.js';
import type { RouteContext } from '../http/router.js';
import { BunNativeSocket } from './native-socket.js';
import type { BunGlobal, BunServer, BunServerWebSocket } from './bun-api.js';
import { BunIncomingMessage, BunRequestSocket, upgradeRequest } from './node-request.js';
import { BunServerResponse } from './node-response.js';
import { BunWebSocketConnection } from './websocket-connection.js';

/** An upgrade admitted, before its socket opens: to an fw real-time endpoint, or to another native route (MCP). */
type PendingSocket = { endpoint: HandlerTransports; admitted: AdmittedUpgrade } | { route: NativeWebSocketRoute; admitted: unknown };

/**
 * A socket's `data`: its admitted upgrade until it opens, then its connection itself, so that an
 * open socket holds no object of its own beside the connection (~50 bytes each).
 */
type SocketData = PendingSocket | BunWebSocketConnection | BunNativeSocket;

/** The socket's connection, once it has opened. */
function connectionOf(ws: BunServerWebSocket<SocketData>): BunWebSocketConnection | undefined {
  return ws.data instanceof BunWebSocketConnection ? ws.data : undefined;
}

/**
 * Bun's own backpressure limit, set out of the way: past it Bun drops frames without a word,
 * and fw never loses a frame silently. fw's slow-consumer policy (`fw.slow-consumer.*`) reads
 * `getBufferedAmount()` before each flush and drops with a gap frame, or cuts, long before.
 */
const BUN_BACKPRESSURE_LIMIT = 2 ** 31 - 1;

/**
 * `fw.listen()` on Bun: one `Bun.serve` whose WebSocket handlers are Bun's native ones and whose
 * fetch handler serves every other request through the framework's route table, as node:http
 * objects over the fetch `Request`/`Response` (node-request.ts, node-response.ts): the same
 * screening (`SecurityPolicy`), routes, admin plane, MCP and agents as on Node, and SSE,
 * streaming and long-polling as `ReadableStream` bodies.
 */
export function serveOnBun(
  bun: BunGlobal,
  fw: Framework,
  port: number,
  hostname: string,
  log: Logger,
  /** Broadcasts may reach sockets through Bun's topics (`fw.bun.topics`, bun/topics.ts). */
  topics = false,
): BunServer {
  const settings = fw.runtime.settings;
  let localPort = port;

  const upgrade = async (request: Request, server: BunServer, socket: BunRequestSocket): Promise<Response | undefined> => {
    const req = upgradeRequest(request, socket);
    if (fw.phase === 'starting') await fw.start();
    const routing = fw.routeUpgrade(req);
    if (routing.kind === 'refused') {
      return refuse(request, socket, (res) => sendProblem(res, routing.status, routing.code, routing.detail, undefined, routing.headers));
    }
    if (routing.kind === 'none') {
      return refuse(request, socket, (res) => sendProblem(res, 404, 'not_found', `no WebSocket endpoint at ${routing.path}`));
    }
    const endpoint = nativeEndpoint(routing.handler);
    if (endpoint !== undefined && !(endpoint instanceof HandlerTransports))
      return upgradeRoute(request, server, socket, req, endpoint, routing.ctx);
    if (endpoint === undefined) {
      // An upgrade route built on `ws` itself, without a native side (an app's own), needs a node:http socket.
      const path = routing.ctx.url.pathname;
      return refuse(request, socket, (res) =>
        sendProblem(
          res,
          501,
          'websocket_not_native',
          `the WebSocket endpoint at ${path} needs node:http: set fw.bun.native=false to serve it on Bun`,
        ),
      );
    }
    const admitted = await endpoint.admitUpgrade(req, routing.ctx);
    if (!('query' in admitted)) return refuse(request, socket, (res) => sendError(res, admitted));
    const data: SocketData = { endpoint, admitted };
    if (server.upgrade(request, { data })) return undefined;
    endpoint.abandonUpgrade(admitted);
    return notUpgraded(request, socket);
  };

  /** An upgrade to a native route other than fw's real-time endpoints: admitted by the route, then a BunNativeSocket. */
  const upgradeRoute = async (
    request: Request,
    server: BunServer,
    socket: BunRequestSocket,
    req: IncomingMessage,
    route: NativeWebSocketRoute,
    ctx: RouteContext,
  ): Promise<Response | undefined> => {
    const admission = await route.admit(req, ctx);
    if (admission instanceof FwError) return refuse(request, socket, (res) => sendError(res, admission));
    const data: SocketData = { route, admitted: admission.admitted };
    const headers = admission.protocol === undefined ? undefined : { 'sec-websocket-protocol': admission.protocol };
    if (server.upgrade(request, { data, headers })) return undefined;
    route.abandoned(admission.admitted);
    return notUpgraded(request, socket);
  };

  return bun.serve<SocketData>({
    port,
    hostname,
    // A connection quiet this long is closed (Bun's default is 10 s): longer than a held long-poll
    // (fw.long-polling.timeout), at most Bun's 255 s. Streams turn it off for their connection.
    idleTimeout: idleSeconds(settings.longPollTimeout),
    // Request bodies are bounded by each route's own named key (fw.websocket.max-payload, the admin and MCP limits).
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    development: false,
    fetch(request, server) {
      const ip = server.requestIP(request);
      // The port listened on, read once: `server.port` asks the kernel (getsockname) on every read.
      localPort ||= server.port;
      const socket = new BunRequestSocket(ip?.address, ip?.port, hostname, localPort);
      if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') return upgrade(request, server, socket);
      const req = new BunIncomingMessage(request, socket);
      // SSE and streaming responses are bounded by fw's heartbeat and idle timeout, not Bun's.
      const res = new BunServerResponse(req, socket, () => server.timeout(request, 0)).watchClient();
      fw.serveRequest(req.asNode(), res.asNode());
      return res.response;
    },
    error(err) {
      log.error({ err }, 'request failed');
      return new Response(JSON.stringify({ type: 'about:blank', title: 'Internal Server Error', status: 500, code: 'internal_error' }), {
        status: 500,
        headers: { 'content-type': 'application/problem+json' },
      });
    },
    websocket: {
      open(ws: BunServerWebSocket<SocketData>) {
        const pending = ws.data;
        if (pending instanceof BunWebSocketConnection || pending instanceof BunNativeSocket) return;
        if ('route' in pending) {
          const native = new BunNativeSocket(ws);
          ws.data = native;
          pending.route.opened(native, pending.admitted);
          return;
        }
        const { endpoint, admitted } = pending;
        const conn = new BunWebSocketConnection(ws, admitted.query.fw, admitted.query.implicitIds, topics);
        ws.data = conn;
        endpoint.upgraded(conn, admitted);
      },
      message(ws: BunServerWebSocket<SocketData>, message: string | Uint8Array) {
        const text = typeof message === 'string' ? message : Buffer.from(message).toString('utf8');
        const data = ws.data;
        if (data instanceof BunNativeSocket) data.onMessage?.(text);
        else connectionOf(ws)?.received(text);
      },
      close(ws: BunServerWebSocket<SocketData>, code: number) {
        const data = ws.data;
        if (data instanceof BunNativeSocket) data.onClose?.(code);
        else connectionOf(ws)?.ended(code);
      },
      pong(ws: BunServerWebSocket<SocketData>) {
        const data = ws.data;
        if (data instanceof BunNativeSocket) data.onPong?.();
      },
      drain(ws: BunServerWebSocket<SocketData>) {
        connectionOf(ws)?.drained();
      },
      ping(ws: BunServerWebSocket<SocketData>) {
        connectionOf(ws)?.pinged();
      },
      maxPayloadLength: settings.maxPayload,
      backpressureLimit: BUN_BACKPRESSURE_LIMIT,
      closeOnBackpressureLimit: false,
      // fw's heartbeat interceptor pings and judges liveness itself (fw.heartbeat.interval, fw.idle-timeout).
      idleTimeout: 0,
      sendPings: false,
      publishToSelf: false,
      perMessageDeflate: false,
    },
  });
}

/** Bun's idle timeout for HTTP connections: a held long-poll plus a margin, within Bun's 1–255 s. */
export function idleSeconds(longPollTimeoutMs: number): number {
  return Math.min(255, Math.max(10, Math.ceil(longPollTimeoutMs / 1000) + 10));
}

/**
 * A refused upgrade's answer, written by `write` as on node:http: made only when there is one, so
 * that an accepted socket keeps nothing of it.
 */
function refuse(request: Request, socket: BunRequestSocket, write: (res: ServerResponse) => void, keepAlive = true): Promise<Response> {
  const res = new BunServerResponse(new BunIncomingMessage(request, socket), socket);
  res.shouldKeepAlive = keepAlive;
  write(res.asNode());
  return res.response;
}

/** Bun refused to upgrade a request that passed admission (not a valid WebSocket handshake). */
function notUpgraded(request: Request, socket: BunRequestSocket): Promise<Response> {
  return refuse(request, socket, (res) => sendProblem(res, 400, 'upgrade_failed', 'not a valid WebSocket upgrade'), false);
}

/** The address a Bun server listens on, as node:net reports one. */
export function bunAddress(server: BunServer): AddressInfo {
  const address = server.hostname;
  return { address, family: address.includes(':') ? 'IPv6' : 'IPv4', port: server.port };
}
