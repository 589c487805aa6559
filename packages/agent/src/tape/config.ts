import { defineConfig } from '@fw/runtime';

/** The run tape's keys (docs/runs.md); part of `AGENT_CONFIG`. Retention is the store's (`fw.store.retention.tapes.*`). */
export const TAPE_CONFIG = defineConfig({
  'fw.agent.tape.enabled': {
    type: 'boolean',
    default: true,
    description: 'Record every agent run on the tape (its input, model calls, tool calls, handoffs, end, usage) in the store',
  },
  'fw.agent.tape.prices': {
    type: 'string',
    default: '',
    description:
      'Token prices for the cost of taped model calls: model=input/output per million tokens, comma-separated, * for any other model (gpt-4o-mini=0.15/0.6,*=1/3); empty shows no cost',
  },
  'fw.agent.tape.max-text': {
    type: 'number',
    default: 65_536,
    description: 'Longest text kept in one field of a taped step (characters): a longer one is cut and marked as cut',
  },
});
