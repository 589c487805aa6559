import type { Framework, FrameworkModule } from '@fw/runtime';
import { createAdminView } from './admin-view.js';
import { MCP_CONFIG } from './config.js';
import { MCP_OAUTH_CONFIG } from './oauth/config.js';
import type { McpServerClass } from './decorators.js';
import { mountedServers, mountMcpServer } from './server.js';

export interface McpModuleOptions {
  /** `@McpServer` classes (or instances of them) to mount, each at its declared path. */
  servers?: readonly (McpServerClass | object)[];
}

/**
 * `@fw/mcp` as a framework module: `await fw.use(mcp({ servers: [ChatTools] }))` (nothing when
 * `fw.mcp.enabled=false`). It mounts the given `@McpServer` classes (a decorated class is served
 * only where it is mounted: decorators record metadata, nothing process-wide); without one on
 * `/mcp` it mounts a default server named `fw` there, so that the framework's McpRegistry (and the
 * admin tools in it) is reachable. A class mounted later on `/mcp` takes that endpoint over. It
 * publishes the admin view as the service `'mcp'`.
 */
export class McpModule implements FrameworkModule {
  readonly name = '@fw/mcp';
  private fw: Framework | undefined;

  constructor(private readonly options: McpModuleOptions = {}) {}

  install(fw: Framework): void {
    fw.config.declare(MCP_CONFIG);
    fw.config.declare(MCP_OAUTH_CONFIG);
    if (!fw.config.get('fw.mcp.enabled')) return;
    this.fw = fw;
    for (const server of this.options.servers ?? []) mountMcpServer(fw, server);
    if (!mountedServers(fw).some((m) => m.endpoint.path === '/mcp')) {
      mountMcpServer(fw, { name: 'fw', path: '/mcp' });
    }
    fw.services.provide('mcp', createAdminView(fw));
  }

  close(): void {
    if (this.fw) for (const m of mountedServers(this.fw)) m.close();
  }
}

/** The MCP module, to install with `await fw.use(mcp({ servers: [...] }))`. */
export function mcp(options: McpModuleOptions = {}): McpModule {
  return new McpModule(options);
}
