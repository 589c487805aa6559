import { admin } from '@fw/admin';
import { agents } from '@fw/agent';
import { mcp } from '@fw/mcp';
import { cluster } from '@fw/redis';
import type { Framework } from '@fw/runtime';

/**
 * fw's add-on modules, installed the one way modules install (`fw.use`), in dependency order:
 * the MCP server, the agents, the admin plane, and cluster mode (which stays off, a single node,
 * unless `fw.cluster.redis-url` is set).
 */
export async function installModules(fw: Framework): Promise<void> {
  for (const module of [mcp(), agents(), admin(), cluster()]) await fw.use(module);
}
