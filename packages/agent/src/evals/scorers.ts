/**
 * Eval scorers (docs/runs.md, "Evals"): each says whether an agent's answer to a dataset case
 * passes. `exact` and `contains` compare with the case's expected output; `json-schema` checks
 * that the answer is JSON valid under the schema the eval run names; a custom scorer is a
 * function the application registers by name (`AgentModule({ evalScorers })`).
 */
import { jsonSchemaProblems, type JsonSchema } from '@fw/mcp';

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

export const BUILT_IN_SCORERS = ['exact', 'contains', 'json-schema'] as const;

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
