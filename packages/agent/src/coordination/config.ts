import { defineConfig } from '@fw/runtime';

/** The fleet's configuration keys: circuit breakers per coordinator and agent, the flow graph (docs/agents.md, "Fleet"). */
export const FLEET_CONFIG = defineConfig({
  'fw.agent.circuit.failure-threshold': {
    type: 'number',
    default: 5,
    description: "Consecutive failed dispatches to one fleet agent that open its coordinator's circuit breaker (0 = breakers never open)",
  },
  'fw.agent.circuit.open-duration': {
    type: 'duration',
    default: '30s',
    description: 'How long an open breaker refuses dispatches at once before it lets one half-open probe through',
  },
  'fw.agent.circuit.per-agent': {
    type: 'string',
    default: '',
    description:
      'Per-agent breaker settings instead of the two above, comma-separated `agent=threshold/duration` (e.g. `research=3/10s,billing=10/2m`)',
  },
  'fw.agent.flow.max-events': {
    type: 'number',
    default: 100_000,
    description: 'Journal events read for one flow graph (GET /api/admin/flow): the newest in the window; the graph says when it was cut',
  },
});
