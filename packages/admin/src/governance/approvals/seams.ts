/** What human approvals add to the kernel's event map (docs/governance.md, "Human approval"). */
declare module '@fw/runtime' {
  interface FwEventMap {
    /** A tool call (or an admin MCP action) waits for a human's decision. */
    ApprovalRequested: {
      id: string;
      runId: string | null;
      agent: string;
      tool: string;
      principal: string | null;
      surface: string | null;
      reason: string | null;
      expiresAt: string;
      node: string;
    };
    /** An approval was decided: approved or denied by an operator, or expired (denied by its timeout). */
    ApprovalDecided: {
      id: string;
      status: 'approved' | 'denied' | 'expired';
      agent: string;
      tool: string;
      reason: string | null;
      decidedBy: string | null;
      decidedAt: string;
      node: string;
    };
  }
}

export {};
