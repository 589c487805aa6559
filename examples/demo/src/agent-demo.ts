/**
 * The demo's agents: a chat agent (`/fw/agent/assistant`, a real-time chat session plus A2A, MCP
 * and AG-UI), a headless research agent (A2A + MCP) and a coordinator that dispatches to both.
 * They answer on the deterministic offline runtime unless `OPENAI_API_KEY` (or `FW_AI_BASE_URL`
 * for an OpenAI-compatible server such as Ollama) is set, in which case the agent module
 * registers an AI SDK runtime with a higher priority and they use it instead.
 */
import type { Framework } from '@fw/runtime';
import {
  Agent,
  AgentTool,
  Coordinator,
  OfflineProvider,
  OnPrompt,
  agentModuleOf,
  mountAgent,
  type AgentContext,
  type CoordinatorContext,
} from '@fw/agent';
import { SlowAgent, configureSlowAgent } from './slow-agent.js';

const NOTES: Record<string, string> = {
  transports: 'fw serves real-time handlers over WebSocket, SSE, HTTP streaming and long-polling, with resume after short disconnects.',
  agents: 'An fw agent speaks A2A (1.0 and 0.3), AG-UI and MCP; coordinators dispatch to fleets of local or remote agents.',
  admin: 'The admin plane at /fw/admin/ shows connections, broadcasters, agents, tasks and the coordination journal live.',
  mcp: 'The MCP module serves tools, resources and prompts over Streamable HTTP and WebSocket on one path.',
};

function search(query: string): { topic: string; note: string }[] {
  const words = query.toLowerCase().split(/\W+/).filter(Boolean);
  const hits = Object.entries(NOTES).filter(([topic, note]) =>
    words.some((w) => topic.startsWith(w) || note.toLowerCase().includes(` ${w} `)),
  );
  return (hits.length ? hits : Object.entries(NOTES).slice(0, 1)).map(([topic, note]) => ({ topic, note }));
}

function* words(text: string): Iterable<string> {
  yield* text.split(/(?<= )/);
}

@Agent({
  name: 'research',
  version: '1.0.0',
  description: 'Looks things up in the fw notes (headless: A2A and MCP only)',
  headless: true,
  skills: [{ id: 'research', name: 'Research', description: 'Finds notes about fw on a topic', tags: ['notes', 'search'] }],
})
export class ResearchAgent {
  @AgentTool({
    description: 'Searches the fw notes for a topic',
    input: { type: 'object', properties: { query: { type: 'string', description: 'what to look for' } }, required: ['query'] },
  })
  search(input: { query?: string }): { topic: string; note: string }[] {
    return search(String(input.query ?? ''));
  }

  @OnPrompt()
  async *prompt(message: string, ctx: AgentContext): AsyncIterable<string> {
    const notes = search(message)
      .map((h) => `${h.topic}: ${h.note}`)
      .join('\n');
    if (ctx.runtime().name === 'offline') {
      yield* words(`Notes on "${message}":\n${notes}`);
      return;
    }
    yield* ctx.stream(`Answer briefly from these notes only.\n${notes}\n\nQuestion: ${message}`);
  }
}

@Agent({
  name: 'assistant',
  version: '1.0.0',
  description: 'A friendly chat agent (try "/time", "/roll {"sides": 20}" or "/order {"item": "coffee"}", which waits for an approval)',
})
export class ChatAgent {
  @AgentTool({ description: 'Tells the current time (UTC)' })
  time(): string {
    return new Date().toISOString();
  }

  @AgentTool({ description: 'Rolls a die', input: { type: 'object', properties: { sides: { type: 'number' } } } })
  roll(input: { sides?: number }): number {
    const sides = Math.max(2, Math.min(1000, Math.floor(Number(input.sides) || 6)));
    return 1 + Math.floor(Math.random() * sides);
  }

  /** Needs a human: the run pauses until an operator approves or denies it (admin plane, Approvals; docs/governance.md). */
  @AgentTool({
    description: 'Orders something for the team (an operator approves each order)',
    input: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
    approval: { reason: 'an order spends the team budget' },
  })
  order(input: { item: string }): string {
    return `ordered one ${String(input.item).slice(0, 64)}`;
  }
}

@Coordinator({
  name: 'lead',
  version: '1.0.0',
  description: 'Researches a question, then has the assistant answer it',
  fleet: ['research', 'assistant'],
})
export class LeadCoordinator {
  @OnPrompt()
  async prompt(message: string, ctx: CoordinatorContext): Promise<string> {
    const findings = await ctx.dispatch('research', message, { skill: 'research' });
    ctx.handoff('research', 'assistant', 'findings ready to be written up');
    const answer = await ctx.dispatch('assistant', `Write up for "${message}": ${findings.text}`, { skill: 'compose' });
    const score = Math.min(1, answer.text.length / 200);
    ctx.evaluate('assistant', { evaluator: 'lead', score: Math.round(score * 100) / 100, passed: score >= 0.3 });
    return answer.text;
  }
}

/** Mounts the demo agents (the agent module also mounts decorated classes on its own; this is idempotent). */
export async function installAgentDemo(fw: Framework): Promise<void> {
  for (const agent of [ResearchAgent, ChatAgent, LeadCoordinator, SlowAgent]) mountAgent(fw, agent);
}

/**
 * After the agent module started: the offline model again, but pausing `demo.token-delay` between
 * tokens so answers stream at a reading pace. It has the same name, so it replaces the instant
 * offline runtime (the admin plane lists one `offline`); priority 1, below a real model's 10 when
 * a key is set. And the slow agent's duration.
 */
export function configureAgentDemo(fw: Framework): void {
  const module = agentModuleOf(fw);
  if (!module) return;
  const tokenDelayMs = fw.config.get('demo.token-delay');
  if (tokenDelayMs > 0) module.addProvider(new OfflineProvider({ tokenDelayMs, priority: 1 }));
  configureSlowAgent(fw, fw.config.get('demo.slow-agent.duration'));
}
