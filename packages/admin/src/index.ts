import './seams.js'; // the admin plane's event and services in the kernel's typed maps
import { AdminModule, type AdminOptions } from './module.js';

export { AdminModule, ADMIN_API_BASE, ADMIN_MCP_PATH, type AdminOptions } from './module.js';
export { ADMIN_CONFIG, DEFAULT_DOCS_URL } from './config.js';
export {
  ALLOW_ALL,
  DENY_ALL,
  REQUIRE_PRINCIPAL,
  requireRole,
  CONTROL_ACTIONS,
  REQUIRED_ROLE,
  type ControlAction,
  type ControlAuthorizer,
} from './authorizer.js';
export { CONTENT_ROLE, mayReadContent } from './content.js';
export { adminTokenAuthenticator, bearerTokenResolver, isLoopback, TOKEN_PRINCIPAL, type ClientAddress } from './principal.js';
export { AdminGate, type GateResult, type GateOptions, type CheckOptions } from './gate.js';
export {
  AuditLog,
  AuditUnavailableError,
  AUDIT_OUTCOMES,
  AUDIT_CLASSES,
  auditClassOf,
  type AuditClass,
  type AuditLimits,
  type AuditEntry,
  type AuditOutcome,
  type AuditQuery,
  type AuditRecord,
  type AuditSink,
  type AuditSource,
  type AuditStatus,
} from './audit.js';
export { FileAuditSink, refusalFileOf, type FileSinkOptions } from './audit-file.js';
export {
  DEFAULT_REFUSAL_LIMITS,
  MANY_ADDRESSES,
  RefusalWindows,
  type RefusalLimits,
  type RefusalSummary,
  type Tally,
  type TallyKind,
} from './audit-refusals.js';
export { mountAdminMcp, type AdminMcpOptions } from './mcp-tools.js';
export { ControlPlane, type ControlCaller, type Permission } from './control.js';
export { EventStream, EVENTS_HANDLER_PATH, type EventStreamStats } from './event-stream.js';
export { History, HISTORY_TRANSPORTS, type HistoryOptions, type HistorySample, type HistoryTotals } from './history.js';
export { DASHBOARD_CSP, DASHBOARD_DIR, mountDashboard } from './dashboard.js';
export { overview, FW_VERSION, type Overview } from './overview.js';
export { collectMetrics, registerAdminMetrics, type AdminMetrics } from './metrics.js';
export { UnauthorizedError, ForbiddenError } from './errors.js';
export type { AdminService } from './service.js';

/**
 * The admin plane, to install with `await fw.use(admin())` (options: an authorizer, a principal
 * resolver, an audit sink); nothing when `fw.admin.enabled=false`.
 */
export function admin(options: AdminOptions = {}): AdminModule {
  return new AdminModule(options);
}
export {
  Governance,
  type GovernanceOptions,
  type KillSwitchReport,
  type NodeState,
} from './governance/governance.js';
export { FLEET, KillSwitch, KillSwitchArmedError, type KillSwitchState } from './governance/kill-switch.js';
export type { CancelInflightResult, PolicyReloadResult } from './governance/governance.js';
export type { CodePolicy, PolicyDecision, PolicyRequest, PolicySummary, PolicyVerdict } from './governance/policy-engine.js';
export type { DecisionRecord } from './governance/decision-log.js';
export { POLICY_FILE_SCHEMA, PolicyFileError, type PolicyDefinition, type PolicyFile, type PolicyRule } from './governance/policy-file.js';
export { PolicyDeniedError } from './governance/policy-hooks.js';
export { Budgets, type SpendReport } from './governance/budgets/budgets.js';
export type { BudgetDefinition, BudgetLimit } from './governance/budgets/budget-definition.js';
export type { BudgetReport, BudgetState } from './governance/budgets/budget-book.js';
export { BudgetExceededError } from './governance/budgets/budget-hooks.js';
export type { SpendSums } from './governance/budgets/spend-ledger.js';
export { ADMIN_AGENT, APPROVAL_STATUSES, type Approval } from './governance/approvals/approval.js';
export {
  ApprovalDecidedError,
  Approvals,
  type ApprovalRequest,
  type ApprovalSettings,
  type DecidedApproval,
} from './governance/approvals/approvals.js';
export { ApprovalDeniedError, type ApprovalNeed } from './governance/approvals/approval-hooks.js';
