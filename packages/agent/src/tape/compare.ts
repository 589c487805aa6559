/**
 * Two taped runs side by side, step by step (docs/runs.md, "Re-run and compare"): a re-run against
 * its original, or any two runs. Steps are paired by their position (`seq`); a pair differs when
 * the kinds differ or their bodies do once what is expected to change from run to run is set
 * aside: tool call ids (a model names them anew each time), token usage, the provider, model and
 * response model, durations and times.
 */
import { FwError, NotFoundError } from '@fw/runtime';
import type { TapeReader } from './reader.js';
import type { TapeRun, TapeStep } from './steps.js';

export interface ComparedStep {
  seq: number;
  /** The steps' kind, or `left-kind/right-kind` when they differ (`none` where one run has no step). */
  kind: string;
  /** The left run's step body, or null past its last step. */
  left: unknown;
  right: unknown;
  differs: boolean;
}

/** One side of a comparison, in short. */
export interface ComparedRun {
  runId: string;
  agent: string;
  status: string;
  steps: number;
  inputTokens: number;
  outputTokens: number;
  durationMs: number | null;
  /** The answer (the `end` step's text), or its error. */
  text: string | null;
  error: string | null;
}

export interface RunComparison {
  /** True when no step differs. */
  same: boolean;
  steps: ComparedStep[];
  summary: {
    left: ComparedRun;
    right: ComparedRun;
    differingSteps: number;
    /** The seq of the first step that differs, or null. */
    firstDifference: number | null;
    /** Whether both runs ended the same way with the same answer. */
    sameAnswer: boolean;
  };
}

/** Fields of a step's body set aside when bodies are compared: they change from run to run by nature. */
const VOLATILE = new Set(['usage', 'provider', 'model', 'responseModel']);

/** Canonical JSON (keys sorted) of a value. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = canonical((v as Record<string, unknown>)[k]);
  return out;
}

/** A tool call or message without its call id (a model names its calls anew each time). */
function withoutCallId(v: unknown): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  const { toolCallId: _id, toolCalls, ...rest } = v as Record<string, unknown>;
  return Array.isArray(toolCalls) ? { ...rest, toolCalls: toolCalls.map(withoutCallId) } : rest;
}

/**
 * The body as compared: without the volatile fields at its top level and the call ids of its
 * tool calls and messages; what the agent, its tools and the model said stays, nested values
 * (a tool's arguments) untouched.
 */
function comparable(body: unknown): string {
  if (!body || typeof body !== 'object') return JSON.stringify(body);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(withoutCallId(body) as Record<string, unknown>)) {
    if (VOLATILE.has(k)) continue;
    out[k] = k === 'messages' && Array.isArray(v) ? v.map(withoutCallId) : v;
  }
  return JSON.stringify(canonical(out));
}

function side(run: TapeRun, steps: TapeStep[]): ComparedRun {
  const end = steps.find((s) => s.kind === 'end');
  const body = end?.kind === 'end' ? end.body : undefined;
  return {
    runId: run.id,
    agent: run.agent,
    status: run.status,
    steps: steps.length,
    inputTokens: run.inputTokens,
    outputTokens: run.outputTokens,
    durationMs: run.durationMs,
    text: body?.text ?? null,
    error: body?.error ?? run.error,
  };
}

/** Compares `leftId` with `rightId` (both must have ended: 409 `run_open` otherwise). */
export async function compareRuns(reader: TapeReader, leftId: string, rightId: string): Promise<RunComparison> {
  const [left, right] = await Promise.all([reader.run(leftId), reader.run(rightId)]);
  if (!left) throw new NotFoundError('run', leftId);
  if (!right) throw new NotFoundError('run', rightId);
  for (const r of [left, right])
    if (r.status === 'open') throw new FwError('run_open', `run ${r.id} is still recording; compare it once it has ended`, 409);
  const [a, b] = await Promise.all([reader.steps(leftId), reader.steps(rightId)]);
  const steps: ComparedStep[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const l = a[i];
    const r = b[i];
    const sameKind = l?.kind === r?.kind;
    steps.push({
      seq: i,
      kind: sameKind ? l!.kind : `${l?.kind ?? 'none'}/${r?.kind ?? 'none'}`,
      left: l?.body ?? null,
      right: r?.body ?? null,
      differs: !sameKind || comparable(l!.body) !== comparable(r!.body),
    });
  }
  const differing = steps.filter((s) => s.differs);
  const l = side(left, a);
  const r = side(right, b);
  return {
    same: differing.length === 0,
    steps,
    summary: {
      left: l,
      right: r,
      differingSteps: differing.length,
      firstDifference: differing[0]?.seq ?? null,
      sameAnswer: l.status === r.status && l.text === r.text,
    },
  };
}
