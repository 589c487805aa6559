import { defineConfig } from '@fw/runtime';

/** The price table's key (docs/agents.md, "Prices"); part of `AGENT_CONFIG`. */
export const PRICING_CONFIG = defineConfig({
  'fw.agent.prices': {
    type: 'string',
    default: '',
    description:
      'The price table of model calls (docs/agents.md, Prices): inline JSON, or the path of a JSON file, of model name (`*` matches any run of characters) to `{input, output, cached?}` in USD per 1M tokens; read when the agent module starts (a bad table stops the start); used for the cost of taped model outputs (Runs) and by budgets and spend; empty: no cost is shown, spend counts tokens at cost 0',
  },
});
