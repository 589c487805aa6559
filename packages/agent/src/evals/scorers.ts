/**
 * Eval scorers (docs/runs.md, "Evals"): each says whether an agent's answer to a dataset case
 * passes. `exact` and `contains` compare with the case's expected output; `json-schema` checks
 * that the answer is JSON valid under the schema the eval run names; a custom scorer is a
 * function the application registers by name (`AgentModule({ evalScorers })`); `judge` asks a model
 * (an AI runtime of the agent module) to grade the answer against a rubric.
 */
import { jsonSchemaProblems, type JsonSchema } from '@fw/mcp';
import type { AiMessage, ModelProvider } from '../runtime/port.js';

export interface EvalScoreInput {
  /** The case's input message. */
  input: string;
  /** The case's expected output. */
  expected: string;
  /** What the agent answered. */
  output: string;
}

export interface EvalScore {
  passed: boolean;
  /** Why, for a reader of the results. */
  detail?: string;
}

/** A custom scorer: `true`/`false` or a score with its reason; what it throws fails the case. */
export type EvalScorer = (c: EvalScoreInput) => EvalScore | boolean | Promise<EvalScore | boolean>;

export const BUILT_IN_SCORERS = ['exact', 'contains', 'json-schema', 'judge'] as const;

/** The answer equals the expected output, but for surrounding white space. */
export function exact(c: EvalScoreInput): EvalScore {
  return c.output.trim() === c.expected.trim()
    ? { passed: true }
    : { passed: false, detail: 'the answer differs from the expected output' };
}

/** The answer contains the expected output. */
export function contains(c: EvalScoreInput): EvalScore {
  return c.output.includes(c.expected.trim())
    ? { passed: true }
    : { passed: false, detail: 'the answer does not contain the expected output' };
}

/** The answer is JSON, valid under `schema`. */
export function jsonSchema(schema: JsonSchema): (c: EvalScoreInput) => EvalScore {
  return (c) => {
    let value: unknown;
    try {
      value = JSON.parse(c.output);
    } catch {
      return { passed: false, detail: 'the answer is not JSON' };
    }
    const problems = jsonSchemaProblems(schema, value, 'answer');
    return problems.length === 0 ? { passed: true } : { passed: false, detail: problems.join('; ') };
  };
}

/** A custom scorer's result as a score. */
export async function scoreWith(scorer: EvalScorer, c: EvalScoreInput): Promise<EvalScore> {
  const r = await scorer(c);
  return typeof r === 'boolean'
    ? { passed: r }
    : { passed: r.passed === true, ...(r.detail !== undefined ? { detail: String(r.detail) } : {}) };
}

/** What the LLM judge is told to grade by, and the score that passes. */
export interface JudgeOptions {
  /** What a good answer is, in the grader's words (required): "answers the question asked, politely, in one sentence". */
  rubric: string;
  /** The AI runtime that grades (its name, as GET /api/admin/runtimes lists it); default the active one. */
  runtime?: string;
  /** The model of that runtime; default its first. */
  model?: string;
  /** The lowest score that passes, 0 to 1 (default 0.7). */
  threshold?: number;
}

/** What the judge answers, parsed. */
export interface JudgeVerdict {
  score: number;
  reason: string;
}

export const DEFAULT_JUDGE_THRESHOLD = 0.7;

/** The judge's instructions: a verdict as one JSON object, nothing else, so it can be parsed strictly. */
export const JUDGE_SYSTEM_PROMPT =
  'You are an evaluation judge. You grade an answer an AI agent gave against a rubric. ' +
  'Reply with exactly one JSON object and nothing else: {"score": <a number from 0 to 1>, "reason": "<one sentence>"}. ' +
  'A score of 1 means the answer meets the rubric fully, 0 not at all.';

/** The judge's request for one case: the rubric, the case's input, the output expected and the answer. */
export function judgeMessages(rubric: string, c: EvalScoreInput): AiMessage[] {
  return [
    { role: 'system', content: JUDGE_SYSTEM_PROMPT },
    {
      role: 'user',
      content: `Rubric:\n${rubric}\n\nInput the agent was given:\n${c.input}\n\nOutput expected:\n${c.expected}\n\nAnswer to grade:\n${c.output}`,
    },
  ];
}

/**
 * Parses a verdict strictly: one JSON object (a Markdown code fence around it is allowed, as
 * models add one) with `score` a number from 0 to 1 and `reason` a string. Anything else is a
 * string saying what is wrong.
 */
export function parseVerdict(text: string): JudgeVerdict | string {
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text.trim());
  const body = (fenced ? fenced[1]! : text).trim();
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return 'the verdict is not JSON';
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'the verdict is not a JSON object';
  const { score, reason } = value as Record<string, unknown>;
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1)
    return "the verdict's 'score' is not a number from 0 to 1";
  if (typeof reason !== 'string') return "the verdict has no 'reason' string";
  return { score, reason };
}

/** Limits the judge runs within (`fw.agent.evals.judge.*`). */
export interface JudgeLimits {
  timeoutMs: number;
  maxVerdict: number;
  /** Stops the judge's model call when the eval run stops. */
  signal: AbortSignal;
}

/**
 * The LLM judge: asks `provider` to grade each answer against the rubric and passes the case when
 * the verdict's score reaches the threshold. A malformed verdict, a model error or a timeout is a
 * failed score that says so, never a thrown error: the eval run goes on.
 */
export function judge(options: JudgeOptions, provider: ModelProvider, limits: JudgeLimits): (c: EvalScoreInput) => Promise<EvalScore> {
  const threshold = options.threshold ?? DEFAULT_JUDGE_THRESHOLD;
  const shown = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);
  return async (c) => {
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    const signal = AbortSignal.any([limits.signal, timeout]);
    let text = '';
    try {
      for await (const part of provider.stream(
        { messages: judgeMessages(options.rubric, c), ...(options.model ? { model: options.model } : {}) },
        signal,
      )) {
        if (part.type !== 'text') continue;
        text += part.delta;
        if (text.length > limits.maxVerdict)
          return {
            passed: false,
            detail: `judge: the verdict is longer than ${limits.maxVerdict} characters (fw.agent.evals.judge.max-verdict)`,
          };
      }
    } catch (err) {
      limits.signal.throwIfAborted(); // the eval run is stopping: not a result
      if (timeout.aborted)
        return { passed: false, detail: `judge: no verdict within ${limits.timeoutMs} ms (fw.agent.evals.judge.timeout)` };
      return { passed: false, detail: `judge: the model call failed: ${(err as Error)?.message ?? String(err)}` };
    }
    const verdict = parseVerdict(text);
    if (typeof verdict === 'string') return { passed: false, detail: `judge: ${verdict}: ${JSON.stringify(shown(text))}` };
    const passed = verdict.score >= threshold;
    return { passed, detail: `judge: score ${verdict.score} ${passed ? '≥' : '<'} ${threshold}: ${verdict.reason}` };
  };
}
