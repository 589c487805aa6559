import { type Authenticator, type Framework, servedNatively } from '@fw/runtime';
import { Catalog } from './catalog.js';
import { MCP_CONFIG, readLimits } from './config.js';
import { buildRegistry, serverDeclaration, type McpServerClass, type McpServerOptions } from './decorators.js';
import { McpEndpoint, type AccessCheck } from './endpoint.js';
import type { ServerIdentity } from './protocol/dispatcher.js';
import { mountResourceMetadata } from './oauth/metadata-route.js';
import { oauthResourceServer, ProtectedResource } from './oauth/resource-server.js';
import { McpRegistry, type ToolRegistry } from './registry.js';
import { StreamableHttpTransport } from './transport/streamable-http.js';
import { WebSocketTransport } from './transport/websocket.js';

export interface MountOptions {
  /** Overrides the `'principal-resolver'` service for this endpoint. */
  principalResolver?: Authenticator;
  /** Serve the framework's McpRegistry too (default true); false for an endpoint with its own tools only. */
  frameworkRegistry?: boolean;
  /** Extra registries to serve (programmatic tools of this endpoint only). */
  registries?: ToolRegistry[];
  /** This endpoint's own door, asked before every request and upgrade (the admin plane's gate on `/fw/admin/mcp`). */
  access?: AccessCheck;
  /**
   * Make this endpoint an OAuth 2.1 resource server when `fw.mcp.oauth.authorization-servers` is
   * set: its access tokens then replace `principalResolver` and `access`. Default: true for an
   * endpoint with neither of those (the app's servers), false otherwise (the admin plane's own
   * endpoint keeps its gate); the per-agent endpoints pass true.
   */
  oauth?: boolean;
}

/** One path served on one framework. */
export interface MountedServer {
  readonly endpoint: McpEndpoint;
  /** The @McpServer classes (and instances) served at this path. */
  readonly instances: object[];
  /** Unmounts the routes and ends every session. */
  close(): void;
}

export function mountedServers(fw: Framework): MountedServer[] {
  return [...(fw.services.get('mcp.mounts')?.values() ?? [])];
}

/**
 * Mounts an MCP server on `fw`: an `@McpServer` class (constructed with `fw`), an instance of
 * one, or bare options for a server that only serves the framework's McpRegistry. Streamable
 * HTTP and WebSocket share the path. A second server on a path already mounted adds its tools,
 * resources and prompts to that endpoint. The module does this at start for every declared class.
 */
export function mountMcpServer(
  fw: Framework,
  target: McpServerClass | object | McpServerOptions,
  options: MountOptions = {},
): MountedServer {
  fw.config.declare(MCP_CONFIG);
  // A class mounted by hand before start is not mounted again by the module's autoload.
  if (typeof target === 'function') {
    const already = mountedServers(fw).find((m) => m.instances.some((i) => i.constructor === target));
    if (already) return already;
  }
  const { identity, instance } = resolveTarget(fw, target);
  const registry: ToolRegistry | undefined = instance ? buildRegistry(instance) : undefined;
  // The framework's mounted servers by path, kept on the framework itself.
  let byPath = fw.services.get('mcp.mounts');
  if (!byPath) {
    byPath = new Map();
    fw.services.provide('mcp.mounts', byPath);
  }
  const existing = byPath.get(identity.path);
  if (existing) {
    if (instance && !existing.instances.includes(instance) && registry) {
      existing.endpoint.catalog.add(registry);
      (existing.instances as object[]).push(instance);
      // A class takes over the identity of a default (registry-only) server.
      if (existing.instances.length === 1) Object.assign(existing.endpoint.identity, identity);
    }
    return existing;
  }
  const shared = options.frameworkRegistry === false ? undefined : McpRegistry.of(fw);
  const catalog = new Catalog([...(registry ? [registry] : []), ...(options.registries ?? []), ...(shared ? [shared] : [])], shared);
  const wantsOAuth = options.oauth ?? (options.access === undefined && options.principalResolver === undefined);
  const oauthServer = wantsOAuth ? oauthResourceServer(fw) : undefined;
  const resource = oauthServer
    ? new ProtectedResource(
        oauthServer,
        identity.path,
        () => identity.name,
        (tool) => catalog.tool(tool)?.scopes,
        () => catalog.tools().flatMap((t) => oauthServer.settings.toolScopes.get(t.name) ?? t.scopes ?? []),
      )
    : undefined;
  const endpoint = new McpEndpoint(fw, identity, catalog, readLimits(fw.config), options.principalResolver, options.access, resource);
  const http = new StreamableHttpTransport(endpoint);
  const ws = new WebSocketTransport(endpoint);
  const offHttp = fw.route('*', identity.path, http.handle);
  // On Bun.serve the socket is Bun's own (docs/bun.md); on node:http, `ws`'s.
  const offWs = fw.upgrade(identity.path, servedNatively(ws.handleUpgrade, ws.native));
  const offMetadata = resource ? mountResourceMetadata(fw, resource, identity.path === '/mcp') : undefined;
  // Logged with the other fw URLs when the server starts listening (Streamable HTTP and WebSocket share it).
  const offAnnounce = fw.endpoints.add(`MCP ${identity.name}`, identity.path);
  let closed = false;
  const mounted: MountedServer = {
    endpoint,
    instances: instance ? [instance] : [],
    close() {
      if (closed) return;
      closed = true;
      offHttp();
      offWs();
      offMetadata?.();
      offAnnounce();
      http.close();
      endpoint.close();
      ws.close();
      byPath?.delete(identity.path);
    },
  };
  byPath.set(identity.path, mounted);
  fw.onClose(() => mounted.close());
  return mounted;
}

function resolveTarget(
  fw: Framework,
  target: McpServerClass | object | McpServerOptions,
): { identity: ServerIdentity; instance: object | undefined } {
  if (typeof target === 'function') {
    const decl = serverDeclaration(target as McpServerClass);
    if (!decl) throw new TypeError(`${(target as { name?: string }).name ?? 'class'} is not decorated with @McpServer`);
    const instance = new (target as new (fw: Framework) => object)(fw);
    return { identity: { ...decl }, instance };
  }
  const decl = serverDeclaration((target as object).constructor as McpServerClass);
  if (decl) return { identity: { ...decl }, instance: target as object };
  const o = target as McpServerOptions;
  if (typeof o.name !== 'string')
    throw new TypeError('mountMcpServer needs an @McpServer class, an instance of one, or {name, version?, path?}');
  return {
    identity: { name: o.name, version: o.version ?? '1.0.0', path: o.path ?? '/mcp', instructions: o.instructions },
    instance: undefined,
  };
}
