import { defineConfig } from '@fw/runtime';

/** The evals' keys (docs/runs.md, "Evals"); part of `AGENT_CONFIG`. Retention is the store's (`fw.store.retention.evals.*`). */
export const EVALS_CONFIG = defineConfig({
  'fw.agent.evals.judge.timeout': {
    type: 'duration',
    default: '60s',
    description: "How long the LLM judge may take to grade one answer: past it, the case fails with the judge's timeout as its reason",
  },
  'fw.agent.evals.judge.max-verdict': {
    type: 'number',
    default: 4096,
    description: "Longest verdict the LLM judge may answer (characters): the model's stream is cut there and the case fails as malformed",
  },
});
