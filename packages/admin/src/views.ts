import type { ClusterService } from '@fw/runtime/adapter';
import type { Framework, RoomsView, RuntimeView } from '@fw/runtime';
import type { AgentAdminView, McpAdminView } from './peer-types.js';

export type { McpAdminView, AgentAdminView };

const EMPTY_MCP: McpAdminView = {
  servers: () => [],
  tools: () => [],
  resources: () => [],
  prompts: () => [],
  sessions: () => [],
  pendingBridgeCalls: () => [],
  tasks: () => [],
  cancelTask: () => undefined,
};

const EMPTY_AGENT: AgentAdminView = {
  agents: () => [],
  agent: () => undefined,
  sessions: () => [],
  coordinators: () => [],
  journal: () => [],
  journalLog: () => undefined,
  journalGraph: () => undefined,
  tasks: () => [],
  task: () => undefined,
  cancelTask: () => Promise.reject(new Error('agent module absent')),
  runtimes: () => [],
  activeRuntime: () => undefined,
};

const NO_ROOMS: RoomsView = { list: () => [], get: () => undefined };

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
    return this.fw.services.get('mcp') ?? EMPTY_MCP;
  }

  get agent(): AgentAdminView {
    return this.fw.services.get('agent') ?? EMPTY_AGENT;
  }

  /** Expiry and revocation of the credentials open sockets hold (`fw.credentials`). */
  get credentials(): Framework['credentials'] {
    return this.fw.credentials;
  }

  /** The cluster service in cluster mode, looked up now; undefined on a single node. */
  /** The rooms (docs/rooms.md) when the app uses them (`useRooms`); none otherwise. */
  get rooms(): RoomsView {
    return this.fw.services.get('rooms') ?? NO_ROOMS;
  }

  get cluster(): ClusterService | undefined {
    return this.fw.services.get('cluster');
  }

  present(module: 'runtime' | 'mcp' | 'agent'): boolean {
    return module === 'runtime' || this.fw.services.get(module) !== undefined;
  }
}
