import type { AiToolCall, RunHooks, RunScope } from '@fw/agent';
import { FwError } from '@fw/runtime';
import type { Approval } from './approval.js';
import type { Approvals } from './approvals.js';

/** Why and for how long a call needs a human (a tool's `approval`, or a policy's `require-approval` rule). */
export interface ApprovalNeed {
  reason: string | null;
  timeoutMs?: number | undefined;
}

/** A call an operator denied, or whose approval expired: its message is what the model reads. */
export class ApprovalDeniedError extends FwError {
  constructor(approval: Approval) {
    const by = approval.status === 'expired' ? '' : ` by ${approval.decidedBy ?? 'an operator'}`;
    super(
      'approval_denied',
      `refused: approval ${approval.id} of '${approval.tool}' was ${approval.status}${by}${approval.reason ? ` (${approval.reason})` : ''}`,
      403,
      { approval: approval.id, status: approval.status },
    );
  }
}

/**
 * Human approval at the agent host's run-hooks seam, after the kill switch and the policies: a
 * tool call that needs approval creates one, tells the run's client (chat, AG-UI, A2A through
 * `run.notify`) and waits. Approved: the tool runs and the run goes on. Denied or expired: the
 * model is answered with the refusal, like a policy's, and the run goes on (it may try something
 * else). A run stopped while it waits (its client left, the kill switch) stops.
 */
export class ApprovalHooks implements RunHooks {
  readonly name = 'governance.approvals';

  constructor(
    private readonly approvals: Approvals,
    private readonly needs: (run: RunScope, call: AiToolCall) => ApprovalNeed | undefined,
  ) {}

  async beforeToolCall(run: RunScope, call: AiToolCall): Promise<void> {
    const need = this.needs(run, call);
    if (!need) return;
    // Fail closed: a call that needs a human does not run when no approval can be kept.
    if (!this.approvals.available)
      throw new FwError('approvals_unavailable', `refused: '${call.toolName}' needs a human's approval and no store can keep one`, 503);
    const pending = await this.approvals.request({
      runId: run.runId,
      agent: run.agent,
      tool: call.toolName,
      arguments: call.input,
      principal: run.principalId ?? null,
      surface: run.protocol ?? null,
      reason: need.reason,
      timeoutMs: need.timeoutMs,
    });
    const tell = (a: Approval): void =>
      run.notify({
        type: 'approval',
        approvalId: a.id,
        status: a.status,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        reason: a.reason,
        expiresAt: a.expiresAt,
      });
    tell(pending);
    const decided = await this.approvals.wait(pending.id, run.signal);
    tell(decided);
    if (decided.status !== 'approved') throw new ApprovalDeniedError(decided);
  }
}
