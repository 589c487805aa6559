import type { UpgradeRouteHandler } from '../http/router.js';
import type { HandlerTransports } from './endpoint.js';

/**
 * The real-time endpoints behind upgrade routes, for a server with its own WebSocket
 * implementation (`Bun.serve`): it admits the upgrade through the endpoint and hands it the open
 * socket's connection, instead of calling the route's node:http handler. Keyed by the route's
 * handler; an upgrade route not here (one built on `ws`, MCP's) needs a node:http socket.
 */
const endpoints = new WeakMap<UpgradeRouteHandler, HandlerTransports>();

export function servedNatively(handler: UpgradeRouteHandler, endpoint: HandlerTransports): UpgradeRouteHandler {
  endpoints.set(handler, endpoint);
  return handler;
}

export function nativeEndpoint(handler: UpgradeRouteHandler): HandlerTransports | undefined {
  return endpoints.get(handler);
}
