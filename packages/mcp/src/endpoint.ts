import type { IncomingMessage } from 'node:http';
import {
  addressGroup,
  bearerCredential,
  type Caller,
  clientAddress,
  FairShare,
  frameworkAuthenticator,
  FwError,
  type AuthContext,
  type Authenticator,
  type Framework,
  type Lease,
  type Principal,
  ShareExceededError,
  shareKey,
} from '@fw/runtime';
import type { Catalog } from './catalog.js';
import type { McpLimits } from './config.js';
import { credentialEndChallenge } from './credential-end.js';
import { McpProtocol, type ServerIdentity } from './protocol/dispatcher.js';
import { notification } from './protocol/jsonrpc.js';
import type { McpSession } from './protocol/session.js';
import { ModernProtocol } from './modern/modern-protocol.js';
import { SubscriptionHub } from './modern/subscriptions.js';
import type { OAuthRefusal } from './oauth/challenge.js';
import type { ProtectedResource } from './oauth/resource-server.js';
import type { JsonRpcRequest } from './protocol/jsonrpc.js';

const INVALID_TOKEN_CHALLENGE = { 'WWW-Authenticate': 'Bearer error="invalid_token"' };
/** RFC 6750 §3: no credential at all gets the bare challenge (no error code). */
const BEARER_CHALLENGE = { 'WWW-Authenticate': 'Bearer' };

/**
 * An endpoint's own door: runs before every HTTP request (but CORS preflights) and every WebSocket
 * upgrade, after the Host/Origin check. Throwing an FwError refuses the request with its status.
 */
export type AccessCheck = (req: IncomingMessage) => void | Promise<void>;

/** Something on a keep-alive schedule: an SSE stream (comment) or a WebSocket (ping). */
export interface KeepAliveTarget {
  keepAlive(): void;
}

interface Registered {
  session: McpSession;
  /** The session's share of `fw.mcp.max-sessions` (from `admit`), given back when it ends. */
  lease: Lease;
  /** Transport cleanup: ends streams / closes the socket. */
  close(reason: string): void;
  /** Whether the idle reaper may end it now (HTTP sessions with no open stream). */
  idle?(now: number): boolean;
  /** Nothing open and nothing running right now (no stream, no request): it may be evicted for a newcomer. */
  quiet?(): boolean;
}

/** Why a new session was refused (answered with this status and a problem+json / JSON-RPC body). */
export interface AdmissionRefusal {
  status: 429 | 503;
  code: 'mcp_address_session_limit' | 'mcp_principal_session_limit' | 'mcp_session_limit';
  detail: string;
  retryAfterSeconds: number;
}

/** `admit`'s answer: the new session's lease, or why there is no room. */
export type Admission = { lease: Lease; refusal?: undefined } | { lease?: undefined; refusal: AdmissionRefusal };

export interface EndpointStats {
  sessions: number;
  /** Client address groups (IPv4 address, IPv6 /64) holding at least one session. */
  addresses: number;
  /** Open `subscriptions/listen` streams. */
  subscriptions: number;
  /** Sessions ended to make room (since the endpoint was mounted): never initialized, or idle. */
  evicted: { unfinished: number; idle: number };
  streams: number;
  reaperRunning: boolean;
  keepAliveRunning: boolean;
  pendingClientRequests: number;
  inflightRequests: number;
}

/**
 * One mounted MCP path: the protocol core, the live sessions of both transports, the idle
 * reaper and the keep-alive ticker. Timers run only while there is something to watch, so an
 * idle endpoint holds none.
 */
export class McpEndpoint {
  readonly protocol: McpProtocol;
  /** The 2026-07-28 (stateless) side of the same protocol core. */
  readonly modern: ModernProtocol;
  /** Open 2026-07-28 `subscriptions/listen` streams, each caller with its fair share. */
  readonly subscriptions: SubscriptionHub;
  private readonly sessions = new Map<string, Registered>();
  /** `fw.mcp.max-sessions`, shared out per principal (`-per-principal`) and per address group (`-per-address`). */
  private readonly sessionShare: FairShare;
  private readonly evictions = { unfinished: 0, idle: 0 };
  private readonly keepAlives = new Set<KeepAliveTarget>();
  private reaper: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private readonly offCatalog: () => void;
  private closed = false;

  constructor(
    readonly fw: Framework,
    readonly identity: ServerIdentity,
    readonly catalog: Catalog,
    readonly limits: McpLimits,
    /**
     * Who makes an HTTP request or WebSocket upgrade; default the service `'principal-resolver'`.
     * Throwing an FwError refuses the request with its status (401, 403).
     */
    private readonly resolver?: Authenticator,
    private readonly access?: AccessCheck,
    /** Set when the endpoint is an OAuth 2.1 resource server (`fw.mcp.oauth.*`): its tokens replace `resolver` and `access`. */
    readonly oauth?: ProtectedResource,
  ) {
    const mode = fw.config.get('fw.mcp.auth');
    if (mode !== 'auto' && mode !== 'none') throw new FwError('invalid_config', `fw.mcp.auth must be 'auto' or 'none', got '${mode}'`, 500);
    this.authMode = mode;
    this.sessionShare = new FairShare('fw.mcp.max-sessions', () => ({
      max: limits.maxSessions,
      perPrincipal: limits.maxSessionsPerPrincipal,
      perAddress: limits.maxSessionsPerAddress,
    }));
    this.subscriptions = new SubscriptionHub(() => ({
      max: limits.maxSubscriptions,
      perPrincipal: limits.maxSubscriptionsPerPrincipal,
      perAddress: limits.maxSubscriptionsPerAddress,
    }));
    this.protocol = new McpProtocol(fw, identity, catalog, limits);
    this.modern = new ModernProtocol(this);
    this.offCatalog = catalog.listen({
      listChanged: (kind) => {
        this.broadcast(notification(`notifications/${kind}/list_changed`));
        this.subscriptions.listChanged(kind);
      },
      resourceUpdated: (uri) => {
        this.subscriptions.resourceUpdated(uri);
        for (const r of this.sessions.values()) {
          if (r.session.subscriptions.has(uri)) r.session.send(notification('notifications/resources/updated', { uri }));
        }
      },
    });
  }

  get path(): string {
    return this.identity.path;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /**
   * Makes room for a new session of `caller`, or says why there is none (issue: 1000
   * unauthenticated `initialize`s used to lock everyone out; then one client could still take
   * every session). Each caller holds a fair share of `fw.mcp.max-sessions`: an authenticated
   * principal `fw.mcp.max-sessions-per-principal`, anonymous callers of one address group (an
   * IPv4 address, an IPv6 /64) `fw.mcp.max-sessions-per-address`. At its share one of the caller's
   * own sessions gives way; at the whole cap one of anyone's. The first to go is the oldest
   * session that never finished initialization (no `notifications/initialized`), then the one
   * quiet for longest (no stream, no request running; its client gets 404 on its next request
   * and, as the spec asks, initializes again). Sessions in use are never evicted: then the answer
   * is 429 (a share) or 503 (overall). Must be called right before `add`, with no await in between.
   */
  admit(caller: Caller): Admission {
    const mine = shareKey(caller).key;
    // At most: make room in the caller's share, then in the whole; a third refusal is final.
    for (let attempt = 0; ; attempt++) {
      try {
        return { lease: this.sessionShare.acquire(caller) };
      } catch (err) {
        if (!(err instanceof ShareExceededError)) throw err;
        const eligible = err.share === 'total' ? () => true : (r: Registered) => shareKey(sessionCaller(r.session)).key === mine;
        if (!this.limits.evictWhenFull || attempt === 2 || !this.evictOne(eligible)) return { refusal: admissionRefusal(err) };
      }
    }
  }

  /** Ends the best eviction candidate among `eligible`; false when every one is in use. */
  private evictOne(eligible: (r: Registered) => boolean): boolean {
    let unfinished: Registered | undefined;
    let quiet: Registered | undefined;
    for (const r of this.sessions.values()) {
      if (!eligible(r)) continue;
      if (!r.session.initialized) {
        if (!unfinished || r.session.createdAt < unfinished.session.createdAt) unfinished = r;
      } else if (!unfinished && r.quiet?.()) {
        if (!quiet || r.session.lastActivity < quiet.session.lastActivity) quiet = r;
      }
    }
    const victim = unfinished ?? quiet;
    if (!victim) return false;
    if (victim === unfinished) this.evictions.unfinished++;
    else this.evictions.idle++;
    this.end(victim.session.id, unfinished ? 'evicted: initialization never finished' : 'evicted: idle, room needed for a new session');
    return true;
  }

  session(id: string): McpSession | undefined {
    return this.sessions.get(id)?.session;
  }

  allSessions(): McpSession[] {
    return [...this.sessions.values()].map((r) => r.session);
  }

  /**
   * Who makes the request, resolved once per request (the access check and the transport both
   * ask). `context.socket`: a WebSocket upgrade, where a browser cannot set headers and
   * `?access_token=` counts.
   */
  resolvePrincipal(req: IncomingMessage, context?: AuthContext): Promise<Principal | undefined> {
    let resolved = this.principals.get(req);
    if (!resolved) this.principals.set(req, (resolved = this.resolveOnce(req, context)));
    return resolved;
  }

  private readonly principals = new WeakMap<IncomingMessage, Promise<Principal | undefined>>();

  private async resolveOnce(req: IncomingMessage, context?: AuthContext): Promise<Principal | undefined> {
    const principal = await this.resolveWith(req, context);
    // Whoever resolved it (OAuth, the mount's resolver, the admin's), a revoked credential
    // (fw.credentials.revoke) is refused here, as the framework's own authenticator does.
    if (principal && this.fw.credentials.isRevoked(principal))
      throw new FwError('unauthorized', 'the credential was revoked', 401, undefined, credentialEndChallenge('revoked'));
    return principal;
  }

  private async resolveWith(req: IncomingMessage, context?: AuthContext): Promise<Principal | undefined> {
    if (this.oauth) return this.oauth.authenticate(req);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (this.resolver) return await this.resolver(req, url, context);
    // The one a module published (the admin plane's), else the framework's authenticator
    // (fw.auth.tokens, JWT, the app's), so a configured credential is recognised with or without
    // the admin plane installed.
    const resolver = this.fw.services.get('principal-resolver') ?? frameworkAuthenticator(this.fw);
    if (!resolver) return undefined;
    const principal = await resolver(req, url, context);
    // A bearer token that none of them accepts is refused (401), not served as anonymous: a
    // client must not believe it is signed in when it is not. No token at all stays anonymous.
    // RFC 6750 §3.1: an invalid token is answered with the `invalid_token` challenge.
    if (!principal && bearerCredential(req, url, context))
      throw new FwError('unauthorized', 'the bearer token is not valid for this server', 401, undefined, INVALID_TOKEN_CHALLENGE);
    return principal;
  }

  /**
   * Runs before every request and upgrade: the OAuth token check (401/403 with a challenge), else
   * the mount's own door, else — with the framework's authenticator configured and
   * `fw.mcp.auth=auto` — a principal is required, as on the agents' endpoints.
   */
  async checkAccess(req: IncomingMessage, context?: AuthContext): Promise<void> {
    if (this.oauth) await this.oauth.authenticate(req);
    else if (this.access) await this.access(req);
    else if (this.resolver === undefined && this.principalRequired() && !(await this.resolvePrincipal(req, context)))
      throw new FwError(
        'unauthorized',
        'this MCP endpoint requires authentication (Authorization: Bearer <token>)',
        401,
        undefined,
        BEARER_CHALLENGE,
      );
  }

  /** `fw.mcp.auth`, read once at mount. */
  private readonly authMode: 'auto' | 'none';

  private principalRequired(): boolean {
    return this.authMode === 'auto' && frameworkAuthenticator(this.fw) !== undefined;
  }

  /**
   * The first tools/call among `requests` that the request's access token may not make (403
   * `insufficient_scope`), checked before anything of the message is dispatched. Undefined when
   * the endpoint is not an OAuth resource server.
   */
  async scopeRefusal(
    req: IncomingMessage,
    requests: readonly JsonRpcRequest[],
  ): Promise<{ refusal: OAuthRefusal; request: JsonRpcRequest } | undefined> {
    if (!this.oauth) return undefined;
    const calls = requests.filter((r) => r.method === 'tools/call' && typeof r.params?.name === 'string');
    if (calls.length === 0) return undefined;
    const principal = await this.oauth.authenticate(req);
    for (const request of calls) {
      const refusal = this.oauth.toolRefusal(req, principal, request.params!.name as string);
      if (refusal) return { refusal, request };
    }
    return undefined;
  }

  clientAddress(req: IncomingMessage): string | undefined {
    const resolve = this.fw.services.get('client-address');
    // The runtime's answer applies fw.security.trusted-proxies (X-Forwarded-For only from a proxy).
    return resolve ? resolve(req) : clientAddress(req);
  }

  add(registered: Registered): void {
    this.sessions.set(registered.session.id, registered);
    if (registered.idle && !this.reaper && this.limits.idleTimeoutMs > 0) {
      const every = Math.min(Math.max(Math.floor(this.limits.idleTimeoutMs / 2), 10), 30_000);
      this.reaper = setInterval(() => this.reap(), every);
      this.reaper.unref();
    }
  }

  /** Ends a session: aborts its work, closes its streams, forgets it. */
  end(id: string, reason: string): boolean {
    const r = this.sessions.get(id);
    if (!r) return false;
    this.sessions.delete(id);
    r.lease.release();
    r.session.close(reason);
    r.close(reason);
    if (this.reaper && ![...this.sessions.values()].some((s) => s.idle)) {
      clearInterval(this.reaper);
      this.reaper = undefined;
    }
    return true;
  }

  private reap(): void {
    const now = Date.now();
    for (const [id, r] of this.sessions) {
      if (r.idle?.(now)) this.end(id, 'idle timeout');
    }
  }

  addKeepAlive(target: KeepAliveTarget): () => void {
    if (this.limits.keepAliveMs <= 0) return () => {};
    this.keepAlives.add(target);
    if (!this.ticker) {
      this.ticker = setInterval(() => {
        for (const t of this.keepAlives) t.keepAlive();
      }, this.limits.keepAliveMs);
      this.ticker.unref();
    }
    return () => {
      this.keepAlives.delete(target);
      if (this.keepAlives.size === 0 && this.ticker) {
        clearInterval(this.ticker);
        this.ticker = undefined;
      }
    };
  }

  private broadcast(message: ReturnType<typeof notification>): void {
    for (const r of this.sessions.values()) {
      if (r.session.protocolVersion) r.session.send(message);
    }
  }

  stats(): EndpointStats {
    let pending = 0;
    let inflight = 0;
    for (const r of this.sessions.values()) {
      pending += r.session.pendingClientRequests;
      inflight += r.session.inflight.size;
    }
    return {
      sessions: this.sessions.size,
      addresses: new Set([...this.sessions.values()].map((r) => addressGroup(r.session.clientAddress))).size,
      subscriptions: this.subscriptions.size,
      evicted: { ...this.evictions },
      streams: this.keepAlives.size,
      reaperRunning: this.reaper !== undefined,
      keepAliveRunning: this.ticker !== undefined,
      pendingClientRequests: pending,
      inflightRequests: inflight,
    };
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    for (const id of [...this.sessions.keys()]) this.end(id, 'server closing');
    this.subscriptions.closeAll();
    this.protocol.tasks.close();
    this.offCatalog();
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
    this.keepAlives.clear();
  }
}

/** Who holds a session, for its fair share: the principal it was opened with and its client address. */
function sessionCaller(session: McpSession): Caller {
  return { principal: session.principal, address: session.clientAddress };
}

function admissionRefusal(err: ShareExceededError): AdmissionRefusal {
  if (err.share === 'total')
    return {
      status: 503,
      code: 'mcp_session_limit',
      detail: `the server holds its maximum of ${err.value} MCP sessions, all in use (fw.mcp.max-sessions)`,
      retryAfterSeconds: 5,
    };
  const who = err.share === 'principal' ? 'principal' : 'client address';
  return {
    status: 429,
    code: err.share === 'principal' ? 'mcp_principal_session_limit' : 'mcp_address_session_limit',
    detail: `this ${who} already holds ${err.value} MCP sessions in use (fw.mcp.max-sessions-per-${err.share}); end one (DELETE) or retry later`,
    retryAfterSeconds: 5,
  };
}
