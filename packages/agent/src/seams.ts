import type { Authenticator, Framework } from '@fw/runtime';
import type { AgentAdminView } from './admin-view.js';
import type { AgentModule } from './module.js';
import type { AgentClass } from './decorators.js';

/**
 * What the agent layer adds to the kernel's typed maps: its events (admin spec §6) and its
 * services. Declared here, next to the code that emits and provides them, so the runtime names no
 * agent concept and `fw.events.on('AgentCompleted', …)` / `fw.services.get('agent')` are typed.
 */
declare module '@fw/runtime' {
  interface FwEventMap {
    AgentSessionStarted: { agentName: string; sessionId: string };
    AgentSessionEnded: { agentName: string; sessionId: string; durationMs: number; messageCount: number };
    TaskStateChanged: { taskId: string; agentName: string; oldState: string | null; newState: string };
    AgentDispatched: { coordinationId: string; coordinator: string; agent: string; skill: string };
    AgentCompleted: { coordinationId: string; coordinator: string; agent: string; skill: string; durationMs: number; success: boolean };
    /**
     * A run on the tape started (`status: 'open'`) or ended (its final status, duration, tokens and
     * steps): what the dashboard's Runs tab follows live. Metadata only, never the run's content.
     */
    TapeRunChanged: {
      runId: string;
      agent: string;
      protocol: string | null;
      parentRunId: string | null;
      coordinationId: string | null;
      status: string;
      startedAt: string;
      durationMs: number | null;
      inputTokens: number;
      outputTokens: number;
      steps: number;
    };
    /** A live re-run of a taped run ended (docs/runs.md, "Re-run and compare"). */
    RunRerunEnded: {
      runId: string;
      originalRunId: string;
      agent: string;
      state: 'completed' | 'failed' | 'cancelled';
      error: string | null;
    };
    /** A coordinator's circuit breaker for one fleet agent changed state (coordination/circuit-breaker.ts). */
    CircuitStateChanged: {
      coordinator: string;
      agent: string;
      from: 'CLOSED' | 'OPEN' | 'HALF_OPEN';
      to: 'CLOSED' | 'OPEN' | 'HALF_OPEN';
      consecutiveFailures: number;
      /** The failure that opened it. */
      error?: string;
      at: string;
    };
  }
  interface FwServices {
    /** The agent layer's read/control view (what the admin plane shows). */
    agent: AgentAdminView;
    /** The installed agent module (`agentModuleOf(fw)`). */
    'agent.module': AgentModule;
    /** Classes given to `mountAgent(fw, …)` before the agent module was installed. */
    'agent.pending': (AgentClass | object)[];
    /** The agent endpoints' own authenticator, when an app wants one apart from fw.auth.*. */
    'agent.authenticator': Authenticator;
  }
}

/** Counts the agent layer's events in fw's metrics (docs/operations.md), when metrics are on. */
export function countAgentEvents(fw: Framework): void {
  if (!fw.metrics.enabled) return;
  const dispatches = fw.metrics.durations(
    'fw_agent_dispatch_duration_seconds',
    'Coordinator dispatches to an agent by coordinator, agent and outcome',
    ['coordinator', 'agent', 'outcome'],
  );
  const sessions = fw.metrics.tally('fw_agent_sessions_ended_total', 'Agent chat sessions ended, by agent', ['agent']);
  fw.events.on('AgentCompleted', (e) =>
    dispatches({ coordinator: e.coordinator, agent: e.agent, outcome: e.success ? 'ok' : 'error' }, e.durationMs / 1000),
  );
  fw.events.on('AgentSessionEnded', (e) => sessions({ agent: e.agentName }));
}
