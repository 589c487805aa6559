import type { McpAdminView } from './admin-view.js';
import type { McpRegistry } from './registry.js';
import type { BiDirectionalToolBridge } from './bridge.js';
import type { MountedServer } from './server.js';

/**
 * What `@fw/mcp` adds to the kernel's service map: its read view as the service `'mcp'`, so
 * `fw.services.get('mcp')` is typed. It consumes the kernel's `'principal-resolver'` and
 * `'client-address'` services.
 */
declare module '@fw/runtime' {
  interface FwServices {
    mcp: McpAdminView;
    /** The framework's own MCP registry (`McpRegistry.of(fw)`). */
    'mcp.registry': McpRegistry;
    /** Bridges created with `{ framework }`, whose pending calls the admin plane lists. */
    'mcp.bridges': Set<WeakRef<BiDirectionalToolBridge>>;
    /** The framework's mounted MCP servers by path (`mountedServers(fw)`). */
    'mcp.mounts': Map<string, MountedServer>;
  }
}

/** `fw.mcp`: the framework's own registry, created on first use (the getter is in registry.ts). */
declare module '@fw/runtime' {
  interface Framework {
    /** The framework's MCP registry: `fw.mcp.tool(name, { input, output }, handler)`; the same as `McpRegistry.of(fw)`. */
    readonly mcp: McpRegistry;
  }
}

export {};
