import type { Framework } from '@fw/runtime';
import type { AuditSink } from './audit.js';
import type { ControlAuthorizer } from './authorizer.js';
import type { AdminService } from './service.js';

/**
 * What the admin plane adds to the kernel's typed maps: the control-action event (admin spec §6)
 * and its services. It reads `'mcp'`, `'agent'` (declared by those packages) and the kernel's
 * `'cluster'`, and publishes `'principal-resolver'` for the MCP sessions.
 */
declare module '@fw/runtime' {
  interface FwEventMap {
    ControlActionExecuted: { action: string; target: string; principal: string | null; success: boolean; outcome: string; reason?: string };
  }
  interface FwServices {
    /** The admin plane (the Fastify plugin, the admin MCP tools and tests read it). */
    admin: AdminService;
    /** The app's authorizer of control actions; looked up at every write, so it may change after start. */
    'admin.authorizer': ControlAuthorizer;
    /** Where audit records are kept durably, instead of the file / store defaults. */
    'admin.audit-sink': AuditSink;
  }
}

/** Counts control actions in fw's metrics (docs/operations.md), when metrics are on. */
export function countControlActions(fw: Framework): void {
  if (!fw.metrics.enabled) return;
  const controls = fw.metrics.tally('fw_admin_control_actions_total', 'Admin control actions by action and success', ['action', 'success']);
  fw.events.on('ControlActionExecuted', (e) => controls({ action: e.action, success: String(e.success) }));
}
