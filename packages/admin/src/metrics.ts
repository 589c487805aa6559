import type { RuntimeStats } from '@fw/runtime';
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
      servers: mcp.servers().length, tools: mcp.tools().length, resources: mcp.resources().length,
      prompts: mcp.prompts().length, sessions: mcp.sessions().length, pendingBridgeCalls: mcp.pendingBridgeCalls().length,
    },
    process: { uptimeSeconds: Math.round(process.uptime()), rssBytes: mem.rss, heapUsedBytes: mem.heapUsed },
  };
}

/** Prometheus text exposition format 0.0.4. */
export function toPrometheus(m: AdminMetrics): string {
  const out: string[] = [];
  const metric = (name: string, type: 'gauge' | 'counter', help: string, samples: [Record<string, string> | null, number][]): void => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) out.push(`${name}${labelText(labels)} ${Number.isFinite(value) ? value : 0}`);
  };
  const r = m.runtime;
  metric('fw_connections', 'gauge', 'Connected resources', [[null, r.connections]]);
  metric('fw_broadcasters', 'gauge', 'Broadcasters', [[null, r.broadcasters]]);
  metric('fw_handlers', 'gauge', 'Registered handlers', [[null, r.handlers]]);
  metric('fw_interceptors', 'gauge', 'Registered interceptors', [[null, r.interceptors]]);
  metric('fw_messages_in_total', 'counter', 'Messages received from clients', [[null, r.messagesIn]]);
  metric('fw_messages_out_total', 'counter', 'Messages written to clients', [[null, r.messagesOut]]);
  metric('fw_broadcasts_total', 'counter', 'Broadcasts', [[null, r.broadcasts]]);
  metric('fw_dropped_total', 'counter', 'Messages dropped by the slow-consumer policy', [[null, r.dropped]]);
  metric('fw_slow_consumer_disconnects_total', 'counter', 'Resources closed by the slow-consumer policy', [[null, r.slowConsumerDisconnects]]);
  metric('fw_admin_event_consumers', 'gauge', 'Consumers of the admin event stream', [[null, m.events.consumers]]);
  metric('fw_admin_events_total', 'counter', 'Framework events seen by the admin plane', [[null, m.events.events]]);
  metric('fw_admin_events_delivered_total', 'counter', 'Event frames delivered to admin stream consumers', [[null, m.events.delivered]]);
  metric('fw_admin_events_dropped_total', 'counter', 'Admin stream events dropped', [[{ reason: 'queue' }, m.events.queueDropped], [{ reason: 'consumer' }, m.events.consumerDropped]]);
  metric('fw_admin_audit_entries', 'gauge', 'Audit entries held in memory', [[null, m.audit.entries]]);
  metric('fw_agents', 'gauge', 'Registered agents', [[{ kind: 'agent' }, m.agents.agents], [{ kind: 'coordinator' }, m.agents.coordinators]]);
  metric('fw_agent_sessions', 'gauge', 'Active agent sessions', [[null, m.agents.sessions]]);
  metric('fw_tasks', 'gauge', 'A2A tasks by state', Object.entries(m.agents.tasksByState).map(([state, n]) => [{ state }, n]));
  metric('fw_mcp_sessions', 'gauge', 'Open MCP sessions', [[null, m.mcp.sessions]]);
  metric('fw_mcp_tools', 'gauge', 'Registered MCP tools', [[null, m.mcp.tools]]);
  metric('fw_mcp_bridge_pending_calls', 'gauge', 'Pending bidirectional bridge calls', [[null, m.mcp.pendingBridgeCalls]]);
  metric('process_uptime_seconds', 'gauge', 'Process uptime', [[null, m.process.uptimeSeconds]]);
  metric('process_resident_memory_bytes', 'gauge', 'Resident memory', [[null, m.process.rssBytes]]);
  return out.join('\n') + '\n';
}

function labelText(labels: Record<string, string> | null): string {
  if (!labels) return '';
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')}"`);
  return `{${parts.join(',')}}`;
}
