import type { IncomingMessage } from 'node:http';
import type { FwError } from '../errors.js';
import type { RouteContext, UpgradeRouteHandler } from '../http/router.js';
import type { HandlerTransports } from './endpoint.js';

/**
 * An open WebSocket of a server with its own WebSocket implementation (`Bun.serve`), as an
 * upgrade route sees it: text in and out, pings, close. The route sets the three callbacks when
 * the socket opens; messages arrive already bounded by `fw.websocket.max-payload` (a bigger one
 * closes the socket with 1009 before any callback).
 */
export interface NativeSocket {
  readonly isOpen: boolean;
  send(text: string): void;
  ping(): void;
  close(code: number, reason: string): void;
  terminate(): void;
  onMessage: ((text: string) => void) | undefined;
  onPong: (() => void) | undefined;
  onClose: ((code: number) => void) | undefined;
}

/**
 * An upgrade route that can also be served on a native socket: everything checked before the
 * 101 (`admit`: an FwError is the refusal the client reads, with its status and headers;
 * `protocol` is the subprotocol the 101 names), then the open socket (`opened`), or the place
 * given back when the socket never opened (`abandoned`).
 */
export interface NativeWebSocketRoute<A = unknown> {
  admit(req: IncomingMessage, ctx: RouteContext): Promise<{ admitted: A; protocol?: string | undefined } | FwError>;
  opened(socket: NativeSocket, admitted: A): void;
  abandoned(admitted: A): void;
}

/**
 * The native side of upgrade routes, for a server with its own WebSocket implementation: it
 * admits the upgrade through the route's native side and hands it the open socket, instead of
 * calling the route's node:http handler. Keyed by the route's handler; an upgrade route not here
 * (one an app built on `ws` itself) needs a node:http socket. fw's real-time endpoints
 * (HandlerTransports) get a connection of their own (bun/websocket-connection.ts); any other
 * route a NativeSocket.
 */
const endpoints = new WeakMap<UpgradeRouteHandler, HandlerTransports | NativeWebSocketRoute<never>>();

export function servedNatively<A>(
  handler: UpgradeRouteHandler,
  endpoint: HandlerTransports | NativeWebSocketRoute<A>,
): UpgradeRouteHandler {
  endpoints.set(handler, endpoint as HandlerTransports | NativeWebSocketRoute<never>);
  return handler;
}

export function nativeEndpoint(handler: UpgradeRouteHandler): HandlerTransports | NativeWebSocketRoute<unknown> | undefined {
  return endpoints.get(handler) as HandlerTransports | NativeWebSocketRoute<unknown> | undefined;
}
