export {
  Evals,
  type EvalsView,
  type EvalCase,
  type EvalRun,
  type EvalResult,
  type EvalBaseline,
  type EvalStart,
} from './evals.js';
export type { EvalScorer, EvalScore, EvalScoreInput, JudgeOptions, JudgeVerdict } from './scorers.js';
export { parseVerdict, JUDGE_SYSTEM_PROMPT, DEFAULT_JUDGE_THRESHOLD } from './scorers.js';
export { EVALS_CONFIG } from './config.js';
