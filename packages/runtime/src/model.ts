/**
 * The runtime model as the other modules see it. The runtime implements these; the add-on
 * packages (MCP, agents, admin, cluster mode) program against them only.
 */
import type { IncomingMessage } from 'node:http';
import type { CredentialEnd } from './auth/credentials.js';
import type { TransportName } from './events.js';

export type { TransportName };

/** Who is making a request or holds a connection. Resolved by a pluggable resolver (admin: bearer token). */
export interface Principal {
  id: string;
  roles?: readonly string[];
  /**
   * When the credential stops being good, in epoch milliseconds (the JWT authenticator sets it
   * from `exp`; a custom authenticator may). Sockets opened with it close then (`fw.credentials`).
   */
  expiresAt?: number;
  [claim: string]: unknown;
}

/** One logical client connection. */
export interface Resource {
  /** Stable across reconnects of the same fw client (the tracking id). */
  readonly uuid: string;
  readonly transport: TransportName;
  /** `fw` when the client speaks fw's framing protocol, `raw` for a plain WebSocket/EventSource client. */
  readonly protocol: 'fw' | 'raw';
  /** Request path (with the framework prefix, e.g. `/fw/chat/lobby`) and matched handler params. */
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly remoteAddress: string;
  readonly connectedAt: number;
  /** Ids of the broadcasters this resource belongs to. */
  readonly broadcasters: ReadonlySet<string>;
  readonly attributes: Map<string, unknown>;
  principal: Principal | undefined;
  readonly closed: boolean;
  /** Sends one message to this resource only. Returns false when it was dropped (closed, slow consumer). */
  write(message: string | object): boolean;
  /**
   * Closes the connection; an fw client receives `reason` in the close frame and does not
   * reconnect. `code` is the WebSocket close code (default 4000; 1008 for a policy end such as an
   * expired credential).
   */
  close(reason?: string, code?: number): void;
  /** Messages this client sends (text). Returns an unsubscribe function. */
  onMessage(listener: (data: string) => void): () => void;
  /**
   * Sends a bidirectional-tool-bridge call (docs/protocol.md, "The bidirectional tool bridge"):
   * an fw client gets it as a `tool-call` frame, which it never hands to the application; a raw
   * client gets `payload` as an ordinary message. Returns false when it was dropped.
   */
  writeToolCall(payload: string): boolean;
  /**
   * Sends an fw-protocol control frame (a whole frame, e.g. a room's `presence`), not a message:
   * it is not numbered and not replayed by a resume once written; a resource without a connection
   * keeps it until it reconnects. A raw client gets nothing (it has no frames): returns false.
   */
  writeControl(frame: string): boolean;
  /**
   * Bridge answers from this client: an fw client's `tool-response` frames, and a raw client's
   * messages that look like one. A listener returns true when the answer was for one of its
   * pending calls; only then is a raw client's message kept from the application. Answers never
   * reach the handler or a broadcaster.
   */
  onToolResponse(listener: (data: string) => boolean): () => void;
  onClose(listener: (reason: string) => void): () => void;
}

/** A pub/sub topic with a path-like id (`/fw/chat/lobby`). */
export interface Broadcaster {
  readonly id: string;
  readonly createdAt: number;
  /** Internal broadcasters (the admin event stream) emit no MessageBroadcast events. */
  readonly internal: boolean;
  readonly resources: ReadonlySet<Resource>;
  readonly size: number;
  /** Encodes once and delivers to every member (or to `only` when given). Returns how many it reached. */
  broadcast(message: string | object, only?: Iterable<Resource>): number;
  /** Unicast to one member. */
  broadcastTo(message: string | object, resource: Resource): boolean;
  add(resource: Resource): void;
  remove(resource: Resource): void;
  /** Resources whose owning broadcaster this is are closed with the reason; other members just leave. */
  destroy(reason?: string): void;
}

export interface BroadcasterOptions {
  internal?: boolean;
  /** Replay cache length for reconnecting clients (messages). */
  replayCacheSize?: number;
}

/** Application code bound to a path pattern under the framework path (`/chat/{room}`). */
export interface Handler {
  /** Called once the resource is connected (and has joined its default broadcaster). */
  open?(resource: Resource): void | Promise<void>;
  /** A message from the client. */
  message?(resource: Resource, data: string): void | Promise<void>;
  close?(resource: Resource, reason: string): void;
  /**
   * The credential the resource was opened with expired or was revoked (`fw.credentials`). Called
   * before the runtime closes the connection (an fw client gets the `close` frame with
   * `credential_expired` / `credential_revoked`, then the resource waits `fw.resume.grace` for a
   * new credential): the handler may write a last message, stop work done for that principal, or
   * end the resource itself (`resource.close`). The runtime watches the credential; a handler
   * never needs a watch of its own.
   */
  credentialEnded?(resource: Resource, reason: CredentialEnd): void;
}

export interface HandlerOptions {
  /** Broadcaster a new resource joins: default its request path; `null` joins none. */
  broadcaster?: ((resource: Resource) => string | null) | null;
  interceptors?: Interceptor[];
  /** Description for the admin plane. */
  description?: string;
}

/** The request a connection is made with, as an interceptor sees it. */
export interface ConnectContext {
  readonly req: IncomingMessage;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly transport: TransportName;
  readonly url: URL;
  principal: Principal | undefined;
  readonly attributes: Map<string, unknown>;
}

/** Thrown (or returned via `reject`) by an interceptor to refuse a connection with a status. */
export interface InterceptorRejection {
  status: number;
  code: string;
  detail: string;
}

/**
 * Interceptors run in order around every connection of the handlers they apply to (global ones
 * before per-handler ones). `connect` may refuse with a rejection; `attach` is called once the
 * resource exists (to start timers, wrap writes, …) and returns an optional cleanup.
 */
export interface Interceptor {
  readonly name: string;
  connect?(ctx: ConnectContext): void | InterceptorRejection | Promise<void | InterceptorRejection>;
  attach?(resource: Resource): void | (() => void);
  /** Called once when a resource it was attached to is gone (an alternative to a per-resource cleanup closure). */
  detach?(resource: Resource): void;
  /** Sees every inbound client message; return false to swallow it. */
  inbound?(resource: Resource, data: string): boolean | void;
}

export interface BroadcasterInfo {
  id: string;
  resourceCount: number;
  createdAt: string;
  internal: boolean;
  messages: number;
  replayCacheSize: number;
  /** Messages lost on the way to members, each said to the client with a gap frame (slow-consumer drops, cluster broadcasts never received). */
  lost: number;
  /** Messages replayed to reconnecting clients or recovered from the replay store after a cluster link outage. */
  recovered: number;
  /** The broadcaster sequences (`bid`) its in-memory replay cache holds, or null when empty. */
  replayWindow: { first: number; last: number } | null;
}

export interface ResourceInfo {
  uuid: string;
  transport: TransportName;
  protocol: 'fw' | 'raw';
  path: string;
  broadcasters: string[];
  /** The broadcaster it joined on connect (spec: its owning broadcaster). */
  broadcaster: string | null;
  remoteAddress: string;
  connectedAt: string;
  principal: string | null;
  messagesIn: number;
  messagesOut: number;
  dropped: number;
}

export interface HandlerInfo {
  path: string;
  interceptors: string[];
  description: string;
  resourceCount: number;
}

export interface InterceptorInfo {
  name: string;
  scope: 'global' | 'handler';
  /** For handler-scoped interceptors: the handler path. */
  handler: string | null;
  order: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  offset: number;
  limit: number;
}

export interface ResourceQuery {
  broadcaster?: string;
  transport?: TransportName;
  /** Substring match on uuid, path or remote address. */
  search?: string;
  offset?: number;
  limit?: number;
}

export interface RuntimeStats {
  connections: number;
  broadcasters: number;
  handlers: number;
  interceptors: number;
  messagesIn: number;
  messagesOut: number;
  broadcasts: number;
  dropped: number;
  slowConsumerDisconnects: number;
  startedAt: string;
}

/**
 * What the admin plane (and the cluster module) reads and controls. Control methods throw
 * NotFoundError for an unknown target.
 */
export interface RuntimeView {
  stats(): RuntimeStats;
  listBroadcasters(): BroadcasterInfo[];
  getBroadcaster(id: string): BroadcasterInfo | undefined;
  listResources(query?: ResourceQuery): Page<ResourceInfo>;
  getResource(uuid: string): ResourceInfo | undefined;
  listHandlers(): HandlerInfo[];
  listInterceptors(): InterceptorInfo[];
  /** Returns how many resources the message reached. */
  broadcast(broadcasterId: string, message: string | object): number;
  unicast(uuid: string, message: string | object): void;
  /** Destroys a broadcaster; resources it owned are disconnected. Returns how many members it had. */
  destroyBroadcaster(id: string): number;
  disconnect(uuid: string, reason?: string): void;
}
