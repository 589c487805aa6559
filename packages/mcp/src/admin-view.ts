/**
 * What `@fw/mcp` publishes for the admin plane, as the service `'mcp'`
 * (`fw.services.get<McpAdminView>('mcp')`). Read-only; every list reflects the live state.
 */
export interface McpToolInfo {
  name: string;
  description: string;
  /** JSON schema of the arguments. */
  inputSchema: Record<string, unknown>;
  /** `decorated` (from an @McpServer class) or `programmatic` (McpRegistry.get().registerTool). */
  origin: 'decorated' | 'programmatic';
  /** Path of the MCP server it is served on; null for the process-wide registry (all servers). */
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

export interface McpAdminView {
  servers(): McpServerInfo[];
  tools(): McpToolInfo[];
  resources(): McpResourceInfo[];
  prompts(): McpPromptInfo[];
  sessions(): McpSessionInfo[];
  /** Pending calls of every BiDirectionalToolBridge created in this process. */
  pendingBridgeCalls(): PendingBridgeCallInfo[];
}
