/**
 * The tape recorder: a set of run hooks (hooks/run-hooks.ts) that keeps each run's steps in memory
 * and writes them through the store's ordered write queue in batches: the run's row when it
 * starts, its steps after each model turn, the rest with the run's end. Nothing is written per
 * streamed token (the recorder has no `modelPart`: the model call's result carries the coalesced
 * text), and no run waits for a write. Every body passes the redactor, then is cut to
 * `fw.agent.tape.max-text` and frozen as JSON, before it is kept.
 */
import { errorSummary, type Logger } from '@fw/runtime';
import type { FwStore, TapeStepRow } from '@fw/store';
import type { ModelCall, ModelResult, RunHooks, RunOutcome, RunScope, ToolResult } from '../hooks/index.js';
import type { AiMessage, AiToolCall } from '../runtime/port.js';
import type { TapeBodies, TapeRedactor, TapeStepKind } from './steps.js';

interface Recording {
  seq: number;
  pending: TapeStepRow[];
  /** Messages of the conversation already on the tape (a request records only what is new). */
  messagesSeen: number;
  inputTokens: number;
  outputTokens: number;
  /** When each model call started (performance.now()), by step: its row's time is the start. */
  modelStartedAt: Map<number, number>;
}

export interface TapeRecorderOptions {
  store: FwStore;
  log: Logger;
  /** Read at every step, so a changed setting applies to the next one. */
  maxText: () => number;
  redactors: readonly TapeRedactor[];
}

export class TapeRecorder implements RunHooks {
  readonly name = 'tape';
  private readonly runs = new Map<string, Recording>();

  constructor(private readonly options: TapeRecorderOptions) {}

  /** Runs being recorded now. */
  get open(): number {
    return this.runs.size;
  }

  runStarted(run: RunScope, input: { readonly message: string; readonly history: readonly AiMessage[] }): void {
    const rec: Recording = { seq: 0, pending: [], messagesSeen: 0, inputTokens: 0, outputTokens: 0, modelStartedAt: new Map() };
    this.runs.set(run.runId, rec);
    const { store } = this.options;
    const row = {
      id: run.runId,
      agent: run.agent,
      protocol: run.protocol ?? null,
      ref: run.ref ?? null,
      owner: run.owner ?? null,
      principal: run.principalId ?? null,
      parent_run_id: run.parentRunId ?? null,
      coordination_id: run.coordinationId ?? null,
      session_id: run.sessionId ?? null,
      status: 'open',
      started_at: run.startedAt,
      ended_at: null,
      duration_ms: null,
      error: null,
    };
    store.writes.defer(() => store.tape.open(row));
    this.step(run, rec, 'input', { message: input.message, history: [...input.history] }, null);
  }

  beforeModelCall(run: RunScope, call: ModelCall): void {
    const rec = this.runs.get(run.runId);
    if (!rec) return;
    rec.modelStartedAt.set(call.step, Date.now());
    const all = call.request.messages;
    // The request is live (the loop appends to it): what is new is copied now.
    const messages = all.slice(rec.messagesSeen);
    rec.messagesSeen = all.length;
    this.step(
      run,
      rec,
      'model-request',
      {
        step: call.step,
        provider: call.provider,
        model: call.model,
        messages,
        messageCount: all.length,
        tools: (call.request.tools ?? []).map((t) => t.name),
      },
      null,
    );
  }

  afterModelCall(run: RunScope, call: ModelCall, result: ModelResult): void {
    const rec = this.runs.get(run.runId);
    if (!rec) return;
    rec.inputTokens += result.usage?.inputTokens ?? 0;
    rec.outputTokens += result.usage?.outputTokens ?? 0;
    this.step(
      run,
      rec,
      'model-response',
      {
        step: call.step,
        text: result.text,
        toolCalls: result.toolCalls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: c.input })),
        usage: result.usage ?? null,
        finishReason: result.finishReason ?? null,
        responseModel: result.responseModel ?? null,
        ...(result.error !== undefined ? { error: messageOf(result.error) } : {}),
      },
      result.durationMs,
    );
    this.flush(rec);
  }

  afterToolCall(run: RunScope, call: AiToolCall, result: ToolResult): void {
    const rec = this.runs.get(run.runId);
    if (!rec) return;
    this.step(
      run,
      rec,
      'tool-call',
      { toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, ok: result.ok, output: result.text },
      result.durationMs,
    );
  }

  handoff(run: RunScope, handoff: { readonly from: string; readonly to: string; readonly reason?: string }): void {
    const rec = this.runs.get(run.runId);
    if (!rec) return;
    this.step(run, rec, 'handoff', { from: handoff.from, to: handoff.to, ...(handoff.reason ? { reason: handoff.reason } : {}) }, null);
  }

  runEnded(run: RunScope, outcome: RunOutcome): void {
    const rec = this.runs.get(run.runId);
    if (!rec) return;
    this.runs.delete(run.runId);
    this.step(
      run,
      rec,
      'end',
      {
        state: outcome.state,
        ...(outcome.text !== undefined ? { text: outcome.text } : {}),
        ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      },
      outcome.durationMs,
    );
    this.flush(rec);
    const { store } = this.options;
    const end = {
      status: outcome.state,
      endedAt: Date.now(),
      durationMs: outcome.durationMs,
      inputTokens: rec.inputTokens,
      outputTokens: rec.outputTokens,
      steps: rec.seq,
      error: outcome.error === undefined ? null : this.clip(outcome.error),
    };
    store.writes.defer(() => store.tape.end(run.runId, end));
  }

  /** Redacted, cut and frozen now; written at the next flush. A redactor that throws drops the step. */
  private step<K extends TapeStepKind>(run: RunScope, rec: Recording, kind: K, body: TapeBodies[K], durationMs: number | null): void {
    let kept: TapeBodies[K] = body;
    try {
      for (const redact of this.options.redactors) kept = redact(kind, kept, { runId: run.runId, agent: run.agent });
    } catch (err) {
      this.options.log.error({ runId: run.runId, kind, error: errorSummary(err) }, 'a tape redactor failed: the step is not recorded');
      return;
    }
    const max = this.options.maxText();
    const at = kind === 'model-response' ? (rec.modelStartedAt.get((body as TapeBodies['model-response']).step) ?? Date.now()) : Date.now();
    rec.pending.push({
      run_id: run.runId,
      seq: rec.seq++,
      at,
      kind,
      duration_ms: durationMs,
      body: JSON.stringify(kept, (_key, value: unknown) => (typeof value === 'string' && value.length > max ? cut(value, max) : value)),
    });
  }

  private flush(rec: Recording): void {
    if (rec.pending.length === 0) return;
    const batch = rec.pending;
    rec.pending = [];
    const { store } = this.options;
    store.writes.defer(() => store.tape.append(batch));
  }

  private clip(text: string): string {
    const max = this.options.maxText();
    return text.length > max ? cut(text, max) : text;
  }
}

function cut(text: string, max: number): string {
  return `${text.slice(0, Math.max(0, max))}… [cut: ${text.length} characters]`;
}

function messageOf(err: unknown): string {
  return (err as Error)?.message ?? String(err);
}
