import { defineConfig } from '@fw/runtime';

/** Agent memory's configuration keys (docs/agents.md, "Agent state"). */
export const MEMORY_CONFIG = defineConfig({
  'fw.agent.memory.max-facts': {
    type: 'number',
    default: 1000,
    description: 'Facts one agent may keep; adding one more is refused (409 memory_full) until one is removed',
  },
  'fw.agent.memory.max-fact-chars': { type: 'number', default: 2000, description: 'Longest fact accepted (characters)' },
  'fw.agent.memory.max-age': {
    type: 'duration',
    default: 0,
    description:
      'Memory retention by age: older facts are deleted at each journal retention pass (0 = kept until removed; max-facts bounds them)',
  },
  'fw.agent.memory.prompt-facts': {
    type: 'number',
    default: 20,
    description: "An agent's newest facts sent to the model with each prompt (0 = none)",
  },
});
