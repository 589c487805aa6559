/**
 * The two eras of MCP (specification 2026-07-28, basic/versioning "Backward Compatibility with
 * Initialization-Based Versions"): *legacy* revisions open a session with `initialize`
 * (2024-11-05 … 2025-11-25); *modern* ones carry version, capabilities and client identity in
 * every request's `_meta` and keep no session. A dual-era server picks the era per request.
 */
import type { IncomingMessage } from 'node:http';

/** Revisions served statelessly with the per-request `_meta` envelope, newest first. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;

/** Revisions that use the initialize handshake (2024-11-05 is answered with the newest of these). */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** MCP error codes of 2026-07-28 (basic/index "Error Codes": -32020…-32099 are the spec's). */
export const ModernCode = {
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

/** Methods a modern request may call; everything else (initialize, ping, logging/setLevel,
 *  resources/subscribe, …) answers -32601 / HTTP 404 (transports/streamable-http "Protocol Version Header"). */
export const MODERN_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'subscriptions/listen',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  // The tasks extension (io.modelcontextprotocol/tasks, SEP-2663).
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
]);

/** Results that carry `ttlMs` / `cacheScope` (server/utilities/caching "Cacheable Results"). */
export const LIST_RESULTS: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
]);

/** Methods whose handlers may answer `input_required` (basic/patterns/mrtr). */
export const INPUT_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

export function isLegacyVersion(v: string): boolean {
  return (LEGACY_VERSIONS as readonly string[]).includes(v);
}

/**
 * Whether an HTTP request to the MCP endpoint belongs to the modern era, decided from headers
 * alone so the legacy transport keeps its own parsing: a request that names no legacy session
 * (no `Mcp-Session-Id`) and either declares a non-legacy `MCP-Protocol-Version` (every modern
 * POST must) or is a GET/DELETE, which only legacy sessions may use (modern: 405).
 */
export function isModernHttpRequest(req: IncomingMessage): boolean {
  const session = req.headers['mcp-session-id'];
  if (typeof session === 'string' && session !== '') return false;
  if (req.method === 'GET' || req.method === 'DELETE') return true;
  if (req.method !== 'POST') return false;
  const version = req.headers['mcp-protocol-version'];
  return typeof version === 'string' && version !== '' && !isLegacyVersion(version);
}

/** Whether a JSON-RPC message (any transport) carries the modern `_meta` envelope. */
export function hasModernEnvelope(message: unknown): boolean {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return false;
  const params = (message as { params?: unknown }).params;
  if (params === null || typeof params !== 'object') return false;
  const meta = (params as { _meta?: unknown })._meta;
  return meta !== null && typeof meta === 'object' && (META.protocolVersion in meta || META.clientCapabilities in meta);
}
