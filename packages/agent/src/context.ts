import type { AiMessage, ModelProvider } from './runtime/port.js';
import type { RunListener } from './run-event.js';
import type { AgentMemoryAccess } from './memory/memory.js';

/** What a prompt handler and a tool method receive. */
export interface AgentContext {
  readonly agentName: string;
  /** Aborted when the client cancels (A2A CancelTask, admin cancel, AG-UI abort, disconnect). */
  readonly signal: AbortSignal;
  /** The chat session, when the run comes from one. */
  readonly sessionId: string | undefined;
  /** Earlier turns of this conversation (user and assistant text), oldest first. */
  readonly history: readonly AiMessage[];
  /** The client's shared state for this run (AG-UI `RunAgentInput.state`); `undefined` elsewhere. */
  readonly state: unknown;
  /** Opaque properties the client forwarded (AG-UI `RunAgentInput.forwardedProps`); `undefined` elsewhere. */
  readonly forwardedProps: unknown;
  /** The active runtime; throws FwError `no_runtime` when none is available. */
  runtime(): ModelProvider;
  /**
   * Runs the model on `message` (default: the current user message) with the agent's tools,
   * executing the tool calls it makes, and yields the text tokens.
   */
  stream(message?: string): AsyncIterable<string>;
  /** Reports a run event (tool activity, …) to the protocol endpoint serving this run. */
  readonly emit: RunListener;
  /** The agent's facts, for an agent declared with `memory: true`; undefined otherwise. */
  readonly memory?: AgentMemoryAccess;
}

export interface DispatchOptions {
  /** The skill asked for (journal and events); default `'default'`. */
  skill?: string;
  /**
   * Further attempts after a failure (default 0). Each retry is journaled as a dispatch with its
   * `attempt`, a child of the failure it repeats; a refusal of an open circuit breaker is not retried.
   */
  retries?: number;
}

export interface DispatchResult {
  agent: string;
  text: string;
  durationMs: number;
}

/** A coordinator's prompt handler also gets the fleet and the coordination journal. */
export interface CoordinatorContext extends AgentContext {
  readonly coordinationId: string;
  readonly coordinator: string;
  /** Names of the fleet agents. */
  readonly fleet: readonly string[];
  /** Calls a fleet agent (in-process or over A2A); journals the dispatch and its completion or failure. */
  dispatch(agent: string, message: string, options?: DispatchOptions): Promise<DispatchResult>;
  /** Records that work passes from one agent to another. */
  handoff(from: string, to: string, reason: string): void;
  /** Records an evaluation of an agent's output. */
  evaluate(agent: string, evaluation: { evaluator: string; score: number; passed: boolean }): void;
}
