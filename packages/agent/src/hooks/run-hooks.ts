import { errorSummary, type Logger } from '@fw/runtime';
import type { AiMessage, AiRequest, AiStreamPart, AiToolCall, AiUsage } from '../runtime/port.js';
import type { RunScope, RunWarning } from './run-scope.js';

/** One model turn of a run. */
export interface ModelCall {
  /** 0 for the first turn, then one more per round of tool calls. */
  readonly step: number;
  readonly provider: string;
  readonly model: string | undefined;
  readonly request: AiRequest;
}

/** What a model turn produced (the streamed text coalesced). */
export interface ModelResult {
  readonly text: string;
  readonly toolCalls: readonly AiToolCall[];
  readonly usage: AiUsage | undefined;
  readonly responseModel: string | undefined;
  readonly finishReason: string | undefined;
  readonly durationMs: number;
  /** Set when the turn failed or was aborted. */
  readonly error?: unknown;
}

/** What a tool call returned to the model. */
export interface ToolResult {
  readonly ok: boolean;
  readonly text: string;
  readonly durationMs: number;
}

/** How a run ended. */
export interface RunOutcome {
  readonly state: 'completed' | 'failed' | 'cancelled';
  readonly text?: string;
  readonly error?: string;
  readonly durationMs: number;
}

/**
 * What a module adds around every agent run (governance, the run tape, …): the seam the agent
 * host calls on every surface. Hooks named `before…` and `runStarted` may refuse by throwing: a
 * refused run does not start (the error reaches the client), a refused model call ends the run
 * with that error, a refused tool call is answered to the model with the error's message (it may
 * try something else) unless the hook aborted the run. Every other hook observes: what it throws is
 * logged and ignored. Hooks run in the order they were added; async ones are awaited, so keep the
 * per-part hook synchronous and cheap (it runs once per streamed token).
 */
export interface RunHooks {
  readonly name: string;
  runStarted?(run: RunScope, input: { readonly message: string; readonly history: readonly AiMessage[] }): void | Promise<void>;
  beforeModelCall?(run: RunScope, call: ModelCall): void | Promise<void>;
  /** Each streamed part; throwing stops the stream (a hard budget reached mid-answer). */
  modelPart?(run: RunScope, call: ModelCall, part: AiStreamPart): void;
  afterModelCall?(run: RunScope, call: ModelCall, result: ModelResult): void;
  beforeToolCall?(run: RunScope, call: AiToolCall): void | Promise<void>;
  afterToolCall?(run: RunScope, call: AiToolCall, result: ToolResult): void;
  /** A coordinator handed the conversation from one agent to another (`ctx.handoff`). */
  handoff?(run: RunScope, handoff: { readonly from: string; readonly to: string; readonly reason?: string }): void;
  runEnded?(run: RunScope, outcome: RunOutcome): void | Promise<void>;
  /** A module put a warning on the run (`run.warn`: a soft budget reached); the run goes on. */
  warning?(run: RunScope, warning: RunWarning): void;
}

type Observer = 'modelPart' | 'afterModelCall' | 'afterToolCall' | 'handoff' | 'warning';

/** The hooks of one agent host, in order. */
export class RunHookSet {
  private list: RunHooks[] = [];

  constructor(private readonly log: Logger) {}

  /** Adds hooks; returns the function that removes them. */
  add(hooks: RunHooks): () => void {
    this.list = [...this.list, hooks];
    return () => {
      this.list = this.list.filter((h) => h !== hooks);
    };
  }

  get size(): number {
    return this.list.length;
  }

  /** True when some hook observes streamed parts (the per-token call is skipped otherwise). */
  get wantsParts(): boolean {
    return this.list.some((h) => h.modelPart !== undefined);
  }

  async runStarted(run: RunScope, input: { message: string; history: readonly AiMessage[] }): Promise<void> {
    for (const h of this.list) if (h.runStarted) await h.runStarted(run, input);
  }

  async beforeModelCall(run: RunScope, call: ModelCall): Promise<void> {
    for (const h of this.list) if (h.beforeModelCall) await h.beforeModelCall(run, call);
  }

  /** Per part: a throw here is a refusal (it stops the stream), not an observer's failure. */
  modelPart(run: RunScope, call: ModelCall, part: AiStreamPart): void {
    for (const h of this.list) h.modelPart?.(run, call, part);
  }

  afterModelCall(run: RunScope, call: ModelCall, result: ModelResult): void {
    this.observe('afterModelCall', (h) => h.afterModelCall?.(run, call, result));
  }

  async beforeToolCall(run: RunScope, call: AiToolCall): Promise<void> {
    for (const h of this.list) if (h.beforeToolCall) await h.beforeToolCall(run, call);
  }

  afterToolCall(run: RunScope, call: AiToolCall, result: ToolResult): void {
    this.observe('afterToolCall', (h) => h.afterToolCall?.(run, call, result));
  }

  handoff(run: RunScope, handoff: { from: string; to: string; reason?: string }): void {
    this.observe('handoff', (h) => h.handoff?.(run, handoff));
  }

  warning(run: RunScope, warning: RunWarning): void {
    this.observe('warning', (h) => h.warning?.(run, warning));
  }

  /** Every hook hears the end, even when an earlier one throws (logged). */
  async runEnded(run: RunScope, outcome: RunOutcome): Promise<void> {
    for (const h of this.list) {
      if (!h.runEnded) continue;
      try {
        await h.runEnded(run, outcome);
      } catch (err) {
        this.log.error({ hooks: h.name, agent: run.agent, runId: run.runId, error: errorSummary(err) }, 'a run hook failed at the run end');
      }
    }
  }

  private observe(what: Observer, fn: (h: RunHooks) => void): void {
    for (const h of this.list) {
      try {
        fn(h);
      } catch (err) {
        this.log.error({ hooks: h.name, hook: what, error: errorSummary(err) }, 'a run hook failed');
      }
    }
  }
}
