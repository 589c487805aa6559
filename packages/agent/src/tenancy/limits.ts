/**
 * The agent layer's per-caller limits, so that one client never takes what all share: fair shares
 * of the concurrent AG-UI runs, of the live A2A tasks and of the chat sessions (a principal, or an
 * anonymous client address, holds at most its share of each cap), and a prompt rate per caller
 * for everything that runs the model (chat turns, A2A sends, AG-UI runs). Read from the
 * configuration on every use, so a changed setting applies at once. Defaults and why:
 * docs/agents.md, *Ownership and limits per caller*.
 */
import { FairShare, RateLimiter, type Framework } from '@fw/runtime';

export class AgentLimits {
  /** Concurrent AG-UI runs (all agents): `fw.agent.agui.max-runs` and its shares. */
  readonly runs: FairShare;
  /** Live (unfinished) A2A tasks (all agents): `fw.agent.tasks.max` and its shares. */
  readonly tasks: FairShare;
  /** Concurrent chat sessions (all agents): `fw.agent.sessions.max` and its shares. */
  readonly sessions: FairShare;
  /** Prompts started per caller: `fw.agent.prompts.per-minute`, `fw.agent.prompts.burst`. */
  readonly prompts: RateLimiter;

  constructor(fw: Framework) {
    const get = fw.config.get.bind(fw.config);
    this.runs = new FairShare('fw.agent.agui.max-runs', () => ({
      max: get('fw.agent.agui.max-runs'),
      perPrincipal: Math.max(0, get('fw.agent.agui.max-runs-per-principal')),
      perAddress: Math.max(0, get('fw.agent.agui.max-runs-per-address')),
    }));
    this.tasks = new FairShare('fw.agent.tasks.max', () => ({
      max: get('fw.agent.tasks.max'),
      perPrincipal: Math.max(0, get('fw.agent.tasks.max-per-principal')),
      perAddress: Math.max(0, get('fw.agent.tasks.max-per-address')),
    }));
    this.sessions = new FairShare('fw.agent.sessions.max', () => ({
      max: get('fw.agent.sessions.max'),
      perPrincipal: Math.max(0, get('fw.agent.sessions.max-per-principal')),
      perAddress: Math.max(0, get('fw.agent.sessions.max-per-address')),
    }));
    this.prompts = new RateLimiter('fw.agent.prompts.per-minute', () => ({
      perMinute: Math.max(0, get('fw.agent.prompts.per-minute')),
      burst: Math.max(1, get('fw.agent.prompts.burst')),
    }));
  }
}
