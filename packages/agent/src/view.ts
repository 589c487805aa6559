/** The AgentAdminView the admin plane reads (published as the service `'agent'`). */
import { FwError, NotFoundError } from '@fw/runtime';
import { flowOf } from './coordination/flow.js';
import type { AgentAdminView, AgentInfo, CoordinatorInfo, FlowReport, ProtocolBridgeInfo, RuntimeInfo, TaskInfo } from './admin-view.js';
import type { A2AEndpoint } from './a2a/endpoint.js';
import type { BoundedTaskStore } from './a2a/task-store.js';
import type { AgentHost, MountedAgent } from './host.js';
import { aguiRuns, type AguiRun } from './agui/runs.js';
import { ownerLabel } from './tenancy/ownership.js';
import { RunCancelledError } from './errors.js';
import type { ModelProvider } from './runtime/port.js';

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
    ...(a.def.options.memory ? { memory: true } : {}),
  });
  /** The memory of an agent that keeps one: 404 for an unknown agent or one declared without memory. */
  const memoryOf = (name: string) => {
    const a = host.agents.get(name);
    if (!a) throw new NotFoundError('agent', name);
    if (!a.def.options.memory || !host.memory)
      throw new FwError('no_memory', `agent '${name}' keeps no memory (declare it with @Agent({ memory: true }))`, 404, { agent: name });
    return host.memory;
  };
  const runtime = (r: ModelProvider, active: ModelProvider | undefined): RuntimeInfo => ({
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
    coordinators: (): CoordinatorInfo[] =>
      [...host.agents.values()]
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
    journalTree: (id) => host.journal.tree(id),
    flow: (query) => flowReport(host, query.lookbackMinutes),
    coordinationFlow: async (id) => {
      const events = await host.journal.coordination(id);
      return events.length === 0 ? undefined : { coordinationId: id, ...flowOf(events) };
    },
    fleetHealth: (name) => {
      const c = host.agents.get(name);
      if (c?.def.kind !== 'coordinator') return undefined;
      return {
        coordinator: name,
        timestamp: new Date().toISOString(),
        agents: c.fleetNames.map((n) => {
          const url = c.remote.get(n);
          return host.breakers.health(name, url ? { name: n, url } : { name: n }, host.agents.has(n));
        }),
      };
    },
    protocols: () => protocolBridges(host),
    conversation: (agentName, sessionId) => host.sessions.conversation(agentName, sessionId),
    clearConversation: (agentName, sessionId) => host.sessions.clearConversation(agentName, sessionId),
    facts: (agentName) => memoryOf(agentName).list(agentName),
    addFact: (agentName, content, source) => memoryOf(agentName).add(agentName, content, source),
    removeFact: (agentName, factId) => memoryOf(agentName).remove(agentName, factId),
    runs: (query) => host.runs(query),
    tasks: (query = {}) => {
      // AG-UI runs in flight are listed beside the A2A tasks (as `working`, protocol `agui`).
      const runs =
        !query.state || query.state === 'working'
          ? aguiRuns(host)
              .all()
              .filter((r) => !query.agentName || r.agentName === query.agentName)
              .map((r) => aguiTask(r))
          : [];
      const all = [...runs.reverse(), ...store.infos(query)];
      return query.limit !== undefined ? all.slice(0, query.limit) : all;
    },
    task: (id) => {
      const run = id.startsWith(AGUI_PREFIX) ? aguiRuns(host).get(id.slice(AGUI_PREFIX.length)) : undefined;
      return run ? aguiTask(run) : store.info(id);
    },
    cancelTask: async (id, reason): Promise<TaskInfo> => {
      if (id.startsWith(AGUI_PREFIX)) {
        // The same abort as POST …/agui/runs/{runId}/cancel: the run ends with outcome `cancelled`.
        const run = aguiRuns(host).get(id.slice(AGUI_PREFIX.length));
        if (!run) throw new NotFoundError('task', id);
        run.abort.abort(new RunCancelledError(reason ?? 'cancelled by the administrator'));
        return { ...aguiTask(run), state: 'canceled', updatedAt: new Date().toISOString(), ...(reason ? { message: reason } : {}) };
      }
      const agentName = store.agentOf(id);
      const endpoint = agentName ? a2a.get(agentName) : undefined;
      if (!endpoint) throw new NotFoundError('task', id);
      await endpoint.cancel(id, reason);
      return (
        store.info(id) ??
        (() => {
          throw new NotFoundError('task', id);
        })()
      );
    },
    runtimes: () => {
      const active = host.providers.active();
      return host.providers.all().map((r) => runtime(r, active));
    },
    activeRuntime: () => {
      const active = host.providers.active();
      return active ? runtime(active, active) : undefined;
    },
  };
}

/**
 * Admin ids of AG-UI runs: `agui:{agent}:{runId}`, or `agui:{agent}:{runId}~{n}` while another
 * owner's run of the agent has the same run id (an A2A task id is a UUID, never this).
 */
const AGUI_PREFIX = 'agui:';

function aguiTask(r: AguiRun): TaskInfo {
  const at = new Date(r.startedAt).toISOString();
  return {
    id: `${AGUI_PREFIX}${r.key}`,
    contextId: r.threadId,
    agentName: r.agentName,
    state: 'working',
    createdAt: at,
    updatedAt: at,
    protocol: 'agui',
    owner: ownerLabel(r.owner),
  };
}

function safe(f: () => boolean): boolean {
  try {
    return f();
  } catch {
    return false;
  }
}

/** The flow graph of the journal's last `lookbackMinutes` (0: all of it), at most `fw.agent.flow.max-events` of its newest events. */
async function flowReport(host: AgentHost, lookbackMinutes: number): Promise<FlowReport> {
  const to = Date.now();
  const from = lookbackMinutes > 0 ? to - lookbackMinutes * 60_000 : undefined;
  const max = Math.max(1, host.fw.config.get('fw.agent.flow.max-events'));
  const page = await host.journal.page({
    kind: ['dispatch', 'completion', 'failure'],
    limit: max,
    withTotal: false,
    ...(from !== undefined ? { from } : {}),
  });
  return {
    lookbackMinutes,
    ...(from !== undefined ? { from: new Date(from).toISOString() } : {}),
    to: new Date(to).toISOString(),
    events: page.events.length,
    truncated: page.nextCursor !== undefined,
    ...flowOf(page.events),
  };
}

const INBOUND: readonly { name: ProtocolBridgeInfo['name']; description: string }[] = [
  { name: 'a2a', description: 'A2A (JSON-RPC): agent card, message send and stream, tasks' },
  { name: 'agui', description: 'AG-UI: agent runs streamed as AG-UI events' },
  { name: 'mcp', description: "MCP: each agent's tools on its own MCP endpoint" },
  { name: 'chat', description: 'Chat: sessions over an fw connection (not for headless agents)' },
];

/** The bridges agents are served on, and the A2A client through which coordinators reach remote agents. */
function protocolBridges(host: AgentHost): ProtocolBridgeInfo[] {
  const agents = [...host.agents.values()];
  const serves = (a: MountedAgent, name: ProtocolBridgeInfo['name']): boolean =>
    name === 'chat' ? !a.def.options.headless : a.protocols.has(name as 'a2a' | 'agui' | 'mcp');
  const out: ProtocolBridgeInfo[] = [];
  for (const p of INBOUND) {
    const served = agents.filter((a) => serves(a, p.name));
    if (served.length === 0) continue;
    out.push({ ...p, direction: 'inbound', agents: served.map((a) => a.name), endpoints: served.map((a) => a.path) });
  }
  const remote = new Map<string, string>();
  for (const a of agents) for (const [name, url] of a.remote) remote.set(name, url);
  if (host.remoteCaller && remote.size > 0) {
    out.push({
      name: 'a2a-client',
      direction: 'outbound',
      description: 'A2A client: coordinators dispatch to remote fleet agents',
      agents: [...remote.keys()],
      endpoints: [...remote.values()],
    });
  }
  return out;
}
