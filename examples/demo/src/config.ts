import { defineConfig, type ConfigTypes } from '@fw/runtime';

/**
 * The demo's own configuration keys (documented in docs/demo.md). They follow fw's usual sources:
 * options, the environment (`demo.simulation` ↔ `DEMO_SIMULATION`) and `fw.config.json`.
 */
export const DEMO_CONFIG = defineConfig({
  'demo.simulation': {
    type: 'boolean',
    default: true,
    description: 'Start the simulated traffic (participants, ticker, one coordinator run) when the demo starts; false keeps the demo quiet',
  },
  'demo.simulation.message-interval': {
    type: 'duration',
    default: '4s',
    description: 'Mean time between two messages of one simulated participant (each waits 50–150 % of it)',
  },
  'demo.ticker.interval': {
    type: 'duration',
    default: '400ms',
    description: 'Time between two ticker broadcasts (400ms: 2.5 messages per second)',
  },
  'demo.token-delay': {
    type: 'duration',
    default: '60ms',
    description: 'Pause between two tokens of the offline model, so answers stream at a reading pace',
  },
  'demo.rooms.history': {
    type: 'number',
    default: 50,
    description: 'Recent messages kept per chat room (shown to a page that joins, read by the MCP server)',
  },
  'demo.rooms.max': {
    type: 'number',
    default: 100,
    description: 'Chat rooms whose recent messages are kept (the least recently active is forgotten first)',
  },
  'demo.slow-agent.duration': {
    type: 'duration',
    default: '20s',
    description: 'How long one run of the slow agent works (it reports progress ten times)',
  },
});

declare module '@fw/runtime' {
  interface FwConfigKeys extends ConfigTypes<typeof DEMO_CONFIG> {}
}
