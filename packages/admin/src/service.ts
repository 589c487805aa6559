import type { AuditLog } from './audit.js';
import type { ControlPlane } from './control.js';
import type { EventStream } from './event-stream.js';
import type { AdminGate } from './gate.js';
import type { Governance } from './governance/governance.js';
import type { History } from './history.js';
import type { Views } from './views.js';

/** What the admin module publishes as the service `'admin'` (for the Fastify plugin, the cluster module, tests). */
export interface AdminService {
  readonly views: Views;
  readonly control: ControlPlane;
  readonly audit: AuditLog;
  readonly events: EventStream;
  readonly gate: AdminGate;
  /** The time series of the dashboard's charts (GET /api/admin/history). */
  readonly history: History;
  /** The kill switch (docs/governance.md). */
  readonly governance: Governance;
  readonly authRequired: boolean;
  readonly mcpWriteTools: boolean;
  /** fw.admin.mcp-approval: the dangerous admin MCP tools wait for a human's approval. */
  readonly mcpApproval: boolean;
  readonly pageDefault: number;
  readonly pageMax: number;
  /** Serves the dashboard at another path as well (the Fastify deployment's `/admin`). */
  mountDashboard(prefix: string): () => void;
}
