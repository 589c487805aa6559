/**
 * The outline of the run tape: its structure and timings without its content, for a role that may
 * read the admin plane's metadata but not what agents were told and answered (content.ts). Each
 * step keeps its kind, time, duration, cost and what names its place in the run — the model turn,
 * provider and model, token usage and finish reason, the names of the tools asked for and called
 * and whether they succeeded, a handoff's agents, the end state — and drops every text: messages,
 * model output, tool arguments and results, reasons and errors. What is kept is listed here, not
 * what is dropped, so a field the tape gains later stays out until someone decides it is metadata.
 */
import type { TapeRun, TapeRunTree, TapeStep } from '../peer-types.js';

/**
 * A run without its error text and without the protocol's ids: a chat run's `ref` and `sessionId`
 * are its session's id, which resumes an anonymous conversation (the session's secret).
 */
export interface OutlineRun extends Omit<TapeRun, 'error' | 'ref' | 'sessionId'> {
  /** Whether the run ended with an error (its text is content). */
  failed: boolean;
}

export interface OutlineStep {
  runId: string;
  seq: number;
  at: string;
  kind: TapeStep['kind'];
  durationMs: number | null;
  cost?: number;
  body: Record<string, unknown>;
}

export interface OutlineTree {
  run: OutlineRun;
  steps: OutlineStep[];
  children: OutlineTree[];
}

export function outlineRun(run: TapeRun): OutlineRun {
  const { error, ref: _ref, sessionId: _sessionId, ...rest } = run;
  return { ...rest, failed: error !== null };
}

export function outlineStep(step: TapeStep): OutlineStep {
  const base = { runId: step.runId, seq: step.seq, at: step.at, kind: step.kind, durationMs: step.durationMs };
  const cost = typeof step.cost === 'number' ? { cost: step.cost } : {};
  return { ...base, ...cost, body: outlineBody(step) };
}

function outlineBody(step: TapeStep): Record<string, unknown> {
  switch (step.kind) {
    case 'input':
      return { historyLength: step.body.history?.length ?? 0 };
    case 'model-request':
      return {
        step: step.body.step,
        provider: step.body.provider,
        model: step.body.model ?? null,
        messageCount: step.body.messageCount,
        tools: step.body.tools,
      };
    case 'model-response':
      return {
        step: step.body.step,
        toolCalls: (step.body.toolCalls ?? []).map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName })),
        usage: step.body.usage ?? null,
        finishReason: step.body.finishReason ?? null,
        responseModel: step.body.responseModel ?? null,
        failed: step.body.error !== undefined,
      };
    case 'tool-call':
      return { toolCallId: step.body.toolCallId, toolName: step.body.toolName, ok: step.body.ok };
    case 'handoff':
      return { from: step.body.from, to: step.body.to };
    case 'end':
      return { state: step.body.state, failed: step.body.error !== undefined };
    default:
      return {};
  }
}

export function outlineTree(tree: TapeRunTree): OutlineTree {
  return { run: outlineRun(tree.run), steps: tree.steps.map(outlineStep), children: tree.children.map(outlineTree) };
}
