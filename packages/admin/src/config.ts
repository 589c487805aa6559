import { defineConfig, type Authenticator, type ConfigTypes } from '@fw/runtime';
import type { ControlAuthorizer } from './authorizer.js';

/** The repository's docs, where the dashboard's Docs link points unless fw.admin.docs-url says otherwise. */
export const DEFAULT_DOCS_URL = 'https://github.com/fw-contributors/fw/tree/main/docs';

/** The admin plane's configuration keys; each is documented in docs/admin.md. */
export const ADMIN_CONFIG = defineConfig({
  'fw.admin.enabled': { type: 'boolean', default: true, description: 'Master switch: `fw.use(admin())` installs nothing when false' },
  'fw.admin.mcp-tools': {
    type: 'boolean',
    default: true,
    description:
      'Serve the read-only admin MCP tools (fw_list_agents, …) on the admin MCP endpoint `/fw/admin/mcp` when @fw/mcp is present',
  },
  'fw.admin.mcp-write-tools': {
    type: 'boolean',
    default: false,
    description: 'Serve the write admin MCP tools too (fw_broadcast, fw_destroy_broadcaster, …); each still needs its role',
  },
  'fw.admin.governance.sync-interval': {
    type: 'number',
    default: 5000,
    description:
      "Cluster mode: how often (ms) a node reads the kill switch's shared state again, to catch a change it missed while Redis was away; 0: only at start",
  },
  'fw.admin.governance.policy-file': {
    type: 'string',
    default: '',
    description:
      'JSON policy file (docs/governance.md): read at start (a bad file stops the start) and by POST /api/admin/governance/reload; empty: no file, only code policies',
  },
  'fw.admin.governance.decision-log-size': {
    type: 'number',
    default: 1000,
    description: 'Policy decisions kept in memory for GET /api/admin/governance/decisions (oldest overwritten first)',
  },
  'fw.governance.approval-timeout': {
    type: 'number',
    default: 900_000,
    description:
      "How long (ms) a human approval waits before it expires, which denies it (docs/governance.md, 'Human approval'); a tool's own `approval.timeoutMs` or a policy's `timeout_seconds` wins",
  },
  'fw.governance.approval-retention': {
    type: 'number',
    default: 604_800_000,
    description:
      'How long (ms) decided approvals (approved, denied, expired) stay in the store for GET /api/admin/approvals; pending ones stay until decided',
  },
  'fw.governance.approval-sweep-interval': {
    type: 'number',
    default: 5000,
    description:
      'How often (ms) a node expires the pending approvals whose time ran out (those of a restarted or another node included), sees decisions made on other nodes and prunes decided ones past their retention; 0: no sweep (only the expiry timers of the node that created them)',
  },
  'fw.admin.mcp-approval': {
    type: 'boolean',
    default: false,
    description:
      'The dangerous admin MCP tools (fw_broadcast, fw_disconnect_resource, fw_destroy_broadcaster, fw_cancel_task, fw_kill_switch_arm, fw_kill_switch_disarm) called over /fw/admin/mcp create an approval instead of acting; a human approves it over REST and the action runs then',
  },
  'fw.admin.mcp-tools-on-user-server': {
    type: 'boolean',
    default: false,
    description: "Also offer the fw_* tools on the app's own MCP server at `/mcp` (to clients the admin gate admits only)",
  },
  'fw.admin.auth.token': {
    type: 'string',
    default: '',
    description:
      'Bearer token of the built-in `admin` principal (REST: Authorization header; sockets: ?access_token=); at least 16 characters, like every fw token; `fw.auth.tokens` names more principals',
  },
  'fw.admin.allow-remote-unauthenticated': {
    type: 'boolean',
    default: false,
    description: 'Let non-loopback clients use the admin plane while no authentication is configured (warned at startup)',
  },
  'fw.admin.audit.max-entries': {
    type: 'number',
    default: 10_000,
    description: 'Write, credential and configuration audit records kept in memory (oldest dropped first; refusals have their own cap)',
  },
  'fw.admin.audit.file': {
    type: 'string',
    default: '',
    description:
      "JSON Lines file of the audit log; empty: the store's PostgreSQL (table `fw_admin_audit`) when `fw.store.postgres-url` is set, else `audit.jsonl` in `fw.data-dir` (memory only when `fw.data-dir` is empty too)",
  },
  'fw.admin.audit.max-file-bytes': {
    type: 'number',
    default: 10_485_760,
    description:
      'Size past which the audit file of write, credential and configuration records is rotated (`audit.jsonl` → `audit.jsonl.1` …)',
  },
  'fw.admin.audit.store-max-entries': {
    type: 'number',
    default: 1_000_000,
    description:
      'Write, credential and configuration audit records kept in the store (used when `fw.store.postgres-url` is set and `fw.admin.audit.file` is not); older ones are deleted',
  },
  'fw.admin.audit.max-files': {
    type: 'number',
    default: 5,
    description: 'Rotated audit files kept besides the live one (older ones are deleted)',
  },
  'fw.admin.audit.refusals.window': {
    type: 'duration',
    default: 60_000,
    description:
      'Refused and malformed attempts are aggregated per caller (address, IPv6 by /64, and principal), action and outcome over this window: one record with a count, first/last time and the targets and reasons seen ([security](security.md#audit-log))',
  },
  'fw.admin.audit.refusals.max-open': {
    type: 'number',
    default: 1000,
    description:
      'Refusal windows open at once (distinct callers × action × outcome); past it refusals go into one "many addresses" record per window',
  },
  'fw.admin.audit.refusals.max-distinct': {
    type: 'number',
    default: 10,
    description:
      'Distinct targets, reasons, sources (and in the "many addresses" record addresses, principals, actions, outcomes) one refusal record names; more are only counted',
  },
  'fw.admin.audit.refusals.max-value-length': {
    type: 'number',
    default: 256,
    description: 'Longest target or reason a refusal record keeps (characters; a longer one is cut and marked with …)',
  },
  'fw.admin.audit.refusals.max-entries': {
    type: 'number',
    default: 10_000,
    description:
      'Refusal records kept in memory, apart from the write records (`fw.admin.audit.max-entries`), so refusals never push those out',
  },
  'fw.admin.audit.refusals.max-file-bytes': {
    type: 'number',
    default: 10_485_760,
    description: 'Size past which the refusal file (`audit.refusals.jsonl` beside the audit file) is rotated',
  },
  'fw.admin.audit.refusals.max-files': {
    type: 'number',
    default: 5,
    description: 'Rotated refusal files kept besides the live one (older ones are deleted)',
  },
  'fw.admin.audit.refusals.store-max-entries': {
    type: 'number',
    default: 100_000,
    description:
      'Refusal records kept in the store (PostgreSQL mode), counted apart from the write records (`fw.admin.audit.store-max-entries`)',
  },
  'fw.admin.events.recent': {
    type: 'number',
    default: 200,
    description: 'Size of the ring of recent events served by GET /api/admin/events/recent',
  },
  'fw.admin.events.max-queue': {
    type: 'number',
    default: 1000,
    description: 'Events queued for the event stream between flushes; past it the oldest are dropped and counted',
  },
  'fw.admin.history.interval-ms': {
    type: 'number',
    default: 5000,
    description:
      "Milliseconds between two samples of the dashboard's time series (GET /api/admin/history, `HistorySample` frames); at least 100",
  },
  'fw.admin.history.samples': {
    type: 'number',
    default: 180,
    description:
      'Samples of the time series kept (oldest dropped first); interval × samples is the window a dashboard opened late still charts (default 15 minutes); 1 to 100000',
  },
  'fw.admin.docs-url': {
    type: 'string',
    default: DEFAULT_DOCS_URL,
    description: "Where the dashboard's Docs link points (an http or https URL)",
  },
  'fw.admin.page.default-limit': { type: 'number', default: 100, description: 'Page size of list endpoints when ?limit= is absent' },
  'fw.admin.page.max-limit': { type: 'number', default: 1000, description: 'Largest ?limit= a list endpoint accepts (larger is a 400)' },
  'fw.admin.max-body': {
    type: 'number',
    default: 65_536,
    description: 'Largest request body (bytes) an admin write endpoint accepts (larger is a 413)',
  },
});

declare module '@fw/runtime' {
  interface FwConfigKeys extends ConfigTypes<typeof ADMIN_CONFIG> {}
  interface FrameworkOptions {
    /** Decides every admin write (docs/admin.md); the `admin.authorizer` service and the module option win over it. */
    adminAuthorizer?: ControlAuthorizer;
    /** Resolves the admin caller's principal before the admin token and fw.auth.* (docs/admin.md). */
    adminPrincipalResolver?: Authenticator;
  }
}
