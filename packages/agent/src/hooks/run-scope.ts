import type { AgentRunInfo } from '../admin-view.js';
import type { RunEvent } from '../run-event.js';

/**
 * One agent run as the run hooks see it: which agent, for whom, on which surface, under which
 * parent, and how to stop it. Every run has one, recorded or not: a chat turn, an A2A task, an
 * AG-UI run, a coordinator's dispatch of a subagent, a tool call from the agent's MCP endpoint.
 */
export interface RunScope {
  /** The run's id: its row in the store's runs when recorded, and the tape's key. */
  readonly runId: string;
  readonly agent: string;
  /** Where the run came from; `dispatch` for a coordinator's subagent, `mcp` for a tool called on the agent's MCP endpoint. */
  readonly protocol: AgentRunInfo['protocol'] | 'dispatch' | 'mcp' | undefined;
  /** The protocol's own id (A2A task id, AG-UI run id, chat session id). */
  readonly ref: string | undefined;
  /** Who started it: `principal:<id>`, `anonymous:<key>`; undefined for fw's own runs (a dispatch inherits its parent's). */
  readonly owner: string | undefined;
  /** The principal's id when the owner is one (for budgets and policies per principal). */
  readonly principalId: string | undefined;
  /** The run that started this one (a coordinator's run for its dispatches). */
  readonly parentRunId: string | undefined;
  /** A coordinator's coordination (its journal key), on the coordinator's run and its dispatches. */
  readonly coordinationId: string | undefined;
  readonly sessionId: string | undefined;
  readonly startedAt: number;
  /** Aborted when the run is cancelled, by its client, its parent, fw's close, or `abort`. */
  readonly signal: AbortSignal;
  /**
   * Stops the run now with `reason` (a kill switch, a hard budget): the model stream is aborted,
   * no further tool runs, and the run ends `cancelled` with that reason.
   */
  abort(reason: Error): void;
  /**
   * Tells the run's client something a hook decided (a tool call waiting for approval): the
   * surface translates it (chat frame, AG-UI event, A2A status). A dispatched subagent's go to its
   * parent's client; a run without a client (a tool called on the MCP endpoint) drops them.
   */
  notify(event: RunEvent): void;
  /**
   * Puts a warning on the run (a soft budget reached): every hook hears it (`warning`), the run
   * tape records it as a `warning` step, and the run goes on.
   */
  warn(warning: RunWarning): void;
}

/** A warning put on a run by a module that governs it. */
export interface RunWarning {
  /** Who says it (`governance.budgets`). */
  readonly source: string;
  /** A stable code (`budget_soft_limit`). */
  readonly code: string;
  readonly message: string;
}

/** The principal id of an owner string (`principal:<id>`), or undefined. */
export function principalIdOf(owner: string | undefined): string | undefined {
  return owner?.startsWith('principal:') ? owner.slice('principal:'.length) : undefined;
}
