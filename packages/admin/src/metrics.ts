import type { Framework, RuntimeStats } from '@fw/runtime';
import type { EventStreamStats } from './event-stream.js';
import type { Views } from './views.js';

export interface AdminMetrics {
  runtime: RuntimeStats;
  events: EventStreamStats;
  audit: { entries: number };
  agents: { agents: number; coordinators: number; sessions: number; tasks: number; tasksByState: Record<string, number> };
  mcp: { servers: number; tools: number; resources: number; prompts: number; sessions: number; pendingBridgeCalls: number };
  process: { uptimeSeconds: number; rssBytes: number; heapUsedBytes: number };
}

export function collectMetrics(views: Views, events: EventStreamStats, auditEntries: number): AdminMetrics {
  const agent = views.agent;
  const mcp = views.mcp;
  const tasks = agent.tasks();
  const tasksByState: Record<string, number> = {};
  for (const t of tasks) tasksByState[t.state] = (tasksByState[t.state] ?? 0) + 1;
  const agents = agent.agents();
  const mem = process.memoryUsage();
  return {
    runtime: views.runtime.stats(),
    events,
    audit: { entries: auditEntries },
    agents: {
      agents: agents.filter((a) => a.kind === 'agent').length,
      coordinators: agents.filter((a) => a.kind === 'coordinator').length,
      sessions: agent.sessions().length,
      tasks: tasks.length,
      tasksByState,
    },
    mcp: {
      servers: mcp.servers().length,
      tools: mcp.tools().length,
      resources: mcp.resources().length,
      prompts: mcp.prompts().length,
      sessions: mcp.sessions().length,
      pendingBridgeCalls: mcp.pendingBridgeCalls().length,
    },
    process: { uptimeSeconds: Math.round(process.uptime()), rssBytes: mem.rss, heapUsedBytes: mem.heapUsed },
  };
}

/**
 * The admin plane's figures as Prometheus metrics in the framework's own registry, read at scrape
 * time: `/fw/metrics` (the scrapers' endpoint) and `/api/admin/metrics/prometheus` (the same
 * exposition behind the admin gate) show one set of names. What the runtime already exports
 * (connections, broadcasters, message counters) is not repeated here. Returns a remover.
 */
export function registerAdminMetrics(fw: Framework, read: () => AdminMetrics): () => void {
  const m = fw.metrics;
  const removers = [
    m.gauge('fw_handlers', 'Registered handlers', () => read().runtime.handlers),
    m.gauge('fw_interceptors', 'Registered interceptors', () => read().runtime.interceptors),
    m.gauge('fw_admin_event_consumers', 'Consumers of the admin event stream', () => read().events.consumers),
    m.counter('fw_admin_events_total', 'Framework events seen by the admin plane', () => read().events.events),
    m.counter('fw_admin_events_delivered_total', 'Event frames delivered to admin stream consumers', () => read().events.delivered),
    m.labelledCounter(
      'fw_admin_events_dropped_total',
      'Admin stream events dropped (queue: the stream fell behind; consumer: a slow dashboard)',
      ['reason'],
      () => {
        const e = read().events;
        return [
          [{ reason: 'queue' }, e.queueDropped],
          [{ reason: 'consumer' }, e.consumerDropped],
        ];
      },
    ),
    m.gauge('fw_admin_audit_entries', 'Audit entries held in memory', () => read().audit.entries),
    m.labelledGauge('fw_agents', 'Registered agents and coordinators', ['kind'], () => {
      const a = read().agents;
      return [
        [{ kind: 'agent' }, a.agents],
        [{ kind: 'coordinator' }, a.coordinators],
      ];
    }),
    m.gauge('fw_agent_sessions', 'Active agent sessions', () => read().agents.sessions),
    m.labelledGauge('fw_tasks', 'A2A tasks by state', ['state'], () =>
      Object.entries(read().agents.tasksByState).map(([state, n]) => [{ state }, n]),
    ),
    m.gauge('fw_mcp_sessions', 'Open MCP sessions', () => read().mcp.sessions),
    m.gauge('fw_mcp_tools', 'Registered MCP tools', () => read().mcp.tools),
    m.gauge('fw_mcp_bridge_pending_calls', 'Pending bidirectional bridge calls', () => read().mcp.pendingBridgeCalls),
  ];
  return () => {
    for (const remove of removers) remove();
  };
}
