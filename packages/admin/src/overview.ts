import { createRequire } from 'node:module';
import type { HistoryTotals } from './history.js';
import type { Views } from './views.js';
import type { SpendSums } from './governance/budgets/spend-ledger.js';

/** The framework's version, from @fw/runtime's package.json. */
export const FW_VERSION: string = (createRequire(import.meta.url)('@fw/runtime/package.json') as { version: string }).version;

/** Spec §2.1, plus uptime and traffic totals. */
export interface Overview {
  status: 'UP';
  version: string;
  connections: number;
  broadcasters: number;
  handlers: number;
  interceptors: number;
  agentCount: number;
  activeSessions: number;
  coordinatorCount: number;
  taskCount: number;
  /** Name of the active AI runtime; empty when there is none. */
  aiRuntime: string;
  uptimeSeconds: number;
  startedAt: string;
  messagesIn: number;
  messagesOut: number;
  /** Broadcasts on user broadcasters since start (the admin event stream's own frames are in `internal.messages`). */
  broadcasts: number;
  dropped: number;
  /** Agent runs started since the admin plane started: A2A tasks created and coordinator dispatches. */
  agentRuns: number;
  /** Failed runs and dispatches, and control actions that failed with an error, since the admin plane started. */
  errors: number;
  /** Model calls, tokens and USD of today (UTC) on this node's spend ledger (docs/governance.md, Budgets and spend). */
  spendToday: SpendSums & { currency: 'USD' };
  /** Connections, broadcasters and broadcasts of the framework's own (internal broadcasters: the admin event stream), left out of the counts above. */
  internal: { connections: number; broadcasters: number; messages: number };
}

/** `totals` comes from the admin plane's history (absent: zero runs and errors), `spendToday` from governance's ledger. */
export function overview(views: Views, totals?: HistoryTotals, spendToday?: SpendSums): Overview {
  const s = views.runtime.stats();
  const internal = views.runtime.listBroadcasters().filter((b) => b.internal);
  const internalConnections = internal.reduce((n, b) => n + b.resourceCount, 0);
  const internalMessages = internal.reduce((n, b) => n + b.messages, 0);
  const agent = views.agent;
  const agents = agent.agents();
  return {
    status: 'UP',
    version: FW_VERSION,
    connections: Math.max(0, s.connections - internalConnections),
    broadcasters: Math.max(0, s.broadcasters - internal.length),
    handlers: s.handlers,
    interceptors: s.interceptors,
    agentCount: agents.filter((a) => a.kind === 'agent').length,
    activeSessions: agent.sessions().length,
    coordinatorCount: agent.coordinators().length,
    taskCount: agent.tasks().length,
    aiRuntime: agent.activeRuntime()?.name ?? '',
    uptimeSeconds: Math.max(0, Math.round((Date.now() - Date.parse(s.startedAt)) / 1000)),
    startedAt: s.startedAt,
    messagesIn: s.messagesIn,
    messagesOut: s.messagesOut,
    broadcasts: Math.max(0, s.broadcasts - internalMessages),
    dropped: s.dropped,
    agentRuns: totals?.agentRuns ?? 0,
    errors: totals?.errors ?? 0,
    spendToday: { ...(spendToday ?? { calls: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0 }), currency: 'USD' },
    internal: { connections: internalConnections, broadcasters: internal.length, messages: internalMessages },
  };
}
