import type { Framework } from '@fw/runtime';
import { pendingBridgeCalls } from './bridge.js';
import { mountedServers } from './server.js';
import type { McpTask } from './modern/tasks.js';

/**
 * What `@fw/mcp` publishes for the admin plane, as the service `'mcp'`
 * (`fw.services.get('mcp')`). Read-only; every list reflects the live state.
 */
export interface McpToolInfo {
  name: string;
  description: string;
  /** JSON schema of the arguments. */
  inputSchema: Record<string, unknown>;
  /** `decorated` (from an @McpServer class) or `programmatic` (McpRegistry.of(fw).registerTool, the framework's registry). */
  origin: 'decorated' | 'programmatic';
  /** Path of the MCP server it is served on; null for the framework's registry (McpRegistry.of(fw)), which every server serves. */
  server: string | null;
}

export interface McpResourceInfo {
  uri: string;
  name: string;
  description: string;
  mimeType: string;
  template: boolean;
  origin: 'decorated' | 'programmatic';
  server: string | null;
}

export interface McpPromptInfo {
  name: string;
  description: string;
  arguments: { name: string; description: string; required: boolean }[];
  origin: 'decorated' | 'programmatic';
  server: string | null;
}

export interface McpServerInfo {
  name: string;
  version: string;
  path: string;
  sessions: number;
}

export interface McpSessionInfo {
  id: string;
  server: string;
  transport: 'streamable-http' | 'websocket';
  protocolVersion: string;
  clientName: string | null;
  clientVersion: string | null;
  principal: string | null;
  createdAt: string;
  lastActivityAt: string;
  requests: number;
}

export interface PendingBridgeCallInfo {
  id: string;
  resourceUuid: string;
  toolName: string;
  startedAt: string;
  timeoutMs: number;
}

/**
 * A task of the tasks extension (2026-07-28), shaped like the agent module's TaskInfo so the
 * admin Tasks view lists both: `protocol: 'mcp'`, `agentName` is the tool, `contextId` the
 * endpoint path. Results are not exposed here (they may hold the caller's data).
 */
export interface McpTaskInfo {
  id: string;
  contextId: string;
  agentName: string;
  state: string;
  createdAt: string;
  updatedAt: string;
  message?: string;
  protocol: 'mcp';
  /** Who created it: `principal:<id>` or `anonymous` (an anonymous caller's owner key is never shown). */
  owner: string;
}

export interface McpAdminView {
  servers(): McpServerInfo[];
  tools(): McpToolInfo[];
  resources(): McpResourceInfo[];
  prompts(): McpPromptInfo[];
  sessions(): McpSessionInfo[];
  /** Pending calls of every BiDirectionalToolBridge created in this process. */
  pendingBridgeCalls(): PendingBridgeCallInfo[];
  /** Tasks of the tasks extension on every endpoint. */
  tasks(): McpTaskInfo[];
  /** An operator's cancel (any owner): the handler is aborted. Undefined when no such task. */
  cancelTask(taskId: string, reason: string): McpTaskInfo | undefined;
}

/** The live view published as the service `'mcp'`. */
export function createAdminView(fw: Framework): McpAdminView {
  const mounts = () => mountedServers(fw);
  // Null ("every server") only for what the framework's own registry holds, which every endpoint
  // serves; anything else (a decorated class, a registry given to one mount, such as the admin
  // tools of /fw/admin/mcp) is served on its mount's path only.
  const shared = () => fw.services.get('mcp.registry');
  const serverOf = (inShared: boolean, path: string): string | null => (inShared ? null : path);
  return {
    servers: () =>
      mounts().map((m) => ({
        name: m.endpoint.identity.name,
        version: m.endpoint.identity.version,
        path: m.endpoint.path,
        sessions: m.endpoint.sessionCount,
      })),
    tools: () =>
      unique(
        mounts().flatMap((m) =>
          m.endpoint.catalog.tools().map(
            (t): McpToolInfo => ({
              name: t.name,
              description: t.description,
              inputSchema: t.inputSchema,
              origin: t.origin,
              server: serverOf(shared()?.findTool(t.name) === t, m.endpoint.path),
            }),
          ),
        ),
        (t) => `${t.server}|${t.name}`,
      ),
    resources: () =>
      unique(
        mounts().flatMap((m) =>
          [...m.endpoint.catalog.resources(), ...m.endpoint.catalog.templates()].map(
            (r): McpResourceInfo => ({
              uri: r.uri,
              name: r.name,
              description: r.description,
              mimeType: r.mimeType,
              template: r.template !== undefined,
              origin: r.origin,
              server: serverOf(shared()?.resourceByUri(r.uri) === r, m.endpoint.path),
            }),
          ),
        ),
        (r) => `${r.server}|${r.uri}`,
      ),
    prompts: () =>
      unique(
        mounts().flatMap((m) =>
          m.endpoint.catalog.prompts().map(
            (p): McpPromptInfo => ({
              name: p.name,
              description: p.description,
              arguments: p.params.map((a) => ({ name: a.name, description: a.description, required: a.required })),
              origin: p.origin,
              server: serverOf(shared()?.prompt(p.name) === p, m.endpoint.path),
            }),
          ),
        ),
        (p) => `${p.server}|${p.name}`,
      ),
    sessions: () =>
      mounts().flatMap((m) =>
        m.endpoint.allSessions().map(
          (s): McpSessionInfo => ({
            id: s.id,
            server: m.endpoint.path,
            transport: s.transport,
            protocolVersion: s.protocolVersion,
            clientName: s.clientInfo?.name ?? null,
            clientVersion: s.clientInfo?.version ?? null,
            principal: s.principal?.id ?? null,
            createdAt: new Date(s.createdAt).toISOString(),
            lastActivityAt: new Date(s.lastActivity).toISOString(),
            requests: s.requests,
          }),
        ),
      ),
    tasks: () => mounts().flatMap((m) => m.endpoint.protocol.tasks.all().map(taskInfo)),
    cancelTask: (taskId, reason) => {
      for (const m of mounts()) {
        if (m.endpoint.protocol.tasks.cancelAny(taskId, reason)) {
          const t = m.endpoint.protocol.tasks.all().find((x) => x.id === taskId);
          return t ? taskInfo(t) : undefined;
        }
      }
      return undefined;
    },
    pendingBridgeCalls: () =>
      pendingBridgeCalls(fw).map((c) => ({
        id: c.id,
        resourceUuid: c.resourceUuid,
        toolName: c.toolName,
        startedAt: new Date(c.startedAt).toISOString(),
        timeoutMs: c.timeoutMs,
      })),
  };
}

function taskInfo(t: McpTask): McpTaskInfo {
  const s = t.summary();
  return {
    id: s.taskId,
    contextId: s.server,
    agentName: s.tool,
    state: s.status,
    createdAt: s.createdAt,
    updatedAt: s.lastUpdatedAt,
    ...(s.statusMessage !== undefined ? { message: s.statusMessage } : {}),
    protocol: 'mcp',
    owner: s.owner,
  };
}

function unique<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((t) => {
    const k = key(t);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
