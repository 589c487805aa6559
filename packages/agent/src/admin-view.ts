/**
 * What `@fw/agent` publishes for the admin plane, as the service `'agent'`
 * (`fw.services.get<AgentAdminView>('agent')`). Reads reflect live state; `cancelTask` is the one
 * cancel code path shared with the A2A protocol's CancelTask.
 */
export type AgentProtocol = 'a2a' | 'mcp' | 'agui';

export interface AgentInfo {
  name: string;
  version: string;
  description: string;
  /** Base path, e.g. `/fw/agent/research`. */
  path: string;
  headless: boolean;
  kind: 'agent' | 'coordinator';
  protocols: AgentProtocol[];
  activeSessions: number;
  /** For coordinators: the fleet's agent names. */
  fleet?: string[];
}

export interface AgentSessionInfo {
  id: string;
  agentName: string;
  resourceUuid: string | null;
  startedAt: string;
  lastActivityAt: string;
  messageCount: number;
}

export interface CoordinatorInfo {
  name: string;
  version: string;
  path: string;
  fleet: { name: string; location: 'local' | 'remote'; url?: string }[];
}

export type JournalEventKind = 'dispatch' | 'completion' | 'failure' | 'handoff' | 'evaluation';

export interface JournalEvent {
  seq: number;
  kind: JournalEventKind;
  coordinationId: string;
  coordinator: string;
  agent: string;
  skill?: string;
  timestamp: string;
  durationMs?: number;
  error?: string;
  /** handoff */
  from?: string;
  to?: string;
  reason?: string;
  /** evaluation */
  evaluator?: string;
  score?: number;
  passed?: boolean;
}

export interface JournalQuery {
  coordinationId?: string;
  agent?: string;
  /** ISO-8601 or epoch ms bounds. */
  from?: string | number;
  to?: string | number;
  limit?: number;
}

export interface CoordinationGraph {
  coordinationId: string;
  nodes: { id: string; kind: 'coordinator' | 'agent' | 'evaluator' }[];
  edges: { from: string; to: string; kind: 'dispatch' | 'handoff' | 'evaluation'; count: number; failures: number; totalDurationMs: number; outcome: 'success' | 'failure' | 'mixed' | 'pending' }[];
}

export interface TaskInfo {
  id: string;
  contextId: string;
  agentName: string;
  state: string;
  createdAt: string;
  updatedAt: string;
  /** Short text of the last status message, if any. */
  message?: string;
}

export interface RuntimeInfo {
  name: string;
  priority: number;
  available: boolean;
  active: boolean;
  capabilities: string[];
  models: string[];
}

export interface AgentAdminView {
  agents(): AgentInfo[];
  agent(name: string): AgentInfo | undefined;
  sessions(agentName?: string): AgentSessionInfo[];
  coordinators(): CoordinatorInfo[];
  journal(query?: JournalQuery): JournalEvent[];
  /** Human-readable log of one coordination, one line per event; undefined when unknown. */
  journalLog(coordinationId: string): string | undefined;
  journalGraph(coordinationId: string): CoordinationGraph | undefined;
  tasks(query?: { agentName?: string; state?: string; limit?: number }): TaskInfo[];
  task(id: string): TaskInfo | undefined;
  /** Cancels an in-flight task; throws NotFoundError for an unknown id, FwError code 'task_not_cancelable' (409) for a terminal one. */
  cancelTask(id: string, reason?: string): Promise<TaskInfo>;
  runtimes(): RuntimeInfo[];
  activeRuntime(): RuntimeInfo | undefined;
}
