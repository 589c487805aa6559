import type { ConfigSchema } from '@fw/runtime';

/** The admin plane's configuration keys; each is documented in docs/admin.md. */
export const ADMIN_CONFIG: ConfigSchema = {
  'fw.admin.enabled': { type: 'boolean', default: true, description: 'Master switch for the admin module' },
  'fw.admin.mcp-tools': { type: 'boolean', default: true, description: 'Register the read-only admin MCP tools (fw_list_agents, …) when @fw/mcp is present' },
  'fw.admin.mcp-write-tools': { type: 'boolean', default: false, description: 'Register the write admin MCP tools (fw_broadcast, …); dangerous, opt-in' },
  'fw.admin.auth.token': { type: 'string', default: '', description: 'Bearer token required on every admin surface when set (REST: Authorization header; sockets: ?access_token=)' },
  'fw.admin.allow-remote-unauthenticated': { type: 'boolean', default: false, description: 'Let non-loopback clients use the admin plane while no authentication is configured (warned at startup)' },
  'fw.admin.audit.max-entries': { type: 'number', default: 10_000, description: 'Audit entries kept in memory (oldest dropped first)' },
  'fw.admin.audit.file': { type: 'string', default: '', description: 'Optional JSON Lines file the audit log is appended to and reloaded from at start' },
  'fw.admin.events.recent': { type: 'number', default: 200, description: 'Size of the ring of recent events served by GET /api/admin/events/recent' },
  'fw.admin.events.max-queue': { type: 'number', default: 1000, description: 'Events queued for the event stream between flushes; past it the oldest are dropped and counted' },
  'fw.admin.page.default-limit': { type: 'number', default: 100, description: 'Page size of list endpoints when ?limit= is absent' },
  'fw.admin.page.max-limit': { type: 'number', default: 1000, description: 'Largest ?limit= a list endpoint accepts (larger is a 400)' },
  'fw.admin.max-body': { type: 'number', default: 65_536, description: 'Largest request body (bytes) an admin write endpoint accepts (larger is a 413)' },
};
