import type { Framework, FrameworkModule } from '@fw/runtime';
import { createAdminView } from './admin-view.js';
import { MCP_CONFIG } from './config.js';
import { MCP_OAUTH_CONFIG } from './oauth/config.js';
import { declaredServers, onServerDeclared } from './decorators.js';
import { mountedServers, mountMcpServer } from './server.js';

/**
 * `@fw/mcp` as a framework module (autoloaded when the package is installed, unless
 * `fw.mcp.enabled=false`). On install it mounts every `@McpServer` class declared so far and any
 * declared later; with no class at all it mounts a default server named `fw` at `/mcp` so that
 * the process-wide McpRegistry (and the admin tools in it) is always reachable; a class declared
 * later on `/mcp` takes that endpoint over. It publishes the admin view as the service `'mcp'`.
 */
export function createModule(fw: Framework): FrameworkModule | undefined {
  fw.config.declare(MCP_CONFIG);
  fw.config.declare(MCP_OAUTH_CONFIG);
  if (!fw.config.get<boolean>('fw.mcp.enabled')) return undefined;
  let offDeclared: (() => void) | undefined;
  return {
    name: '@fw/mcp',
    install(framework) {
      for (const cls of declaredServers()) mountMcpServer(framework, cls);
      if (!mountedServers(framework).some((m) => m.endpoint.path === '/mcp')) {
        mountMcpServer(framework, { name: 'fw', path: '/mcp' });
      }
      offDeclared = onServerDeclared((cls) => mountMcpServer(framework, cls));
      framework.services.provide('mcp', createAdminView(framework));
    },
    close() {
      offDeclared?.();
      for (const m of mountedServers(fw)) m.close();
    },
  };
}
