/**
 * The run tape of one agent module (docs/runs.md): the recorder on the host's run hooks, the
 * reader, replay, and the redactors every step passes before it is stored. Installed by the agent
 * module at start when `fw.agent.tape.enabled` is true; the kernel and the host know nothing of it.
 */
import type { Framework } from '@fw/runtime';
import type { FwStore } from '@fw/store';
import type { AgentHost } from '../host.js';
import { TapeReader, type TapeRunQuery, type TapeRunTree } from './reader.js';
import { TapeRecorder } from './recorder.js';
import { PriceTable } from '../pricing/prices.js';
import { replayRun, type ReplayResult } from './replay.js';
import { Reruns, type RerunCaller, type RerunStarted } from './rerun.js';
import { compareRuns, type RunComparison } from './compare.js';
import type { TapeRedactor, TapeRun, TapeStep } from './steps.js';

/** What the admin plane reads of the tape (`AgentAdminView.tape`). */
export interface TapeView {
  runs(query?: TapeRunQuery): Promise<TapeRun[]>;
  run(runId: string): Promise<TapeRun | undefined>;
  steps(runId: string, fromSeq?: number, max?: number): Promise<TapeStep[]>;
  tree(runId: string): Promise<TapeRunTree | undefined>;
  replay(runId: string, signal?: AbortSignal): Promise<ReplayResult>;
  /** Re-runs a taped run's input against the live model as a new run (answers once it has started). */
  rerun(runId: string, caller: RerunCaller): Promise<RerunStarted>;
  /** Two ended runs side by side, step by step. */
  compare(runId: string, otherRunId: string): Promise<RunComparison>;
}

export class RunTape implements TapeView {
  readonly reader: TapeReader;
  readonly recorder: TapeRecorder;
  private readonly redactors: TapeRedactor[] = [];
  private readonly off: () => void;
  private readonly reruns: Reruns;

  constructor(
    fw: Framework,
    private readonly host: AgentHost,
    store: FwStore,
    redactors: readonly TapeRedactor[] = [],
    /** The agent module's price table (`fw.agent.prices`), asked at each read. */
    prices: () => PriceTable = () => new PriceTable(),
  ) {
    this.redactors.push(...redactors);
    this.recorder = new TapeRecorder({
      store,
      log: host.log,
      maxText: () => Math.max(0, fw.config.get('fw.agent.tape.max-text')),
      redactors: this.redactors,
      // Metadata only (no input, output or error text): every consumer of the admin event stream
      // sees it, viewers too, and the tape's content needs the content role. Built only when
      // someone listens.
      onRunChanged: (row) => {
        if (!fw.events.wants('TapeRunChanged')) return;
        fw.events.emit('TapeRunChanged', {
          runId: row.id,
          agent: row.agent,
          protocol: row.protocol ?? null,
          parentRunId: row.parent_run_id ?? null,
          coordinationId: row.coordination_id ?? null,
          status: row.status ?? 'open',
          startedAt: new Date(Number(row.started_at)).toISOString(),
          durationMs: row.duration_ms ?? null,
          inputTokens: Number(row.input_tokens ?? 0),
          outputTokens: Number(row.output_tokens ?? 0),
          steps: Number(row.steps ?? 0),
        });
      },
    });
    this.reader = new TapeReader(store, () => this.recorder.flush(), prices);
    this.off = host.hooks.add(this.recorder);
    this.reruns = new Reruns(fw, host, this.reader);
  }

  /**
   * Adds a redactor: it sees every step's body before it is stored and returns what to keep
   * (added after those given to the module; they run in order). Returns the function that removes it.
   */
  redact(redactor: TapeRedactor): () => void {
    this.redactors.push(redactor);
    return () => {
      const i = this.redactors.indexOf(redactor);
      if (i >= 0) this.redactors.splice(i, 1);
    };
  }

  runs(query?: TapeRunQuery): Promise<TapeRun[]> {
    return this.reader.runs(query);
  }

  run(runId: string): Promise<TapeRun | undefined> {
    return this.reader.run(runId);
  }

  steps(runId: string, fromSeq?: number, max?: number): Promise<TapeStep[]> {
    return this.reader.steps(runId, fromSeq, max);
  }

  tree(runId: string): Promise<TapeRunTree | undefined> {
    return this.reader.tree(runId);
  }

  replay(runId: string, signal: AbortSignal = new AbortController().signal): Promise<ReplayResult> {
    return replayRun(this.host, this.reader, runId, signal);
  }

  rerun(runId: string, caller: RerunCaller): Promise<RerunStarted> {
    return this.reruns.start(runId, caller);
  }

  compare(runId: string, otherRunId: string): Promise<RunComparison> {
    return compareRuns(this.reader, runId, otherRunId);
  }

  /** Stops recording (runs in flight are not recorded further); what was recorded goes to the write queue. */
  close(): void {
    this.reruns.close();
    this.off();
    this.recorder.flush();
  }
}
