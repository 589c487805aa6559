import { defineConfig } from '@fw/runtime';

/** The run tape's keys (docs/runs.md); part of `AGENT_CONFIG`. Retention is the store's (`fw.store.retention.tapes.*`). */
export const TAPE_CONFIG = defineConfig({
  'fw.agent.tape.enabled': {
    type: 'boolean',
    default: true,
    description: 'Record every agent run on the tape (its input, model calls, tool calls, handoffs, end, usage) in the store',
  },
  'fw.agent.tape.max-text': {
    type: 'number',
    default: 65_536,
    description: 'Longest text kept in one field of a taped step (characters): a longer one is cut and marked as cut',
  },
});

/** The live re-run's limits (docs/runs.md, "Re-run and compare"): each drives the live model. */
export const RERUN_CONFIG = defineConfig({
  'fw.agent.tape.rerun.per-caller': {
    type: 'number',
    default: 1,
    description: 'Live re-runs of taped runs one caller (principal) may have in flight at once: one more is refused 429 rerun_busy',
  },
  'fw.agent.tape.rerun.max': {
    type: 'number',
    default: 4,
    description: 'Live re-runs of taped runs in flight at once on this node, all callers together: one more is refused 429 rerun_busy',
  },
});
