/**
 * The typed steps of the run tape, as the REST API and the replay read them. Each step is one row
 * (`fw_tape_steps`): its kind, when it happened, how long it took, and its body below.
 */
import type { AiMessage, AiToolCall, AiUsage } from '../runtime/port.js';

export interface TapeInputBody {
  message: string;
  history: AiMessage[];
}

export interface TapeModelRequestBody {
  /** 0 for the first model turn of the run, then one more per round of tool calls. */
  step: number;
  provider: string;
  model: string | undefined;
  /** The messages added since the previous request (the whole conversation for the first). */
  messages: AiMessage[];
  /** Messages in the request in all. */
  messageCount: number;
  tools: string[];
}

export interface TapeModelResponseBody {
  step: number;
  /** The streamed text, coalesced. */
  text: string;
  toolCalls: AiToolCall[];
  usage: AiUsage | null;
  finishReason: string | null;
  responseModel: string | null;
  error?: string;
}

export interface TapeToolCallBody {
  toolCallId: string;
  toolName: string;
  input: unknown;
  ok: boolean;
  output: string;
}

export interface TapeHandoffBody {
  from: string;
  to: string;
  reason?: string;
}

/** A warning a module put on the run (a soft budget reached); the run went on. */
export interface TapeWarningBody {
  source: string;
  code: string;
  message: string;
}

export interface TapeEndBody {
  state: 'completed' | 'failed' | 'cancelled';
  text?: string;
  error?: string;
}

export interface TapeBodies {
  input: TapeInputBody;
  'model-request': TapeModelRequestBody;
  'model-response': TapeModelResponseBody;
  'tool-call': TapeToolCallBody;
  handoff: TapeHandoffBody;
  warning: TapeWarningBody;
  end: TapeEndBody;
}

export type TapeStepKind = keyof TapeBodies;

/** One step as read back. */
export type TapeStep = {
  [K in TapeStepKind]: {
    runId: string;
    seq: number;
    at: string;
    kind: K;
    durationMs: number | null;
    body: TapeBodies[K];
    /** A model output's cost at `fw.agent.prices` (worked out when read); absent when unpriced. */
    cost?: number;
  };
}[TapeStepKind];

/** One taped run as listed. */
export interface TapeRun {
  id: string;
  agent: string;
  protocol: string | null;
  ref: string | null;
  /** `principal:<id>`, `anonymous` (the key is never shown), or null for fw's own runs. */
  owner: string | null;
  principal: string | null;
  parentRunId: string | null;
  coordinationId: string | null;
  sessionId: string | null;
  /** open, completed, failed, cancelled, interrupted */
  status: string;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  inputTokens: number;
  outputTokens: number;
  steps: number;
  error: string | null;
}

/**
 * Runs before anything is stored: returns the body to keep for a step (a copy with secrets masked,
 * say). It must not keep or change `body`; what it throws drops the step (logged), never the run.
 */
export type TapeRedactor = <K extends TapeStepKind>(kind: K, body: TapeBodies[K], run: { runId: string; agent: string }) => TapeBodies[K];
