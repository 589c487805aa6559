/** What one agent run reports while it works; the protocol endpoints translate these to their wire events. */
export type RunEvent =
  | { type: 'text'; delta: string; subagentRunId?: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown; subagentRunId?: string }
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: string; subagentRunId?: string }
  | { type: 'subagent-started'; subagentRunId: string; agent: string; skill: string }
  | { type: 'subagent-finished'; subagentRunId: string; agent: string; result: string }
  | { type: 'subagent-error'; subagentRunId: string; agent: string; error: string }
  | ApprovalEvent;

/**
 * A tool call of the run waits for a human's approval (`status: 'pending'`), then its decision
 * (docs/governance.md, "Human approval"). Each surface tells its client: chat an `approval` frame,
 * AG-UI a CUSTOM event carrying an AG-UI `Interrupt`, A2A the task's `input-required` status.
 */
export interface ApprovalEvent {
  type: 'approval';
  approvalId: string;
  status: 'pending' | 'approved' | 'denied' | 'expired';
  toolCallId: string;
  toolName: string;
  /** Why the call needs approval (pending), or the decision's reason. */
  reason: string | null;
  /** ISO-8601: when a pending approval is denied by expiry. */
  expiresAt: string;
  subagentRunId?: string;
}

export type RunListener = (event: RunEvent) => void;
