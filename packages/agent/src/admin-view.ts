import type { TapeView } from './tape/tape.js';
import type { EvalsView } from './evals/evals.js';
import type { FleetHealth } from './coordination/fleet-health.js';
import type { FlowGraph } from './coordination/flow.js';
import type { AgentFact } from './memory/memory.js';

/** One session's stored conversation (`GET /api/admin/agents/{name}/conversation/{sessionId}`). */
export interface AgentConversation {
  agentName: string;
  sessionId: string;
  /** The session is open on this node (its next turn goes on from what is here). */
  live: boolean;
  messages: { seq: number; role: string; content: string; at: string }[];
}

/** `GET /api/admin/flow`: the flow graph of a time window. */
export interface FlowReport extends FlowGraph {
  /** The window asked for (0: the whole journal). */
  lookbackMinutes: number;
  /** Start and end of the window (ISO-8601; `from` absent for the whole journal). */
  from?: string;
  to: string;
  /** Journal events aggregated. */
  events: number;
  /** True when the window held more than `fw.agent.flow.max-events` events: the graph is of the newest. */
  truncated: boolean;
}

/** One protocol bridge the agent layer serves (inbound) or calls out through (outbound). */
export interface ProtocolBridgeInfo {
  name: 'a2a' | 'agui' | 'mcp' | 'chat' | 'a2a-client';
  direction: 'inbound' | 'outbound';
  description: string;
  /** The agents it serves (inbound) or the remote fleet agents it reaches (outbound). */
  agents: string[];
  /** Where (inbound: each agent's base path; outbound: the remote agents' URLs). */
  endpoints: string[];
}
/**
 * What `@fw/agent` publishes for the admin plane, as the service `'agent'`
 * (`fw.services.get('agent')`). Reads reflect live state; `cancelTask` is the one
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
  /** Declared with `memory: true`: it keeps facts (docs/agents.md, "Agent state"). */
  memory?: boolean;
}

export interface AgentSessionInfo {
  id: string;
  agentName: string;
  resourceUuid: string | null;
  /** Who owns it: `principal:<id>`, `anonymous` (the key itself is never shown), null for sessions before owners existed. */
  owner?: string | null;
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

/** `interrupted`: the process stopped while the run was in flight (recorded when the store reopens). */
export type JournalEventKind = 'dispatch' | 'completion' | 'failure' | 'handoff' | 'evaluation' | 'interrupted';

export interface JournalEvent {
  seq: number;
  /** The event's own id (a UUID; `seq-<n>` for events journaled before causality was recorded). */
  eventId: string;
  /**
   * The event that caused this one, in the same coordination: a dispatch's step (the completion
   * the coordinator acted on; dispatches started together share it: a fan-out), a completion's or
   * failure's dispatch, a retry's failure. Null for a root.
   */
  parentEventId: string | null;
  /** dispatch: which attempt (2 and up are retries, children of the failure they repeat). */
  attempt?: number;
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
  /** interrupted: the protocol and id of the run that was cut off (an A2A task id, an AG-UI run id, …) */
  protocol?: string;
  ref?: string;
}

export interface JournalQuery {
  coordinationId?: string;
  agent?: string;
  /** ISO-8601 or epoch ms bounds. */
  from?: string | number;
  to?: string | number;
  /** Event kinds: the status of a step (`failure`, `completion`, …). */
  kind?: JournalEventKind | JournalEventKind[];
  /** The newest `limit` events (default 1000), returned oldest first. */
  limit?: number;
}

export interface JournalPageQuery extends JournalQuery {
  limit: number;
  /** From a previous page's `nextCursor`: continues with older events. */
  cursor?: string;
  /** Newest events skipped before the page (offset paging; cursors stay cheap at any depth). */
  offset?: number;
  /** Count the matching events (default true). */
  withTotal?: boolean;
}

export interface JournalPage {
  /** Oldest first within the page. */
  events: JournalEvent[];
  /** Continues with older events; absent on the last page. */
  nextCursor?: string;
  total?: number;
}

/** One run of an agent on any protocol, as the store keeps it. */
export interface AgentRunInfo {
  id: string;
  agentName: string;
  protocol: 'a2a' | 'agui' | 'chat';
  /** The A2A task id, the AG-UI run id or the chat session id. */
  ref: string | null;
  state: 'running' | 'completed' | 'failed' | 'cancelled' | 'interrupted';
  startedAt: string;
  endedAt: string | null;
  error: string | null;
  /** Who started it: `principal:<id>`, `anonymous` (the key itself is never shown), null for runs before owners existed. */
  owner?: string | null;
}

export interface CoordinationGraph {
  coordinationId: string;
  nodes: { id: string; kind: 'coordinator' | 'agent' | 'evaluator' }[];
  edges: {
    from: string;
    to: string;
    kind: 'dispatch' | 'handoff' | 'evaluation';
    count: number;
    failures: number;
    totalDurationMs: number;
    outcome: 'success' | 'failure' | 'mixed' | 'pending';
  }[];
}

/** One event of a coordination's causal tree (`GET /journal/{id}/tree`) with the events it caused. */
export type JournalTreeNode = JournalEvent & { children?: JournalTreeNode[] };

export interface TaskInfo {
  id: string;
  contextId: string;
  agentName: string;
  state: string;
  createdAt: string;
  updatedAt: string;
  /** Short text of the last status message, if any. */
  message?: string;
  /** `agui` for an AG-UI run in flight (listed and cancellable beside the A2A tasks); absent for A2A. */
  protocol?: 'a2a' | 'agui';
  /** Who created it: `principal:<id>`, `anonymous` (the key itself is never shown), null for tasks before owners existed. */
  owner?: string | null;
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
  /** The newest `query.limit` (default 1000) matching events, oldest first; read from the store. */
  journal(query?: JournalQuery): JournalEvent[] | Promise<JournalEvent[]>;
  /** A page of the journal by cursor (the admin API's paging); read from the store. */
  journalPage?(query: JournalPageQuery): Promise<JournalPage>;
  /** Human-readable log of one coordination, one line per event; undefined when unknown. */
  journalLog(coordinationId: string): string | undefined | Promise<string | undefined>;
  journalGraph(coordinationId: string): CoordinationGraph | undefined | Promise<CoordinationGraph | undefined>;
  /** Agent runs on every protocol, newest first (the store's record; in-flight ones are `running`). */
  runs?(query?: { agentName?: string; protocol?: string; state?: string; limit?: number }): Promise<AgentRunInfo[]>;
  tasks(query?: { agentName?: string; state?: string; limit?: number }): TaskInfo[];
  task(id: string): TaskInfo | undefined;
  /** Cancels an in-flight task; throws NotFoundError for an unknown id, FwError code 'task_not_cancelable' (409) for a terminal one. */
  cancelTask(id: string, reason?: string): Promise<TaskInfo>;
  runtimes(): RuntimeInfo[];
  activeRuntime(): RuntimeInfo | undefined;
  /** One coordination as its causal tree (roots oldest first, each with `children`); undefined when unknown. */
  journalTree?(coordinationId: string): Promise<JournalTreeNode[] | undefined>;
  /** Who calls whom over the journal's last `lookbackMinutes` (0: all of it). */
  flow?(query: { lookbackMinutes: number }): Promise<FlowReport>;
  /** The flow graph of one coordination; undefined when unknown. */
  coordinationFlow?(coordinationId: string): Promise<(FlowGraph & { coordinationId: string }) | undefined>;
  /** The health of a coordinator's fleet: availability and circuit breaker per agent; undefined for no such coordinator. */
  fleetHealth?(coordinator: string): FleetHealth | undefined;
  /** The protocol bridges installed. */
  protocols?(): ProtocolBridgeInfo[];
  /** A session's stored conversation; undefined when the agent has no such session. */
  conversation?(agentName: string, sessionId: string): Promise<AgentConversation | undefined>;
  /** Forgets a session's conversation (stored and live); undefined when the agent has no such session. */
  clearConversation?(agentName: string, sessionId: string): Promise<{ agentName: string; sessionId: string; cleared: number } | undefined>;
  /** An agent's facts, newest first; throws NotFoundError for an unknown agent, FwError `no_memory` (404) for one without memory. */
  facts?(agentName: string): Promise<AgentFact[]>;
  /** Adds a fact (400 for a bad one, 409 `memory_full` at the cap). */
  addFact?(agentName: string, content: string, source: string | null): Promise<AgentFact>;
  /** Removes a fact; false when the agent has none with that id. */
  removeFact?(agentName: string, factId: string): Promise<boolean>;
  /** The run tape (docs/runs.md); absent when `fw.agent.tape.enabled` is false. */
  tape?: TapeView;
  /** Evals (docs/runs.md); absent when the tape is. */
  evals?: EvalsView;
}
