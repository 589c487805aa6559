/**
 * The tape recorder: a set of run hooks (hooks/run-hooks.ts) that keeps the steps of every run in
 * memory and writes them through the store's ordered write queue in batches: at most every
 * `FLUSH_MS` (at once when the steps waiting hold `FLUSH_CHARS`), whatever has changed since — the rows of the runs that started or ended, the steps of
 * all runs — in one transaction of two statements (`TapeRecords.write`). A run that starts and
 * ends within one batch is one INSERT of its row, never an INSERT then an UPDATE; per-turn writes
 * were most of recording's CPU (bench/tape, docs/benchmarks.md). Nothing is written per streamed
 * token (the recorder has no `modelPart`: the model call's result carries the coalesced text), and
 * no run waits for a write; a reader flushes first (`flush()`), so it sees every step so far.
 * Every body passes the redactor, then is cut to `fw.agent.tape.max-text` and frozen as JSON,
 * before it is kept.
 */
import { errorSummary, type Logger } from '@fw/runtime';
import type { FwStore, NewTapeRun, TapeStepRow } from '@fw/store';
import type { ModelCall, ModelResult, RunHooks, RunOutcome, RunScope, RunWarning, ToolResult } from '../hooks/index.js';
import type { AiMessage, AiToolCall } from '../runtime/port.js';
import type { TapeBodies, TapeRedactor, TapeStepKind } from './steps.js';

/** Longest a recorded step waits in memory before it is written (a live reader sees it then). */
const FLUSH_MS = 200;
/**
 * Most step text (characters) held in memory before it is written at once: what waits in memory
 * is not in the store's measured size, so the storage budget (which admits new work by that size)
 * would let large inputs in faster than they land. Small steps, the usual case, are batched.
 */
const FLUSH_CHARS = 32_768;

interface Recording {
  seq: number;
  /** The run's row as it is now (open until the run ends). */
  row: NewTapeRun;
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
  /**
   * Told when a run starts and when it ends, with its row as it is then (the live Runs view:
   * `TapeRunChanged` on the event bus). Called after the row is kept, before it is written.
   */
  onRunChanged?: (row: Readonly<NewTapeRun>) => void;
}

export class TapeRecorder implements RunHooks {
  readonly name = 'tape';
  private readonly runs = new Map<string, Recording>();
  /** Rows of runs that started or ended since the last write, by id. */
  private readonly changed = new Map<string, NewTapeRun>();
  private pending: TapeStepRow[] = [];
  private pendingChars = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: TapeRecorderOptions) {}

  /** Runs being recorded now. */
  get open(): number {
    return this.runs.size;
  }

  runStarted(run: RunScope, input: { readonly message: string; readonly history: readonly AiMessage[] }): void {
    const row: NewTapeRun = {
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
      // Every column, always: one multi-row INSERT holds open and ended rows alike, and SQLite
      // has no DEFAULT in a VALUES list (a column one row lacks would be NULL for it).
      input_tokens: 0,
      output_tokens: 0,
      steps: 0,
      error: null,
    };
    const rec: Recording = { seq: 0, row, messagesSeen: 0, inputTokens: 0, outputTokens: 0, modelStartedAt: new Map() };
    this.runs.set(run.runId, rec);
    this.changed.set(run.runId, row);
    this.step(run, rec, 'input', { message: input.message, history: [...input.history] }, null);
    this.options.onRunChanged?.(row);
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

  warning(run: RunScope, warning: RunWarning): void {
    const rec = this.runs.get(run.runId);
    if (!rec) return;
    this.step(run, rec, 'warning', { source: warning.source, code: warning.code, message: warning.message }, null);
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
    rec.row = {
      ...rec.row,
      status: outcome.state,
      ended_at: Date.now(),
      duration_ms: outcome.durationMs,
      input_tokens: rec.inputTokens,
      output_tokens: rec.outputTokens,
      steps: rec.seq,
      error: outcome.error === undefined ? null : this.clip(outcome.error),
    };
    this.changed.set(run.runId, rec.row);
    this.options.onRunChanged?.(rec.row);
  }

  /** Hands everything recorded so far to the store's write queue now (a reader, a close). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.changed.size === 0 && this.pending.length === 0) return;
    const runs = [...this.changed.values()];
    const steps = this.pending;
    this.changed.clear();
    this.pending = [];
    this.pendingChars = 0;
    const { store } = this.options;
    store.writes.defer((w) => w.tape.write(runs, steps));
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
    // No string is longer than the JSON holding it: a short JSON needs no pass that cuts strings.
    let json = JSON.stringify(kept);
    if (json.length > max)
      json = JSON.stringify(kept, (_key, value: unknown) => (typeof value === 'string' && value.length > max ? cut(value, max) : value));
    this.pending.push({ run_id: run.runId, seq: rec.seq++, at, kind, duration_ms: durationMs, body: json });
    this.pendingChars += json.length;
    if (this.pendingChars >= FLUSH_CHARS) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS).unref();
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
