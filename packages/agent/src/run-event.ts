/** What one agent run reports while it works; the protocol endpoints translate these to their wire events. */
export type RunEvent =
  | { type: 'text'; delta: string; subagentRunId?: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown; subagentRunId?: string }
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: string; subagentRunId?: string }
  | { type: 'subagent-started'; subagentRunId: string; agent: string; skill: string }
  | { type: 'subagent-finished'; subagentRunId: string; agent: string; result: string }
  | { type: 'subagent-error'; subagentRunId: string; agent: string; error: string };

export type RunListener = (event: RunEvent) => void;
