import type { Framework } from '@fw/runtime';

/** The demo's agents and coordinator (owned by the agent layer work). */
export async function installAgentDemo(_fw: Framework): Promise<void> {}
