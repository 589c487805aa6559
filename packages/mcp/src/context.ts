import type { Broadcaster, Framework, Principal, RuntimeView } from '@fw/runtime';

export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** What a tool, resource or prompt handler learns about the MCP session that called it. */
export interface McpSessionHandle {
  readonly id: string;
  /** Path of the MCP endpoint (`/mcp`). */
  readonly server: string;
  readonly transport: 'streamable-http' | 'websocket';
  readonly protocolVersion: string;
  readonly clientInfo: { name: string; version: string } | undefined;
  readonly clientCapabilities: Record<string, unknown>;
  /** Who opened the session (set by the principal resolver at initialize / upgrade). */
  readonly principal: Principal | undefined;
  /** The client's address when it opened the session (behind a trusted proxy: the forwarded one). */
  readonly clientAddress: string | undefined;
  /** Per-session scratch space for the application. */
  readonly attributes: Map<string, unknown>;
}

/**
 * Injected into every handler: the second argument of programmatic handlers, and any parameter
 * of a decorated method that carries no `@McpParam`.
 */
export interface McpContext {
  readonly fw: Framework;
  readonly session: McpSessionHandle;
  /** Shortcut for `session.principal`: use it to authorise what a tool does. */
  readonly principal: Principal | undefined;
  /** Aborted when the client cancels the request (`notifications/cancelled`) or the session ends. */
  readonly signal: AbortSignal;
  /** The id of the JSON-RPC request being served. */
  readonly requestId: string | number;
  /** Reports progress when the client asked for it (a `_meta.progressToken`); otherwise a no-op. */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends a `notifications/message` log entry if `level` passes the session's `logging/setLevel`. */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /** A live broadcaster by id (`/fw/chat/lobby`); undefined when it does not exist. */
  broadcaster(id: string): Broadcaster | undefined;
  /** The runtime's read/control view: connections (resources), broadcasters, broadcast, disconnect. */
  readonly runtime: RuntimeView;
  /**
   * Sends a request to the MCP client (`sampling/createMessage`, `elicitation/create`,
   * `roots/list`). Under 2026-07-28 it becomes an input request of a multi round-trip
   * (keys `fw-1`, `fw-2`… in call order), exactly like {@link McpContext.input}.
   */
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /**
   * Asks the client for input and resolves with its answer (an ElicitResult, CreateMessageResult
   * or ListRootsResult). Legacy sessions: a server-to-client request. 2026-07-28: the request
   * ends with an `input_required` result and the handler runs again, from the top, when the
   * client retries with the answer — so code before `input` must be safe to repeat. Rejects with
   * -32021 when the client did not declare the capability the method needs.
   */
  input(key: string, method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Several inputs at once (one round trip under 2026-07-28); resolves with the answers by key. */
  inputs(requests: Record<string, { method: string; params?: Record<string, unknown> }>): Promise<Record<string, Record<string, unknown>>>;
  /**
   * For tools declared `task: { start: 'handler' }`: turns the call into a task now (the client
   * gets its `CreateTaskResult`) and resolves true; the handler runs on, its later `input()`
   * calls park the task in `input_required` until `tasks/update` answers them. Resolves false
   * (and the call stays synchronous) when the tool or the client does not do tasks.
   */
  startTask(): Promise<boolean>;
}
