import { randomBytes } from 'node:crypto';
import { WebSocketServer } from 'ws';
import { servedNatively } from './transport/native-upgrade.js';
import { QueryStrings } from './resource/query-strings.js';
import type { Config } from './config.js';
import { FwError, NotFoundError } from './errors.js';
import type { EventBus, TransportName } from './events.js';
import { HandlerEntry } from './handler.js';
import type { HttpRouteHandler, Method, UpgradeRouteHandler } from './http/router.js';
import { everyResourceHeartbeat } from './interceptor/heartbeat.js';
import { idleTimeout } from './interceptor/idle-timeout.js';
import type {
  BroadcasterInfo,
  Handler,
  HandlerInfo,
  HandlerOptions,
  Interceptor,
  InterceptorInfo,
  Page,
  ResourceInfo,
  ResourceQuery,
  RuntimeStats,
  RuntimeView,
} from './model.js';
import { BroadcasterFactory } from './broadcast/factory.js';
import type { BroadcastAdapter } from './broadcast/adapter.js';
import type { ReplayStore } from './broadcast/replay-store.js';
import type { Topics } from './broadcast/topics.js';
import { FrameBatches } from './broadcast/outgoing.js';
import type { FwBroadcaster } from './broadcast/broadcaster.js';
import { FlushQueue } from './resource/flush-queue.js';
import { ResourceRegistry } from './resource/registry.js';
import type { FwResource } from './resource/resource.js';
import { Timers } from './timers.js';
import { HandlerTransports } from './transport/endpoint.js';
import { WebSocketConnection } from './transport/websocket.js';
import { websocketMaxFragments } from './transport/websocket-limits.js';
import type { Logger } from './logging/logger.js';
import type { Services } from './services.js';
import type { Credentials } from './auth/credentials.js';
import type { RequestDrain } from './http/drain.js';
import { FairShare } from './tenancy/fair-share.js';

/** The runtime's configuration, read once when the framework is created. */
export interface RuntimeSettings {
  maxPayload: number;
  /** Frames one inbound WebSocket message may span (`fw.websocket.max-fragments`). */
  maxFragments: number;
  resumeBuffer: number;
  grace: number;
  replayCache: number;
  sequenceMemory: number;
  destroyEmpty: boolean;
  highWaterMark: number;
  /** Longest a slow-consumer drop waits for its gap frame (`fw.slow-consumer.gap-delay`, ms). */
  gapDelay: number;
  /** Connections the flush queue writes per event-loop turn (`fw.flush.slice`; 0 read as no limit). */
  flushSlice: number;
  slowConsumerPolicy: 'drop' | 'disconnect';
  heartbeat: number;
  idleTimeout: number;
  jsonDepth: number;
  longPollTimeout: number;
  drainTimeout: number;
  clusterLookups: number;
}

export function readSettings(config: Config): RuntimeSettings {
  const policy = config.get('fw.slow-consumer.policy');
  if (policy !== 'drop' && policy !== 'disconnect') {
    throw new FwError('invalid_config', `fw.slow-consumer.policy must be 'drop' or 'disconnect', got '${policy}'`, 500);
  }
  const slice = config.get('fw.flush.slice');
  if (!Number.isInteger(slice) || slice < 0) {
    throw new FwError('invalid_config', `fw.flush.slice must be a whole number of connections (0: no limit), got ${slice}`, 500);
  }
  return {
    maxPayload: config.get('fw.websocket.max-payload'),
    maxFragments: websocketMaxFragments(config),
    resumeBuffer: config.get('fw.resume.buffer'),
    grace: config.get('fw.resume.grace'),
    replayCache: config.get('fw.broadcaster.replay-cache'),
    sequenceMemory: config.get('fw.broadcaster.sequence-memory'),
    destroyEmpty: config.get('fw.broadcaster.destroy-empty'),
    highWaterMark: config.get('fw.slow-consumer.high-water-mark'),
    gapDelay: config.get('fw.slow-consumer.gap-delay'),
    flushSlice: slice === 0 ? Number.POSITIVE_INFINITY : slice,
    slowConsumerPolicy: policy,
    heartbeat: config.get('fw.heartbeat.interval'),
    idleTimeout: config.get('fw.idle-timeout'),
    jsonDepth: config.get('fw.limits.json-depth'),
    longPollTimeout: config.get('fw.long-polling.timeout'),
    drainTimeout: config.get('fw.close.drain-timeout'),
    clusterLookups: Math.max(0, config.get('fw.limits.cluster-lookups')),
  };
}

export interface RuntimeCounters {
  messagesIn: number;
  messagesOut: number;
  broadcasts: number;
  dropped: number;
  slowConsumerDisconnects: number;
  resumes: number;
  gaps: number;
  lost: number;
  /** Broadcasts delivered again to a client that missed them (replay caches, the durable replay store). */
  recovered: number;
  /** Requests for a resource another cluster node holds, answered 421 (no sticky sessions in front). */
  misdirected: number;
}

/** What leak tests assert to be zero once every connection is gone. */
export interface RuntimeDiagnostics {
  resources: number;
  detachedResources: number;
  broadcasters: number;
  timers: number;
  webSockets: number;
  pendingFlushes: number;
}

/** The parts of the framework the runtime needs (kept narrow to avoid a circular dependency). */
export interface RuntimeHost {
  readonly config: Config;
  readonly services: Services;
  readonly events: EventBus;
  readonly path: string;
  readonly logger: Logger;
  /** Expiry and revocation of the credentials connections were opened with. */
  readonly credentials: Credentials;
  /** The requests in flight that close() lets finish; a held long-poll is marked as held. */
  readonly requests: RequestDrain;
  route(method: Method, path: string, handler: HttpRouteHandler): () => void;
  upgrade(path: string, handler: UpgradeRouteHandler): () => void;
}

/**
 * The real-time runtime: handlers and their endpoints, interceptors, resources, broadcasters,
 * and the read/control interface (`RuntimeView`) the admin plane and cluster module use.
 */
export class Runtime implements RuntimeView {
  readonly settings: RuntimeSettings;
  readonly counters: RuntimeCounters = {
    messagesIn: 0,
    messagesOut: 0,
    broadcasts: 0,
    dropped: 0,
    slowConsumerDisconnects: 0,
    resumes: 0,
    gaps: 0,
    lost: 0,
    recovered: 0,
    misdirected: 0,
  };
  readonly timers = new Timers();
  readonly flushQueue: FlushQueue;
  /** The last turn's shared batch of frames for WebSockets in step (see FrameBatches). */
  readonly frameBatches = new FrameBatches();
  /** Query strings of resources, each kept once (resource/query-strings.ts). */
  readonly queryStrings = new QueryStrings();
  readonly resources = new ResourceRegistry();
  readonly broadcasters: BroadcasterFactory;
  readonly events: EventBus;
  /** Handler, interceptor and listener failures are logged here (`module: runtime`). */
  readonly log: Logger;
  /** Open WebSockets that carry no resource (closing, or not attached yet); see WebSocketConnection. */
  readonly looseSockets = new Set<WebSocketConnection>();
  readonly handlers: HandlerEntry[] = [];
  private readonly globals = { list: [] as Interceptor[], version: 0 };
  private readonly startedAt = new Date().toISOString();
  private server: WebSocketServer | undefined;
  closing = false;
  /** When close() stops waiting for WebSockets to finish their closing handshake (epoch ms; set by the framework). */
  drainDeadline: number | undefined;
  /**
   * Real-time connections: a global cap with a share per principal and per anonymous address
   * (`fw.connections.*`). A resource takes its place when it is opened and gives it back when it
   * ends; its resumes and long-polls are the same connection. Limits are read at each open.
   */
  readonly connections: FairShare;
  readonly credentials: Credentials;
  readonly requests: RequestDrain;
  /** Set by the metrics (when on): receives each broadcast's fan-out time in seconds. */
  fanoutObserver: ((seconds: number) => void) | undefined;
  /** The cluster seam (cluster mode installs it); undefined on a single node. See BroadcastAdapter. */
  adapter: BroadcastAdapter | undefined;
  /** Native topic fan-out (`fw.listen()` on Bun installs it); undefined on Node. See Topics. */
  topics: Topics | undefined;
  /**
   * A durable replay store (cluster mode installs one on Redis Streams); undefined: the in-memory
   * replay caches are all there is. See ReplayStore.
   */
  replayStore: ReplayStore | undefined;
  /**
   * Set by a scaling module while this node should not take connections that join a broadcaster
   * (a cluster node cut from Redis): they are refused with it. See ScalingHost.refuse.
   */
  refusal: FwError | undefined;
  /**
   * Names the space the broadcaster sequences (`bid`) live in. A restarted server numbers its
   * broadcasts from 1 again, so a client's cursors from before mean nothing here: the handshake
   * carries the epoch, and `since` cursors from another epoch replay the whole cache. Random per
   * start on a single node; the cluster module sets a cluster-wide one (its sequences are shared).
   */
  epoch: string = randomBytes(6).toString('base64url');
  /**
   * Epochs this process had before `epoch` (a cluster node takes the cluster's once it reaches
   * Redis, and clients may have connected before). Its broadcasters numbered on through the change,
   * so a cursor taken under one of them means the same here wherever this process has reached it.
   */
  readonly formerEpochs = new Set<string>();

  constructor(private readonly host: RuntimeHost) {
    this.settings = readSettings(host.config);
    this.flushQueue = new FlushQueue(this.settings.flushSlice, () => this.frameBatches.clear());
    this.events = host.events;
    this.log = host.logger.child({ module: 'runtime' });
    this.broadcasters = new BroadcasterFactory(this);
    this.credentials = host.credentials;
    this.requests = host.requests;
    const config = host.config;
    this.connections = new FairShare('fw.connections.max', () => ({
      max: config.get('fw.connections.max'),
      perPrincipal: config.get('fw.connections.max-per-principal'),
      perAddress: config.get('fw.connections.max-per-address'),
    }));
    if (this.settings.heartbeat > 0) this.intercept(everyResourceHeartbeat(this.settings.heartbeat, this.resources));
    if (this.settings.idleTimeout > 0) this.intercept(idleTimeout({ timeout: this.settings.idleTimeout }));
  }

  private lookups = 0;

  /**
   * In cluster mode, the other node that holds resource `uuid` (a request that a balancer without
   * sticky sessions sent here); undefined on a single node, when no node holds it, or when
   * fw.limits.cluster-lookups lookups are already under way (each one asks every node: unbounded,
   * a flood of made-up tracking ids would be multiplied by the cluster's size).
   */
  async ownerElsewhere(uuid: string): Promise<string | undefined> {
    const cluster = this.host.services.get('cluster');
    if (!cluster || this.lookups >= this.settings.clusterLookups) return undefined;
    this.lookups++;
    try {
      const found = await cluster.getResource(uuid);
      return found.outcome === 'done' && found.node !== null && found.node !== cluster.nodeId ? found.node : undefined;
    } catch {
      return undefined;
    } finally {
      this.lookups--;
    }
  }

  /** The shared `ws` server in noServer mode (created on the first upgrade). */
  wss(): WebSocketServer {
    return (this.server ??= new WebSocketServer({
      noServer: true,
      maxPayload: this.settings.maxPayload,
      maxFragments: this.settings.maxFragments,
      perMessageDeflate: false,
      clientTracking: false,
      WebSocket: WebSocketConnection,
      // Pings are answered by WebSocketConnection: `ws`'s own answering keeps a closure and
      // three fields on every connection (128 bytes per idle connection, bench/scale/heap).
      autoPong: false,
    }));
  }

  /** Registers a real-time handler on `pattern` under the framework path; returns a function that removes it. */
  handle(pattern: string, handler: Handler, options: HandlerOptions = {}): () => void {
    if (!pattern.startsWith('/')) throw new FwError('invalid_path', `handler path must start with '/': ${pattern}`, 500);
    const path = (this.host.path + pattern).replace(/\/+$/, '') || '/';
    if (this.handlers.some((h) => h.path === path)) throw new FwError('handler_exists', `a handler is already registered on ${path}`, 500);
    const entry = new HandlerEntry(path, handler, options, this.globals);
    const endpoint = new HandlerTransports(this, entry);
    this.handlers.push(entry);
    const offHttp = this.host.route('*', path, endpoint.http);
    const offUpgrade = this.host.upgrade(path, servedNatively(endpoint.upgrade, endpoint));
    return () => {
      offHttp();
      offUpgrade();
      const i = this.handlers.indexOf(entry);
      if (i >= 0) this.handlers.splice(i, 1);
      for (const r of [...this.resources.values()]) if (r.handler === entry) r.close('handler removed');
    };
  }

  /** Adds a global interceptor (runs before handler interceptors, in registration order). */
  intercept(interceptor: Interceptor): () => void {
    this.globals.list.push(interceptor);
    this.globals.version++;
    return () => {
      const i = this.globals.list.indexOf(interceptor);
      if (i >= 0) this.globals.list.splice(i, 1);
      this.globals.version++;
    };
  }

  get interceptors(): readonly Interceptor[] {
    return this.globals.list;
  }

  // ---- RuntimeView ----

  stats(): RuntimeStats & { resumes: number; gaps: number; lost: number; recovered: number } {
    const c = this.counters;
    return {
      connections: this.resources.size,
      broadcasters: this.broadcasters.size,
      handlers: this.handlers.length,
      interceptors: this.listInterceptors().length,
      messagesIn: c.messagesIn,
      messagesOut: c.messagesOut,
      broadcasts: c.broadcasts,
      dropped: c.dropped,
      slowConsumerDisconnects: c.slowConsumerDisconnects,
      resumes: c.resumes,
      gaps: c.gaps,
      lost: c.lost,
      recovered: c.recovered,
      startedAt: this.startedAt,
    };
  }

  diagnostics(): RuntimeDiagnostics {
    let detached = 0;
    for (const r of this.resources.values()) if (r.connection === undefined) detached++;
    return {
      resources: this.resources.size,
      detachedResources: detached,
      broadcasters: this.broadcasters.size,
      timers: this.timers.active,
      webSockets: this.openWebSockets(),
      pendingFlushes: this.flushQueue.size,
    };
  }

  /** Open WebSockets: those carrying a resource, and the loose ones. */
  private openWebSockets(): number {
    let n = this.looseSockets.size;
    for (const r of this.resources.values()) if (r.connection?.transport === 'websocket') n++;
    return n;
  }

  listBroadcasters(): BroadcasterInfo[] {
    return this.broadcasters.list().map(broadcasterInfo);
  }

  getBroadcaster(id: string): BroadcasterInfo | undefined {
    const b = this.broadcasters.lookup(id);
    return b && broadcasterInfo(b);
  }

  listResources(query: ResourceQuery = {}): Page<ResourceInfo> {
    const offset = Math.max(0, Math.floor(query.offset ?? 0));
    const limit = Math.min(1000, Math.max(1, Math.floor(query.limit ?? 100)));
    const { broadcaster, transport } = query;
    const search = query.search?.toLowerCase() || undefined;
    // Walk the index that answers the filters (a broadcaster's members, else every resource in
    // connection order); never sort, never copy the whole set.
    let source: Iterable<FwResource>;
    let size: number;
    if (broadcaster !== undefined) {
      const members = this.broadcasters.lookup(broadcaster)?.members;
      source = members ?? [];
      size = members?.size ?? 0;
    } else if (transport !== undefined) {
      source = this.resources.ofTransport(transport);
      size = this.resources.countOf(transport);
    } else {
      source = this.resources.values();
      size = this.resources.size;
    }
    const exact = search === undefined && (broadcaster === undefined || transport === undefined);
    const items: ResourceInfo[] = [];
    let seen = 0;
    for (const r of source) {
      if (!exact && !matches(r, broadcaster, transport, search)) continue;
      if (seen >= offset && items.length < limit) items.push(resourceInfo(r));
      seen++;
      if (exact && items.length >= limit) break;
    }
    return { items, total: exact ? size : seen, offset, limit };
  }

  getResource(uuid: string): ResourceInfo | undefined {
    const r = this.resources.get(uuid);
    return r && resourceInfo(r);
  }

  listHandlers(): HandlerInfo[] {
    return this.handlers.map((h) => ({
      path: h.path,
      interceptors: h.chain().map((i) => i.name),
      description: h.options.description ?? '',
      resourceCount: h.resourceCount,
    }));
  }

  listInterceptors(): InterceptorInfo[] {
    const out: InterceptorInfo[] = this.globals.list.map((i, order) => ({ name: i.name, scope: 'global', handler: null, order }));
    for (const h of this.handlers) {
      (h.options.interceptors ?? []).forEach((i, order) => out.push({ name: i.name, scope: 'handler', handler: h.path, order }));
    }
    return out;
  }

  broadcast(broadcasterId: string, message: string | object): number {
    const b = this.broadcasters.lookup(broadcasterId);
    if (!b) throw new NotFoundError('broadcaster', broadcasterId);
    return b.broadcast(message);
  }

  unicast(uuid: string, message: string | object): void {
    const r = this.resources.get(uuid);
    if (!r) throw new NotFoundError('resource', uuid);
    r.write(message);
  }

  destroyBroadcaster(id: string): number {
    const b = this.broadcasters.lookup(id);
    if (!b) throw new NotFoundError('broadcaster', id);
    const n = b.size;
    b.destroy('destroyed');
    return n;
  }

  disconnect(uuid: string, reason = 'disconnected by the server'): void {
    const r = this.resources.get(uuid);
    if (!r) throw new NotFoundError('resource', uuid);
    r.close(reason);
  }

  /**
   * Graceful close: no new connections; every resource is ended as a drop, not a final close
   * (fw clients get no close frame and reconnect, to this node once it is back or to another;
   * WebSockets close with 1012, HTTP streams and polls end with a `reconnect` frame); then waits
   * up to `fw.close.drain-timeout` for the sockets to end.
   */
  async close(): Promise<void> {
    this.closing = true;
    // Every resource ends, so every WebSocket is loose from here on: the drain waits for those.
    for (const r of [...this.resources.values()]) r.shutdown('server shutting down');
    const deadline = this.drainDeadline ?? Date.now() + this.settings.drainTimeout;
    while (this.looseSockets.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    for (const ws of this.looseSockets) ws.terminate();
    this.looseSockets.clear();
    this.server?.close();
    this.timers.clearAll();
  }
}

function matches(
  r: FwResource,
  broadcaster: string | undefined,
  transport: TransportName | undefined,
  search: string | undefined,
): boolean {
  if (broadcaster !== undefined && !r.isMemberOf(broadcaster)) return false;
  if (transport !== undefined && r.transport !== transport) return false;
  if (search !== undefined && !r.uuid.includes(search) && !r.path.toLowerCase().includes(search) && !r.remoteAddress.includes(search))
    return false;
  return true;
}

function broadcasterInfo(b: FwBroadcaster): BroadcasterInfo {
  return {
    id: b.id,
    resourceCount: b.size,
    createdAt: new Date(b.createdAt).toISOString(),
    internal: b.internal,
    messages: b.messages,
    replayCacheSize: b.cache.size,
    lost: b.lost,
    recovered: b.recovered,
    replayWindow: b.cache.size > 0 ? { first: b.cache.first, last: b.cache.next - 1 } : null,
  };
}

function resourceInfo(r: FwResource): ResourceInfo {
  return {
    uuid: r.uuid,
    transport: r.transport,
    protocol: r.protocol,
    path: r.path,
    broadcasters: [...r.broadcasters],
    broadcaster: r.home,
    remoteAddress: r.remoteAddress,
    connectedAt: new Date(r.connectedAt).toISOString(),
    principal: r.principal?.id ?? null,
    messagesIn: r.messagesIn,
    messagesOut: r.messagesOut,
    dropped: r.dropped,
  };
}
