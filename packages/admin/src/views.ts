import type { Framework, RuntimeView } from '@fw/runtime';
import type { AgentAdminView, McpAdminView } from './peer-types.js';

export type { McpAdminView, AgentAdminView };

const EMPTY_MCP: McpAdminView = {
  servers: () => [], tools: () => [], resources: () => [], prompts: () => [], sessions: () => [], pendingBridgeCalls: () => [],
};

const EMPTY_AGENT: AgentAdminView = {
  agents: () => [], agent: () => undefined, sessions: () => [], coordinators: () => [], journal: () => [],
  journalLog: () => undefined, journalGraph: () => undefined, tasks: () => [], task: () => undefined,
  cancelTask: () => Promise.reject(new Error('agent module absent')), runtimes: () => [], activeRuntime: () => undefined,
};

/**
 * The live data the admin plane reads. Services are looked up at every call, so install order
 * does not matter; an absent module reads as empty, never as an error. `present` says which
 * modules are really there (control actions on an absent module are a 404, not a silent no-op).
 */
export class Views {
  constructor(private readonly fw: Framework) {}

  get runtime(): RuntimeView {
    return this.fw.runtime;
  }

  get mcp(): McpAdminView {
    return this.fw.services.get<McpAdminView>('mcp') ?? EMPTY_MCP;
  }

  get agent(): AgentAdminView {
    return this.fw.services.get<AgentAdminView>('agent') ?? EMPTY_AGENT;
  }

  /** Any other module's service (e.g. `'cluster'`), looked up now. */
  service<T>(name: string): T | undefined {
    return this.fw.services.get<T>(name);
  }

  present(module: 'runtime' | 'mcp' | 'agent'): boolean {
    return module === 'runtime' || this.fw.services.get(module) !== undefined;
  }
}
