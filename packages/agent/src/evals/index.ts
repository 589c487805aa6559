export {
  Evals,
  type EvalsView,
  type EvalCase,
  type EvalRun,
  type EvalResult,
  type EvalBaseline,
  type EvalStart,
} from './evals.js';
export type { EvalScorer, EvalScore, EvalScoreInput } from './scorers.js';
