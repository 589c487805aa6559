/**
 * The slow agent: one run works for `demo.slow-agent.duration` (20 s by default) and streams its
 * progress, so that cancelling can be tried while it runs — Stop on the chat page (AG-UI cancel),
 * Cancel in the dashboard (admin REST), `fw_cancel_task` over the admin MCP endpoint, or A2A
 * CancelTask. Every one of them aborts `ctx.signal`, which ends the wait at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, OnPrompt, agentModuleOf, type AgentContext } from '@fw/agent';
import type { Framework } from '@fw/runtime';

const STEPS = 10;

@Agent({
  name: 'slow',
  version: '1.0.0',
  description:
    'Works for a while (demo.slow-agent.duration, 20 s by default) and reports its progress: try Stop, or cancel it from the dashboard or the admin MCP tool',
  skills: [
    { id: 'slow-work', name: 'Slow work', description: 'A long job that reports progress and can be cancelled', tags: ['demo', 'cancel'] },
  ],
})
export class SlowAgent {
  /** Set from `demo.slow-agent.duration` when the demo starts (see configureSlowAgent). */
  durationMs = 20_000;

  @OnPrompt()
  async *prompt(message: string, ctx: AgentContext): AsyncIterable<string> {
    const step = this.durationMs / STEPS;
    yield `Working on "${message}" for ${Math.round(this.durationMs / 100) / 10} s.\n`;
    for (let i = 1; i <= STEPS; i++) {
      // Rejects the moment the run is cancelled: nothing keeps working after a cancel.
      await sleep(step, undefined, { signal: ctx.signal });
      yield `step ${i}/${STEPS} done (${Math.round((i * step) / 100) / 10} s)\n`;
    }
    yield 'Finished: nobody cancelled me.';
  }
}

/** Gives the mounted slow agent its duration (the agent module builds the instance itself). */
export function configureSlowAgent(fw: Framework, durationMs: number): void {
  const mounted = agentModuleOf(fw)?.host.agents.get('slow');
  if (mounted?.instance instanceof SlowAgent) mounted.instance.durationMs = durationMs;
}
