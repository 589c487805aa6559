/**
 * Evals (issue 27, docs/runs.md "Evals"): a taped run promoted to a dataset case (its input, and
 * its answer as the output expected unless another is given); a dataset run against an agent,
 * each case a real run of the agent (on the tape too) scored by a scorer; per eval run its
 * results, and per dataset × agent × scorer a baseline: the pass rates of its completed runs over
 * time. One eval run at a time per process (a second start is refused 409 `eval_running`): an
 * eval drives the model, and two at once would measure each other. Durable in the store.
 */
import { randomUUID } from 'node:crypto';
import { BadRequestError, errorSummary, FwError, NotFoundError, type Logger } from '@fw/runtime';
import type { FwStore, EvalCaseRow, EvalResultRow, EvalRunRow } from '@fw/store';
import type { JsonSchema } from '@fw/mcp';
import type { AgentHost } from '../host.js';
import type { TapeReader } from '../tape/reader.js';
import { BUILT_IN_SCORERS, contains, exact, judge, jsonSchema, scoreWith, type EvalScorer, type JudgeOptions } from './scorers.js';

/** Most cases a dataset runs (the rest are not run; `cases` says how many were). */
const MAX_CASES = 1000;
/** Most eval runs a baseline lists. */
const BASELINE_HISTORY = 20;

export interface EvalCase {
  id: string;
  dataset: string;
  input: string;
  expected: string;
  sourceRunId: string | null;
  createdAt: string;
}

export interface EvalRun {
  id: string;
  dataset: string;
  agent: string;
  scorer: string;
  /** running, then completed or failed (interrupted: the process stopped mid-run). */
  status: string;
  startedAt: string;
  endedAt: string | null;
  /** Cases to run, run so far, passed so far. */
  cases: number;
  done: number;
  passed: number;
  /** passed / cases once there are cases; null for an empty dataset. */
  passRate: number | null;
  error: string | null;
}

export interface EvalResult {
  caseId: string;
  passed: boolean;
  output: string | null;
  detail: string | null;
  durationMs: number;
}

/** A dataset against an agent with a scorer: its completed eval runs' pass rates, newest first. */
export interface EvalBaseline {
  dataset: string;
  agent: string;
  scorer: string;
  passRate: number | null;
  runs: { id: string; startedAt: string; passRate: number | null; cases: number; passed: number }[];
}

export interface EvalStart {
  dataset: string;
  agent: string;
  /** exact (default), contains, json-schema (with `schema`), judge (with `judge`), or a registered custom scorer's name. */
  scorer?: string;
  schema?: JsonSchema;
  /** The LLM judge's rubric, runtime, model and threshold, for the `judge` scorer. */
  judge?: JudgeOptions;
}

/** The judge's limits, read when an eval run starts (`fw.agent.evals.judge.*`). */
export type JudgeLimitsOf = () => { timeoutMs: number; maxVerdict: number };

/** What the admin plane reads and starts (`AgentAdminView.evals`). */
export interface EvalsView {
  promote(p: { runId: string; dataset: string; expected?: string }): Promise<EvalCase>;
  cases(dataset: string): Promise<EvalCase[]>;
  /** Every dataset with its number of cases. */
  datasets(): Promise<{ dataset: string; cases: number }[]>;
  start(s: EvalStart): Promise<EvalRun>;
  runs(filter?: { dataset?: string; agent?: string; limit?: number }): Promise<EvalRun[]>;
  run(id: string): Promise<(EvalRun & { results: EvalResult[] }) | undefined>;
  baselines(): Promise<EvalBaseline[]>;
}

export class Evals implements EvalsView {
  private running: Promise<void> | undefined;
  /** The last case's creation time: cases promoted within one millisecond keep their order. */
  private lastCaseAt = 0;
  private readonly stop = new AbortController();

  constructor(
    private readonly host: AgentHost,
    private readonly store: FwStore,
    private readonly tape: TapeReader,
    private readonly scorers: Readonly<Record<string, EvalScorer>>,
    private readonly log: Logger,
    private readonly judgeLimits: JudgeLimitsOf = () => ({ timeoutMs: 60_000, maxVerdict: 4096 }),
  ) {}

  async promote(p: { runId: string; dataset: string; expected?: string }): Promise<EvalCase> {
    const dataset = name(p.dataset, 'dataset');
    const run = await this.tape.run(p.runId);
    if (!run) throw new NotFoundError('run', p.runId);
    const steps = await this.tape.steps(p.runId);
    const input = steps.find((s) => s.kind === 'input');
    const end = steps.find((s) => s.kind === 'end');
    if (!input || input.body.message === '') throw new BadRequestError(`run ${p.runId} has no input message on the tape`);
    let expected = p.expected;
    if (expected === undefined) {
      if (run.status !== 'completed' || end?.kind !== 'end' || end.body.text === undefined)
        throw new FwError('run_not_completed', `run ${p.runId} did not complete with an answer: give the expected output`, 409);
      expected = end.body.text;
    }
    this.lastCaseAt = Math.max(Date.now(), this.lastCaseAt + 1);
    const row: EvalCaseRow = {
      id: randomUUID(),
      dataset,
      input: input.body.message,
      expected,
      source_run_id: run.id,
      created_at: this.lastCaseAt,
    };
    await this.store.evals.addCase(row);
    return caseOf(row);
  }

  async cases(dataset: string): Promise<EvalCase[]> {
    return (await this.store.evals.cases(dataset, MAX_CASES)).map(caseOf);
  }

  datasets(): Promise<{ dataset: string; cases: number }[]> {
    return this.store.evals.datasets();
  }

  /** Starts an eval run and answers it at once (status `running`); it goes on in the background. */
  async start(s: EvalStart): Promise<EvalRun> {
    if (this.running) throw new FwError('eval_running', 'an eval run is in progress: one at a time', 409);
    const dataset = name(s.dataset, 'dataset');
    this.host.get(s.agent); // 404 for an agent that is not mounted
    const scorerName = s.scorer ?? 'exact';
    const score = this.scorer(scorerName, s.schema, s.judge);
    const cases = await this.store.evals.cases(dataset, MAX_CASES);
    if (this.running) throw new FwError('eval_running', 'an eval run is in progress: one at a time', 409);
    const row = {
      id: randomUUID(),
      dataset,
      agent: s.agent,
      scorer: scorerName,
      status: 'running',
      started_at: Date.now(),
      ended_at: null,
      cases: cases.length,
      error: null,
    };
    await this.store.evals.startRun(row);
    this.running = this.execute(row.id, s.agent, cases, score).finally(() => {
      this.running = undefined;
    });
    return runOf({ ...row, done: 0, passed: 0 });
  }

  async runs(filter: { dataset?: string; agent?: string; limit?: number } = {}): Promise<EvalRun[]> {
    const { limit, ...f } = filter;
    return (await this.store.evals.runs(f, Math.min(Math.max(limit ?? 100, 1), 1000))).map(runOf);
  }

  async run(id: string): Promise<(EvalRun & { results: EvalResult[] }) | undefined> {
    const row = await this.store.evals.run(id);
    if (!row) return undefined;
    return { ...runOf(row), results: (await this.store.evals.results(id)).map(resultOf) };
  }

  async baselines(): Promise<EvalBaseline[]> {
    const byKey = new Map<string, EvalBaseline>();
    for (const row of await this.store.evals.completed()) {
      const key = JSON.stringify([row.dataset, row.agent, row.scorer]);
      let b = byKey.get(key);
      if (!b) byKey.set(key, (b = { dataset: row.dataset, agent: row.agent, scorer: row.scorer, passRate: passRate(row), runs: [] }));
      if (b.runs.length < BASELINE_HISTORY)
        b.runs.push({
          id: row.id,
          startedAt: new Date(row.started_at).toISOString(),
          passRate: passRate(row),
          cases: row.cases,
          passed: row.passed,
        });
    }
    return [...byKey.values()];
  }

  /** Stops the eval run in progress (its cases' runs are cancelled) and waits for it to end. */
  async close(): Promise<void> {
    this.stop.abort(new FwError('closing', 'the framework is closing', 503));
    await this.running;
  }

  private scorer(scorer: string, schema: JsonSchema | undefined, judgeOptions: JudgeOptions | undefined): EvalScorer {
    if (scorer === 'exact') return exact;
    if (scorer === 'contains') return contains;
    if (scorer === 'json-schema') {
      if (!schema || typeof schema !== 'object')
        throw new BadRequestError("the json-schema scorer needs a 'schema' (a JSON Schema object)");
      return jsonSchema(schema);
    }
    if (scorer === 'judge') return this.judge(judgeOptions);
    const custom = this.scorers[scorer];
    if (!custom) throw new BadRequestError(`no scorer '${scorer}': ${[...BUILT_IN_SCORERS, ...Object.keys(this.scorers)].join(', ')}`);
    return custom;
  }

  /** The LLM judge of an eval run: its options checked, its runtime found (400 for what is wrong). */
  private judge(o: JudgeOptions | undefined): EvalScorer {
    if (!o || typeof o !== 'object' || Array.isArray(o))
      throw new BadRequestError("the judge scorer needs 'judge': {rubric, runtime?, model?, threshold?}");
    if (typeof o.rubric !== 'string' || o.rubric.trim() === '') throw new BadRequestError("'judge.rubric' must be a non-empty string");
    for (const field of ['runtime', 'model'] as const)
      if (o[field] !== undefined && (typeof o[field] !== 'string' || o[field] === ''))
        throw new BadRequestError(`'judge.${field}' must be a non-empty string`);
    if (o.threshold !== undefined && (typeof o.threshold !== 'number' || !(o.threshold >= 0 && o.threshold <= 1)))
      throw new BadRequestError("'judge.threshold' must be a number from 0 to 1");
    const providers = this.host.providers;
    const provider = o.runtime === undefined ? providers.active() : providers.all().find((p) => p.name === o.runtime);
    if (!provider)
      throw new BadRequestError(
        o.runtime === undefined
          ? 'no AI runtime is available for the judge'
          : `no AI runtime '${o.runtime}' for the judge: ${
              providers
                .all()
                .map((p) => p.name)
                .join(', ') || 'none installed'
            }`,
      );
    const options: JudgeOptions = {
      rubric: o.rubric,
      ...(o.model !== undefined ? { model: o.model } : {}),
      ...(o.threshold !== undefined ? { threshold: o.threshold } : {}),
    };
    return judge(options, provider, { ...this.judgeLimits(), signal: this.stop.signal });
  }

  /** Each case a run of the agent, one after the other; a failed case is a result, not the eval's end. */
  private async execute(id: string, agent: string, cases: EvalCaseRow[], score: EvalScorer): Promise<void> {
    try {
      for (const c of cases) {
        this.stop.signal.throwIfAborted();
        const started = performance.now();
        let result: Pick<EvalResultRow, 'output' | 'passed' | 'detail'>;
        try {
          const output = await this.host.run(agent, { message: c.input, ref: `eval:${id}` }, this.stop.signal);
          const s = await scoreWith(score, { input: c.input, expected: c.expected, output });
          result = { output, passed: s.passed ? 1 : 0, detail: s.detail ?? null };
        } catch (err) {
          this.stop.signal.throwIfAborted();
          result = { output: null, passed: 0, detail: `failed: ${(err as Error)?.message ?? String(err)}` };
        }
        await this.store.evals.addResult({
          eval_run_id: id,
          case_id: c.id,
          run_id: null,
          ...result,
          duration_ms: Math.round(performance.now() - started),
        });
      }
      await this.store.evals.endRun(id, 'completed', Date.now(), null);
    } catch (err) {
      this.log.warn({ evalRun: id, error: errorSummary(err) }, 'an eval run failed');
      await this.store.evals.endRun(id, 'failed', Date.now(), (err as Error)?.message ?? String(err)).catch(() => undefined);
    }
  }
}

function name(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 200)
    throw new BadRequestError(`'${what}' must be a name of 1 to 200 characters`);
  return value.trim();
}

function passRate(row: EvalRunRow): number | null {
  return row.cases === 0 ? null : row.passed / row.cases;
}

function caseOf(row: EvalCaseRow): EvalCase {
  return {
    id: row.id,
    dataset: row.dataset,
    input: row.input,
    expected: row.expected,
    sourceRunId: row.source_run_id,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

function runOf(row: EvalRunRow): EvalRun {
  return {
    id: row.id,
    dataset: row.dataset,
    agent: row.agent,
    scorer: row.scorer,
    status: row.status,
    startedAt: new Date(row.started_at).toISOString(),
    endedAt: row.ended_at === null ? null : new Date(row.ended_at).toISOString(),
    cases: row.cases,
    done: row.done,
    passed: row.passed,
    passRate: passRate(row),
    error: row.error,
  };
}

function resultOf(row: EvalResultRow): EvalResult {
  return { caseId: row.case_id, passed: row.passed === 1, output: row.output, detail: row.detail, durationMs: row.duration_ms };
}
