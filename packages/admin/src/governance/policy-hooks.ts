import type { AiStreamPart, AiToolCall, ModelCall, RunHooks, RunScope } from '@fw/agent';
import { FwError } from '@fw/runtime';
import type { PolicyDecision, PolicyEngine } from './policy-engine.js';

/** A call a policy denied: its message is what the model (a tool call) or the client (a model call) reads. */
export class PolicyDeniedError extends FwError {
  constructor(decision: PolicyDecision) {
    super('policy_denied', `refused by policy '${decision.matched_policy}': ${decision.reason}`, 403, {
      policy: decision.matched_policy,
    });
  }
}

/**
 * The policies at the agent host's run-hooks seam. A denied tool call is answered to the model
 * with the refusal (it may try something else; the run goes on); a denied model call ends the run
 * with the refusal; model output that a content rule denies stops the stream where it matched.
 */
export class PolicyHooks implements RunHooks {
  readonly name = 'governance.policies';
  /** The answer so far of each run's model call in progress (output rules only). */
  private readonly answers = new WeakMap<RunScope, { step: number; text: string; dryRun: Set<string> }>();

  constructor(private readonly engine: PolicyEngine) {}

  beforeModelCall(run: RunScope, call: ModelCall): void {
    if (this.engine.size === 0) return;
    const lastUser = call.request.messages.findLast((m) => m.role === 'user');
    const decision = this.engine.evaluate(
      { agent: run.agent, action: 'model_call', principal: run.principalId, runId: run.runId, content: lastUser?.content },
      'run',
    );
    if (!decision.allowed) throw new PolicyDeniedError(decision);
  }

  modelPart(run: RunScope, call: ModelCall, part: AiStreamPart): void {
    if (!this.engine.hasOutputRules || part.type !== 'text') return;
    let answer = this.answers.get(run);
    if (!answer || answer.step !== call.step) {
      answer = { step: call.step, text: '', dryRun: new Set() };
      this.answers.set(run, answer);
    }
    answer.text += part.delta;
    // Only denials are logged here (an allow per token would flood the decision log), and a
    // dry-run hit once per answer.
    const decision = this.engine.evaluate(
      { agent: run.agent, action: 'model_output', principal: run.principalId, runId: run.runId, content: answer.text },
      'run',
      answer,
    );
    if (!decision.allowed) throw new PolicyDeniedError(decision);
  }

  beforeToolCall(run: RunScope, call: AiToolCall): void {
    if (this.engine.size === 0) return;
    const decision = this.engine.evaluate(
      { agent: run.agent, action: 'tool_call', principal: run.principalId, runId: run.runId, tool: call.toolName, arguments: call.input },
      'run',
    );
    if (!decision.allowed) throw new PolicyDeniedError(decision);
  }
}
