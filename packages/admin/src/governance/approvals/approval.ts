import type { ApprovalStatus, ApprovalTable } from '@fw/store';

/** One approval as the REST API, the MCP tools and the dashboard show it. */
export interface Approval {
  id: string;
  /** The run that waits for it; null for an admin action (`fw.admin.mcp-approval`). */
  runId: string | null;
  agent: string;
  tool: string;
  /** The call's arguments: content, null for a caller without the content role. */
  arguments: unknown;
  principal: string | null;
  /** Where the call came from: chat, a2a, agui, mcp, dispatch, or admin-mcp. */
  surface: string | null;
  status: ApprovalStatus;
  /** Why it needs approval while pending; the decision's reason once decided. */
  reason: string | null;
  requestedAt: string;
  expiresAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
}

export const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'denied', 'expired'];

/** The agent name of an admin action's approval (`fw.admin.mcp-approval`). */
export const ADMIN_AGENT = 'fw-admin';

export function approvalOf(row: ApprovalTable, withContent = true): Approval {
  let args: unknown = null;
  if (withContent) {
    try {
      args = JSON.parse(row.arguments);
    } catch {
      args = row.arguments;
    }
  }
  return {
    id: row.id,
    runId: row.run_id,
    agent: row.agent,
    tool: row.tool,
    arguments: args,
    principal: row.principal,
    surface: row.surface,
    status: row.status,
    reason: row.reason,
    requestedAt: new Date(row.requested_at).toISOString(),
    expiresAt: new Date(row.expires_at).toISOString(),
    decidedAt: row.decided_at === null ? null : new Date(row.decided_at).toISOString(),
    decidedBy: row.decided_by,
  };
}
