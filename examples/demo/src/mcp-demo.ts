import type { Framework } from '@fw/runtime';

/** The demo's MCP server (owned by the MCP module work). */
export async function installMcpDemo(_fw: Framework): Promise<void> {}
