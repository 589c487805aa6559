/**
 * Reads the tape back for the admin plane: runs (filtered, newest first), one run's steps by seq,
 * and a run tree (the run and its child runs by parent, rebuilt from the tape alone). Reads flush
 * the recorder and the write queue first, so they see every step recorded so far.
 */
import type { FwStore, TapeRunRow, TapeStepRow } from '@fw/store';
import { ownerLabel } from '../tenancy/ownership.js';
import { PriceTable } from '../pricing/prices.js';
import type { TapeRun, TapeStep } from './steps.js';

export interface TapeRunQuery {
  agent?: string;
  status?: string;
  /** A principal's id. */
  principal?: string;
  /** ISO-8601 or epoch ms: runs started at or after. */
  since?: string | number;
  /** At most (default 100, at most 1000). */
  limit?: number;
}

/** A run and the runs it started (a coordinator's dispatches), each with its steps. */
export interface TapeRunTree {
  run: TapeRun;
  steps: TapeStep[];
  children: TapeRunTree[];
}

/** Deepest a tree is rebuilt, and most runs in it: a tape is data, its parent links are not trusted to end. */
const MAX_TREE_DEPTH = 8;
const MAX_TREE_RUNS = 200;
const MAX_STEPS = 1000;

export class TapeReader {
  /** `recorded` hands what the recorder holds in memory to the write queue. */
  constructor(
    private readonly store: FwStore,
    private readonly recorded: () => void = () => {},
    /** The price table at read time (`fw.agent.prices`): model outputs get their cost. */
    private readonly prices: () => PriceTable = () => new PriceTable(),
  ) {}

  private settle(): Promise<void> {
    this.recorded();
    return this.store.writes.flush();
  }

  async runs(query: TapeRunQuery = {}): Promise<TapeRun[]> {
    await this.settle();
    const since = query.since === undefined ? undefined : typeof query.since === 'number' ? query.since : Date.parse(query.since);
    const rows = await this.store.tape.list(
      {
        ...(query.agent ? { agent: query.agent } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...(query.principal ? { principal: query.principal } : {}),
        ...(since !== undefined && Number.isFinite(since) ? { since } : {}),
      },
      clamp(query.limit ?? 100, 1, 1000),
    );
    return rows.map(runOf);
  }

  async run(runId: string): Promise<TapeRun | undefined> {
    await this.settle();
    const row = await this.store.tape.get(runId);
    return row ? runOf(row) : undefined;
  }

  async steps(runId: string, fromSeq = 0, max = MAX_STEPS): Promise<TapeStep[]> {
    await this.settle();
    const rows = await this.store.tape.steps(runId, Math.max(0, Math.floor(fromSeq)), clamp(max, 1, MAX_STEPS));
    return priced(rows.map(stepOf), this.prices());
  }

  /** The run tree from the tape; undefined for an unknown run. */
  async tree(runId: string): Promise<TapeRunTree | undefined> {
    await this.settle();
    const root = await this.store.tape.get(runId);
    if (!root) return undefined;
    const prices = this.prices();
    let budget = MAX_TREE_RUNS;
    const seen = new Set<string>();
    const build = async (row: TapeRunRow, depth: number): Promise<TapeRunTree> => {
      seen.add(row.id);
      budget--;
      const steps = priced((await this.store.tape.steps(row.id, 0, MAX_STEPS)).map(stepOf), prices);
      const children: TapeRunTree[] = [];
      if (depth < MAX_TREE_DEPTH) {
        const kids = await this.store.tape.list({ parentRunId: row.id }, Math.max(0, budget));
        // Oldest first, as they were started.
        for (const kid of kids.reverse()) {
          if (budget <= 0 || seen.has(kid.id)) continue;
          children.push(await build(kid, depth + 1));
        }
      }
      return { run: runOf(row), steps, children };
    };
    return build(root, 0);
  }
}

export function runOf(r: TapeRunRow): TapeRun {
  return {
    id: r.id,
    agent: r.agent,
    protocol: r.protocol,
    ref: r.ref,
    owner: ownerLabel(r.owner),
    principal: r.principal,
    parentRunId: r.parent_run_id,
    coordinationId: r.coordination_id,
    sessionId: r.session_id,
    status: r.status,
    startedAt: new Date(r.started_at).toISOString(),
    endedAt: r.ended_at === null ? null : new Date(r.ended_at).toISOString(),
    durationMs: r.duration_ms,
    inputTokens: Number(r.input_tokens),
    outputTokens: Number(r.output_tokens),
    steps: Number(r.steps),
    error: r.error,
  };
}

export function stepOf(r: TapeStepRow): TapeStep {
  return {
    runId: r.run_id,
    seq: Number(r.seq),
    at: new Date(Number(r.at)).toISOString(),
    kind: r.kind,
    durationMs: r.duration_ms,
    body: JSON.parse(r.body),
  } as TapeStep;
}

/**
 * Sets each model output's cost: its usage at the price of the model that answered (the request's
 * model when the provider did not say, from the request step before it).
 */
function priced(steps: TapeStep[], prices: PriceTable): TapeStep[] {
  if (prices.size === 0) return steps;
  const requested = new Map<number, string | undefined>();
  for (const step of steps) {
    if (step.kind === 'model-request') requested.set(step.body.step, step.body.model);
    else if (step.kind === 'model-response') {
      const model = step.body.responseModel ?? requested.get(step.body.step);
      const usage = step.body.usage;
      // No usage, or a model the table does not price: no cost (never a guess). A model neither
      // side named is priced by a catch-all pattern (`*`) only.
      if (!usage) continue;
      const cost = prices.price(model ?? '', {
        inputTokens: usage.inputTokens ?? 0,
        outputTokens: usage.outputTokens ?? 0,
        cachedTokens: usage.cachedTokens ?? 0,
      });
      if (cost.priced) step.cost = cost.costUsd;
    }
  }
  return steps;
}

function clamp(n: number, lo: number, hi: number): number {
  return Number.isFinite(n) ? Math.min(hi, Math.max(lo, Math.floor(n))) : lo;
}
