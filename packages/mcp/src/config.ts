import { type Config, defineConfig, type ConfigTypes, websocketMaxFragments } from '@fw/runtime';
import type { TaskLimits } from './modern/tasks.js';

/** Every limit and switch of the MCP module, with its default. Documented in docs/mcp.md. */
export const MCP_CONFIG = defineConfig({
  'fw.mcp.enabled': { type: 'boolean', default: true, description: 'Master switch: `fw.use(mcp())` mounts nothing when false' },
  'fw.mcp.max-sessions': {
    type: 'number',
    default: 1000,
    description:
      'Most concurrent MCP sessions per endpoint (HTTP and WebSocket together); at it an unfinished or idle session gives way (fw.mcp.evict-when-full), and if all are in use initialize is refused with 503.',
  },
  'fw.mcp.max-sessions-per-principal': {
    type: 'number',
    default: 100,
    description:
      "The share of fw.mcp.max-sessions one authenticated principal may hold per endpoint; at it the principal's own unfinished or idle sessions give way, and if all are in use initialize is refused with 429. 0: no per-principal cap.",
  },
  'fw.mcp.max-sessions-per-address': {
    type: 'number',
    default: 64,
    description:
      "The share of fw.mcp.max-sessions anonymous callers from one client address (the runtime's client address: a trusted proxy's forwarded one counts; IPv6 by its /64) may hold per endpoint; at it the address's own unfinished or idle sessions give way, and if all are in use initialize is refused with 429. 0: no per-address cap.",
  },
  'fw.mcp.evict-when-full': {
    type: 'boolean',
    default: true,
    description:
      'At a session cap, end a session that never finished initialization, else the longest-idle one (no stream, no request running), to admit the new one; false: refuse the new one instead.',
  },
  'fw.mcp.session-idle-timeout': {
    type: 'duration',
    default: '30m',
    description: 'An HTTP session with no request and no open stream for this long is ended by the reaper.',
  },
  'fw.mcp.auth': {
    type: 'string',
    default: 'auto',
    description:
      "`auto`: when the framework's authenticator is configured (fw.auth.tokens, fw.auth.jwt.*, the app's authenticator), every request and upgrade to an MCP endpoint without its own resolver or OAuth needs a principal (401 without); `none`: anonymous callers are served and the tools decide. Without an authenticator, endpoints are open either way.",
  },
  'fw.mcp.max-body': {
    type: 'number',
    default: 4 * 1024 * 1024,
    description: 'Largest POST body / WebSocket message in bytes (413 / close 1009 past it).',
  },
  'fw.mcp.keep-alive-interval': {
    type: 'duration',
    default: '15s',
    description: 'Interval of SSE keep-alive comments and WebSocket pings; 0 disables.',
  },
  'fw.mcp.replay-buffer': {
    type: 'number',
    default: 200,
    description:
      'SSE events each Streamable HTTP session keeps (across all its streams, oldest dropped first) so a client that reconnects with Last-Event-ID gets what it missed; 0 disables replay.',
  },
  'fw.mcp.sse-retry': {
    type: 'duration',
    default: '1s',
    description: 'The SSE `retry` hint (sessions at 2025-11-25+): how long a client waits before reconnecting a dropped or polled stream.',
  },
  'fw.mcp.sse-poll-interval': {
    type: 'duration',
    default: '0',
    description:
      'SSE polling (sessions at 2025-11-25+): end each SSE connection this long after it opened, without ending its stream; the client reconnects with Last-Event-ID. 0: connections stay open.',
  },
  'fw.mcp.http-replies': {
    type: 'string',
    default: 'auto',
    description: '`auto` (SSE for tools/call when the client accepts it, else JSON), `json` or `sse`.',
  },
  'fw.mcp.page-size': {
    type: 'number',
    default: 100,
    description: 'Items per page of tools/list, resources/list, resources/templates/list and prompts/list.',
  },
  'fw.mcp.max-inflight-requests': {
    type: 'number',
    default: 100,
    description: 'Most requests one session may have running at once; past it a request gets a -32000 error.',
  },
  'fw.mcp.client-request-timeout': {
    type: 'duration',
    default: '60s',
    description: 'How long a server-to-client request (sampling, elicitation) waits for its answer.',
  },
  'fw.mcp.request-state-key': {
    type: 'string',
    default: '',
    description:
      'HMAC key that signs the `requestState` of 2026-07-28 multi round-trip requests; empty: a random key per mounted endpoint (set it when several instances serve one endpoint).',
  },
  'fw.mcp.request-state-ttl': {
    type: 'duration',
    default: '10m',
    description: 'How long a `requestState` handed to a client stays valid for its retry.',
  },
  'fw.mcp.list-cache-ttl': {
    type: 'duration',
    default: '0',
    description: '`ttlMs` hint on 2026-07-28 `server/discover` and list results (0: immediately stale).',
  },
  'fw.mcp.list-cache-scope': {
    type: 'string',
    default: 'public',
    description: '`cacheScope` hint on 2026-07-28 `server/discover` and list results: `public` or `private`.',
  },
  'fw.mcp.read-cache-ttl': { type: 'duration', default: '0', description: '`ttlMs` hint on 2026-07-28 `resources/read` results.' },
  'fw.mcp.read-cache-scope': {
    type: 'string',
    default: 'private',
    description: '`cacheScope` hint on 2026-07-28 `resources/read` results: `public` or `private`.',
  },
  'fw.mcp.max-stateless-requests': {
    type: 'number',
    default: 1000,
    description: 'Most 2026-07-28 (stateless) requests one endpoint serves at once; past it a request is refused with -32000 (HTTP 503).',
  },
  'fw.mcp.max-tasks': {
    type: 'number',
    default: 10000,
    description:
      'Most tasks (tasks extension, 2026-07-28) one endpoint keeps, running or finished within their TTL; past it a task-capable tools/call is refused with -32000.',
  },
  'fw.mcp.max-tasks-per-principal': {
    type: 'number',
    default: 1000,
    description:
      'The share of fw.mcp.max-tasks one authenticated principal may hold per endpoint (tasks running, or finished within their TTL); past it a task-capable tools/call is refused with -32000. 0: no per-principal cap.',
  },
  'fw.mcp.max-tasks-per-address': {
    type: 'number',
    default: 1000,
    description:
      'The share of fw.mcp.max-tasks anonymous callers from one client address (IPv6: its /64) may hold per endpoint (tasks running, or finished within their TTL); past it a task-capable tools/call is refused with -32000. 0: no per-address cap.',
  },
  'fw.mcp.task-ttl': {
    type: 'duration',
    default: '1h',
    description:
      'How long a task is kept after its creation (its `ttlMs`); a task still running then is cancelled, and then forgotten (tasks/get: -32602).',
  },
  'fw.mcp.task-poll-interval': {
    type: 'duration',
    default: '1s',
    description: 'The `pollIntervalMs` suggested to clients polling tasks/get.',
  },
  'fw.mcp.max-subscriptions': {
    type: 'number',
    default: 1000,
    description: 'Most open 2026-07-28 `subscriptions/listen` streams per endpoint; past it the request is refused with 503.',
  },
  'fw.mcp.max-subscriptions-per-principal': {
    type: 'number',
    default: 100,
    description:
      'The share of fw.mcp.max-subscriptions one authenticated principal may hold open per endpoint; past it the request is refused with 429. 0: no per-principal cap.',
  },
  'fw.mcp.max-subscriptions-per-address': {
    type: 'number',
    default: 100,
    description:
      'The share of fw.mcp.max-subscriptions anonymous callers from one client address (IPv6: its /64) may hold open per endpoint; past it the request is refused with 429. 0: no per-address cap.',
  },
  'fw.mcp.max-resource-subscriptions': {
    type: 'number',
    default: 1000,
    description:
      'Most resource URIs one legacy session may subscribe to (resources/subscribe), and one `subscriptions/listen` stream may list in resourceSubscriptions; past it the request is refused with -32602.',
  },
  'fw.mcp.max-uri-length': {
    type: 'number',
    default: 8192,
    description:
      'Longest resource URI (characters) a request may carry (resources/read, resources/subscribe, completion, resourceSubscriptions); longer ones are refused with -32602 before any template is matched.',
  },
  'fw.mcp.bridge.max-pending': {
    type: 'number',
    default: 10000,
    description:
      'Most calls a BiDirectionalToolBridge created with this framework keeps pending at once (its `maxPending` option wins); past it a call is refused (BridgeLimitError).',
  },
  'fw.mcp.bridge.max-pending-per-principal': {
    type: 'number',
    default: 1000,
    description:
      "The share of fw.mcp.bridge.max-pending the connections of one authenticated principal may have pending at once; past it a call to that principal's client is refused (BridgeLimitError). 0: no per-principal cap.",
  },
  'fw.mcp.bridge.max-pending-per-address': {
    type: 'number',
    default: 1000,
    description:
      'The share of fw.mcp.bridge.max-pending the anonymous connections from one client address (IPv6: its /64) may have pending at once; past it a call to such a client is refused (BridgeLimitError). 0: no per-address cap.',
  },
});

declare module '@fw/runtime' {
  interface FwConfigKeys extends ConfigTypes<typeof MCP_CONFIG> {}
}
/** The resolved limits of one endpoint, read once at mount time. */
export interface McpLimits {
  maxSessions: number;
  maxSessionsPerPrincipal: number;
  maxSessionsPerAddress: number;
  evictWhenFull: boolean;
  idleTimeoutMs: number;
  maxBody: number;
  /** `fw.websocket.max-fragments` (the runtime's key): frames one WebSocket message may span. */
  maxFragments: number;
  /** `fw.limits.json-depth` (the runtime's key): deeper messages are a -32600 before parsing. */
  jsonDepth: number;
  keepAliveMs: number;
  replayBuffer: number;
  sseRetryMs: number;
  ssePollIntervalMs: number;
  httpReplies: 'auto' | 'json' | 'sse';
  pageSize: number;
  maxInflight: number;
  clientRequestTimeoutMs: number;
  requestStateKey: string;
  requestStateTtlMs: number;
  listCache: { ttlMs: number; scope: 'public' | 'private' };
  readCache: { ttlMs: number; scope: 'public' | 'private' };
  maxSubscriptions: number;
  maxSubscriptionsPerPrincipal: number;
  maxSubscriptionsPerAddress: number;
  /** Resource URIs per legacy session / per listen stream. */
  maxResourceSubscriptions: number;
  /** Longest URI a request may carry, checked before matching. */
  maxUriLength: number;
  maxStatelessRequests: number;
  tasks: TaskLimits;
}

export function readLimits(config: Config): McpLimits {
  const get = config.get.bind(config);
  const replies = get('fw.mcp.http-replies');
  return {
    maxSessions: get('fw.mcp.max-sessions'),
    maxSessionsPerPrincipal: Math.max(0, get('fw.mcp.max-sessions-per-principal')),
    maxSessionsPerAddress: Math.max(0, get('fw.mcp.max-sessions-per-address')),
    evictWhenFull: get('fw.mcp.evict-when-full'),
    idleTimeoutMs: get('fw.mcp.session-idle-timeout'),
    maxBody: get('fw.mcp.max-body'),
    maxFragments: websocketMaxFragments(config),
    jsonDepth: get('fw.limits.json-depth'),
    keepAliveMs: get('fw.mcp.keep-alive-interval'),
    replayBuffer: Math.max(0, get('fw.mcp.replay-buffer')),
    sseRetryMs: Math.max(0, get('fw.mcp.sse-retry')),
    ssePollIntervalMs: Math.max(0, get('fw.mcp.sse-poll-interval')),
    httpReplies: replies === 'json' || replies === 'sse' ? replies : 'auto',
    pageSize: Math.max(1, get('fw.mcp.page-size')),
    maxInflight: Math.max(1, get('fw.mcp.max-inflight-requests')),
    clientRequestTimeoutMs: get('fw.mcp.client-request-timeout'),
    requestStateKey: get('fw.mcp.request-state-key'),
    requestStateTtlMs: get('fw.mcp.request-state-ttl'),
    listCache: {
      ttlMs: Math.max(0, Math.round(get('fw.mcp.list-cache-ttl'))),
      scope: get('fw.mcp.list-cache-scope') === 'private' ? 'private' : 'public',
    },
    readCache: {
      ttlMs: Math.max(0, Math.round(get('fw.mcp.read-cache-ttl'))),
      scope: get('fw.mcp.read-cache-scope') === 'public' ? 'public' : 'private',
    },
    maxSubscriptions: Math.max(0, get('fw.mcp.max-subscriptions')),
    maxSubscriptionsPerPrincipal: Math.max(0, get('fw.mcp.max-subscriptions-per-principal')),
    maxSubscriptionsPerAddress: Math.max(0, get('fw.mcp.max-subscriptions-per-address')),
    maxResourceSubscriptions: Math.max(0, get('fw.mcp.max-resource-subscriptions')),
    maxUriLength: Math.max(1, get('fw.mcp.max-uri-length')),
    maxStatelessRequests: Math.max(1, get('fw.mcp.max-stateless-requests')),
    tasks: {
      maxTasks: Math.max(0, get('fw.mcp.max-tasks')),
      maxTasksPerPrincipal: Math.max(0, get('fw.mcp.max-tasks-per-principal')),
      maxTasksPerAddress: Math.max(0, get('fw.mcp.max-tasks-per-address')),
      // Integer milliseconds on the wire (SEP-2663: ttlMs / pollIntervalMs are integers > 0).
      ttlMs: Math.max(1, Math.round(get('fw.mcp.task-ttl'))),
      pollIntervalMs: Math.max(1, Math.round(get('fw.mcp.task-poll-interval'))),
    },
  };
}
