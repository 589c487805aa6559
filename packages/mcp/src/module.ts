import type { Framework, FrameworkModule } from '@fw/runtime';
import { createAdminView } from './admin-view.js';
import { MCP_CONFIG } from './config.js';
import { MCP_OAUTH_CONFIG } from './oauth/config.js';
import { declaredServers, onServerDeclared } from './decorators.js';
import { mountedServers, mountMcpServer } from './server.js';

/**
 * `@fw/mcp` as a framework module: `await fw.use(mcp())` (nothing when `fw.mcp.enabled=false`).
 * On install it mounts every `@McpServer` class declared so far and any declared later; with no
 * class at all it mounts a default server named `fw` at `/mcp` so that the process-wide
 * McpRegistry (and the admin tools in it) is always reachable; a class declared later on `/mcp`
 * takes that endpoint over. It publishes the admin view as the service `'mcp'`.
 */
export class McpModule implements FrameworkModule {
  readonly name = '@fw/mcp';
  private fw: Framework | undefined;
  private offDeclared: (() => void) | undefined;

  install(fw: Framework): void {
    fw.config.declare(MCP_CONFIG);
    fw.config.declare(MCP_OAUTH_CONFIG);
    if (!fw.config.get('fw.mcp.enabled')) return;
    this.fw = fw;
    for (const cls of declaredServers()) mountMcpServer(fw, cls);
    if (!mountedServers(fw).some((m) => m.endpoint.path === '/mcp')) {
      mountMcpServer(fw, { name: 'fw', path: '/mcp' });
    }
    this.offDeclared = onServerDeclared((cls) => mountMcpServer(fw, cls));
    fw.services.provide('mcp', createAdminView(fw));
  }

  close(): void {
    this.offDeclared?.();
    if (this.fw) for (const m of mountedServers(this.fw)) m.close();
  }
}

/** The MCP module, to install with `await fw.use(mcp())`. */
export function mcp(): McpModule {
  return new McpModule();
}
