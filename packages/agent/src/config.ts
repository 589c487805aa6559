import { defineConfig, type ConfigTypes } from '@fw/runtime';
import { RERUN_CONFIG, TAPE_CONFIG } from './tape/config.js';
import { EVALS_CONFIG } from './evals/config.js';
import { FLEET_CONFIG } from './coordination/config.js';
import { MEMORY_CONFIG } from './memory/config.js';
import { PRICING_CONFIG } from './pricing/config.js';

/** The agent module's configuration keys (documented in docs/agents.md). */
export const AGENT_CONFIG = defineConfig({
  ...TAPE_CONFIG,
  ...RERUN_CONFIG,
  ...EVALS_CONFIG,
  ...FLEET_CONFIG,
  ...MEMORY_CONFIG,
  ...PRICING_CONFIG,
  'fw.agent.enabled': { type: 'boolean', default: true, description: 'Master switch: `fw.use(agents())` mounts nothing when false' },
  'fw.agent.max-body-bytes': { type: 'number', default: 1_048_576, description: 'Largest A2A / AG-UI request body accepted (bytes)' },
  'fw.agent.max-message-chars': { type: 'number', default: 32_768, description: 'Largest chat message accepted (characters)' },
  'fw.agent.max-tool-steps': { type: 'number', default: 5, description: 'Model turns per prompt when the model keeps calling tools' },
  'fw.agent.sessions.max': { type: 'number', default: 10_000, description: 'Concurrent agent chat sessions (all agents)' },
  'fw.agent.sessions.max-per-principal': {
    type: 'number',
    default: 1000,
    description: 'Concurrent chat sessions one authenticated principal may hold, a share of fw.agent.sessions.max (0 = no share cap)',
  },
  'fw.agent.sessions.max-per-address': {
    type: 'number',
    default: 2000,
    description:
      'Concurrent chat sessions one anonymous client address (IPv6: its /64) may hold; larger than the per-principal share because one address may be a NAT or proxy in front of several people (0 = no share cap)',
  },
  'fw.agent.sessions.history': { type: 'number', default: 20, description: 'Earlier messages of a chat session sent to the model' },
  'fw.agent.tasks.max': {
    type: 'number',
    default: 1000,
    description: 'A2A tasks kept in the task store (oldest terminal tasks are evicted first)',
  },
  'fw.agent.tasks.max-per-principal': {
    type: 'number',
    default: 100,
    description:
      'Live (unfinished) A2A tasks one authenticated principal may hold, a share of fw.agent.tasks.max so that no caller takes the whole store (0 = no share cap)',
  },
  'fw.agent.tasks.max-per-address': {
    type: 'number',
    default: 200,
    description:
      'Live (unfinished) A2A tasks one anonymous client address (IPv6: its /64) may hold; larger than the per-principal share because one address may be a NAT or proxy in front of several people (0 = no share cap)',
  },
  'fw.agent.tasks.terminal-ttl': { type: 'duration', default: 600_000, description: 'How long a finished A2A task stays readable' },
  'fw.agent.journal.max-events': {
    type: 'number',
    default: 1_000_000,
    description: 'Coordination journal retention by size: events kept in the store (the oldest are deleted first; 0 = no limit)',
  },
  'fw.agent.journal.max-age': {
    type: 'duration',
    default: '720h',
    description: 'Coordination journal retention by age: older events are deleted (0 = kept forever)',
  },
  'fw.agent.journal.prune-interval': { type: 'duration', default: '60s', description: 'How often journal retention runs (also at start)' },
  'fw.agent.auth': {
    type: 'string',
    default: 'auto',
    description:
      "`auto`: A2A, AG-UI, per-agent MCP and chat sessions need a principal when an authenticator is configured (fw.auth.*, or the agent module's own); `none`: they stay public",
  },
  'fw.agent.agui.max-runs': { type: 'number', default: 100, description: 'Concurrent AG-UI runs (all agents)' },
  'fw.agent.agui.max-runs-per-principal': {
    type: 'number',
    default: 10,
    description: 'Concurrent AG-UI runs one authenticated principal may hold, a share of fw.agent.agui.max-runs (0 = no share cap)',
  },
  'fw.agent.agui.max-runs-per-address': {
    type: 'number',
    default: 20,
    description:
      'Concurrent AG-UI runs one anonymous client address (IPv6: its /64) may hold; larger than the per-principal share because one address may be a NAT or proxy in front of several people (0 = no share cap)',
  },
  'fw.agent.prompts.per-minute': {
    type: 'number',
    default: 60,
    description:
      'Prompts (chat turns, A2A sends, AG-UI runs) one caller may start a minute, refilled continuously: a principal, or an anonymous client address (0 = no rate limit)',
  },
  'fw.agent.prompts.burst': {
    type: 'number',
    default: 30,
    description: 'Prompts one caller may start at once before fw.agent.prompts.per-minute paces it',
  },
  'fw.ai.auto': {
    type: 'boolean',
    default: true,
    description: 'Register an OpenAI (or OpenAI-compatible) AI SDK runtime when OPENAI_API_KEY or fw.ai.base-url is set',
  },
  'fw.ai.base-url': { type: 'string', default: '', description: 'Base URL of an OpenAI-compatible server (env FW_AI_BASE_URL)' },
  'fw.ai.model': { type: 'string', default: 'gpt-4o-mini', description: 'Model id for the automatic AI SDK runtime' },
});

declare module '@fw/runtime' {
  interface FwConfigKeys extends ConfigTypes<typeof AGENT_CONFIG> {}
}
