/** The AgentAdminView the admin plane reads (published as the service `'agent'`). */
import { NotFoundError } from '@fw/runtime';
import type { AgentAdminView, AgentInfo, CoordinatorInfo, RuntimeInfo, TaskInfo } from './admin-view.js';
import type { A2AEndpoint } from './a2a/endpoint.js';
import type { BoundedTaskStore } from './a2a/task-store.js';
import type { AgentHost, MountedAgent } from './host.js';
import type { AiRuntime } from './runtime/port.js';

export function createAdminView(host: AgentHost, store: BoundedTaskStore, a2a: Map<string, A2AEndpoint>): AgentAdminView {
  const info = (a: MountedAgent): AgentInfo => ({
    name: a.name,
    version: a.def.options.version,
    description: a.def.options.description,
    path: a.path,
    headless: a.def.options.headless,
    kind: a.def.kind,
    protocols: (['a2a', 'mcp', 'agui'] as const).filter((p) => a.protocols.has(p)),
    activeSessions: host.sessions.count(a.name),
    ...(a.def.kind === 'coordinator' ? { fleet: [...a.fleetNames] } : {}),
  });
  const runtime = (r: AiRuntime, active: AiRuntime | undefined): RuntimeInfo => ({
    name: r.name,
    priority: r.priority,
    available: safe(() => r.isAvailable()),
    active: r === active,
    capabilities: [...r.capabilities],
    models: [...r.models],
  });
  return {
    agents: () => [...host.agents.values()].map(info),
    agent: (name) => {
      const a = host.agents.get(name);
      return a ? info(a) : undefined;
    },
    sessions: (agentName) => host.sessions.list(agentName),
    coordinators: (): CoordinatorInfo[] => [...host.agents.values()]
      .filter((a) => a.def.kind === 'coordinator')
      .map((a) => ({
        name: a.name,
        version: a.def.options.version,
        path: a.path,
        fleet: a.fleetNames.map((n) => {
          const url = a.remote.get(n);
          return url ? { name: n, location: 'remote' as const, url } : { name: n, location: 'local' as const };
        }),
      })),
    journal: (query) => host.journal.query(query),
    journalPage: (query) => host.journal.page(query),
    journalLog: (id) => host.journal.log(id),
    journalGraph: (id) => host.journal.graph(id),
    runs: (query) => host.runs(query),
    tasks: (query) => store.infos(query),
    task: (id) => store.info(id),
    cancelTask: async (id, reason): Promise<TaskInfo> => {
      const agentName = store.agentOf(id);
      const endpoint = agentName ? a2a.get(agentName) : undefined;
      if (!endpoint) throw new NotFoundError('task', id);
      await endpoint.cancel(id, reason);
      return store.info(id) ?? (() => { throw new NotFoundError('task', id); })();
    },
    runtimes: () => {
      const active = host.runtimes.active();
      return host.runtimes.all().map((r) => runtime(r, active));
    },
    activeRuntime: () => {
      const active = host.runtimes.active();
      return active ? runtime(active, active) : undefined;
    },
  };
}

function safe(f: () => boolean): boolean {
  try {
    return f();
  } catch {
    return false;
  }
}
