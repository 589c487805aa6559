import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { Config, type ConfigOptions, type ConfigSource } from './config.js';
import type { Authenticator } from './auth/authenticator.js';
import { Credentials } from './auth/credentials.js';
import { frameworkAuthenticator } from './auth/config.js';
import { EventBus } from './events.js';
import { Services } from './services.js';
import { sendError, sendProblem } from './http/problem.js';
import { FwError } from './errors.js';
import { RouteTable, type HttpRouteHandler, type Method, type RouteContext, type UpgradeRouteHandler } from './http/router.js';
import type { FrameworkModule } from './module.js';
import { RUNTIME_CONFIG } from './runtime-config.js';
import { rejectUpgrade } from './http/reject-upgrade.js';
import { RequestDrain } from './http/drain.js';
import { mountClientAssets } from './http/client-assets.js';
import { Endpoints } from './http/endpoints.js';
import { liveFrameworks, trackFramework } from './live-frameworks.js';
import { listenFailure, logListening } from './http/listening.js';
import { Runtime } from './runtime.js';
import { bunRuntime, type BunGlobal, type BunServer } from './bun/bun-api.js';
import { bunAddress, serveOnBun } from './bun/serve.js';
import { BunTopics } from './bun/topics.js';
import { Readiness } from './health/readiness.js';
import { mountProbes, probePaths, type LifecyclePhase } from './health/probes.js';
import { FwMetrics } from './metrics/fw-metrics.js';
import { mountMetrics } from './metrics/endpoint.js';
import { SecurityPolicy, type Refusal } from './security/security-policy.js';
import { drainOnSignals, parseSignals } from './signals.js';
import { parseLogLevel, type Logger } from './logging/logger.js';
import { createDefaultLogger } from './logging/default-logger.js';
import { incomingContext, withContext } from './telemetry/tracing.js';
import type { BroadcasterFactory } from './broadcast/factory.js';
import type { ResourceRegistry } from './resource/registry.js';
import type { Handler, HandlerOptions, Interceptor } from './model.js';

export { rejectUpgrade };

/**
 * What `new Framework({...})` takes: every declared configuration key (typed from the modules'
 * `defineConfig` declarations, so a misspelled key does not compile), the nested `fw` form, and
 * the non-configuration options below. Modules add their own options with module augmentation
 * (`declare module '@fw/runtime' { interface FrameworkOptions { adminAuthorizer?: … } }`).
 */
export interface FrameworkOptions extends ConfigOptions {
  /** Path of an optional JSON config file (default `fw.config.json` in the working directory); false for none. */
  configFile?: string | false;
  /** Environment to read `FW_*` variables from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** The keys in nested form (`{ fw: { resume: { grace: '30s' } } }`); checked at run time only. */
  fw?: Record<string, unknown>;
  /** The app's own authenticator, tried before `fw.auth.tokens` and JWT (docs/security.md). */
  authenticator?: Authenticator;
  /**
   * Where fw logs (pino-compatible: `info(fields, message)`, `warn`, `error`, `debug`, `child`);
   * default pino JSON on stdout at `fw.log.level`. See docs/operations.md, *Logging*.
   */
  logger?: Logger;
}

/**
 * The framework: configuration, the event bus, the service registry, and the routes fw owns.
 * `attach(server)` takes over only those routes (requests and upgrades) on any node:http server;
 * everything else stays with the application.
 */
export class Framework {
  readonly config: Config;
  readonly events = new EventBus();
  readonly services = new Services();
  /**
   * Expiry and revocation of the credentials open sockets were authenticated with: every surface
   * that keeps a socket open for a principal watches it and closes the socket when told
   * (docs/security.md, *Tenancy: who owns what*).
   */
  readonly credentials = new Credentials();
  /** The readiness seam: modules register contributors that `GET <fw>/ready` asks (see docs/operations.md). */
  readonly readiness = new Readiness();
  /**
   * The URLs modules serve that a person wants to know (dashboard, MCP, agents): logged once,
   * with the app's origin, when a server fw serves on starts listening (docs/runtime.md).
   */
  readonly endpoints = new Endpoints();
  /** The requests fw's routes are answering, which `close()` lets finish (see RequestDrain). */
  readonly requests = new RequestDrain();
  readonly httpRoutes = new RouteTable<HttpRouteHandler>();
  readonly upgradeRoutes = new RouteTable<UpgradeRouteHandler>();
  private readonly modules: FrameworkModule[] = [];
  private readonly detachers: (() => void)[] = [];
  private readonly closeHooks: (() => void | Promise<void>)[] = [];
  private startPromise: Promise<void> | undefined;
  private started = false;
  private closing: Promise<void> | undefined;
  private closed = false;
  private readonly probes: Set<string>;

  constructor(options: FrameworkOptions = {}) {
    const { configFile, env, logger, ...props } = options;
    this.config = new Config(props as ConfigSource, { ...(env ? { env } : {}), ...(configFile !== undefined ? { configFile } : {}) });
    this.config.declare(RUNTIME_CONFIG);
    this.logger = logger ?? createDefaultLogger(parseLogLevel(this.config.get('fw.log.level')));
    this.log = this.logger.child({ module: 'framework' });
    this.config.warn = (message) => this.log.warn({}, message);
    const eventLog = this.logger.child({ module: 'events' });
    this.events.onListenerError = (err, event) => eventLog.error({ err, event: event.type }, 'event listener failed');
    this.security = SecurityPolicy.fromConfig(this.config);
    this.security.log = this.logger.child({ module: 'security' });
    this.runtime = new Runtime(this);
    this.metrics = new FwMetrics(this.runtime, this.events, {
      enabled: this.config.get('fw.metrics.enabled'),
      processMetrics: this.config.get('fw.metrics.process'),
    });
    mountClientAssets(this);
    mountProbes(this);
    // A credential works on the metrics endpoint too; with authentication configured, loopback needs one.
    mountMetrics(this, () => this.services.get('metrics.authenticator') ?? frameworkAuthenticator(this));
    this.probes = new Set(Object.values(probePaths(this.path)));
    this.onClose(() => this.runtime.close());
    this.untrack = trackFramework(this);
  }

  private readonly untrack: () => void;

  /**
   * The frameworks of this process that are not closed, oldest first. One app has one; a
   * process-wide API (`McpRegistry.get()`) uses it when there is exactly one and asks for the
   * framework by name otherwise.
   */
  static live(): Framework[] {
    return liveFrameworks();
  }

  /** The application's logger (or fw's default); modules log through `logger.child({ module })`. */
  readonly logger: Logger;
  private readonly log: Logger;

  /**
   * Host allow-list, Origin policy, trusted proxies, public URL and JSON limits (docs/security.md).
   * Every request and upgrade to an fw route is screened with it before the route runs.
   */
  readonly security: SecurityPolicy;

  /**
   * The real-time runtime's read/control interface (RuntimeView): stats, broadcasters, resources
   * (paged and filterable), handlers, interceptors; broadcast, unicast, destroy, disconnect.
   */
  readonly runtime: Runtime;

  /**
   * fw's Prometheus metrics (a registry of its own, served at `<fw>/metrics`); modules and the
   * app may add theirs to `metrics.registry`. See docs/operations.md.
   */
  readonly metrics: FwMetrics;

  /** The broadcaster factory: lookup / create / destroy / list. */
  get broadcasters(): BroadcasterFactory {
    return this.runtime.broadcasters;
  }

  /** Every live resource by uuid. */
  get resources(): ResourceRegistry {
    return this.runtime.resources;
  }

  /**
   * Registers a real-time handler on a path pattern relative to the framework path
   * (`/chat/{room}` serves `/fw/chat/lobby`) over all four transports. Returns a remover.
   */
  handle(pattern: string, handler: Handler, options?: HandlerOptions): () => void {
    return this.runtime.handle(pattern, handler, options);
  }

  /** Adds a global interceptor; it runs before handler interceptors. Returns a remover. */
  intercept(interceptor: Interceptor): () => void {
    return this.runtime.intercept(interceptor);
  }

  /** `starting` until `start()` finished, `running`, `draining` once `close()` began, then `closed`. */
  get phase(): LifecyclePhase {
    if (this.closed) return 'closed';
    if (this.closing) return 'draining';
    return this.started ? 'running' : 'starting';
  }

  /** The framework path under which real-time handlers live (default `/fw`). */
  get path(): string {
    return this.config.get('fw.path');
  }

  /** Registers an HTTP route fw owns. Returns a function that removes it. */
  route(method: Method, path: string, handler: HttpRouteHandler): () => void {
    return this.httpRoutes.add(method, path, handler);
  }

  /** Registers a WebSocket upgrade route fw owns. */
  upgrade(path: string, handler: UpgradeRouteHandler): () => void {
    return this.upgradeRoutes.add('GET', path, handler);
  }

  /**
   * Installs a module: the one way fw's add-on packages (`mcp()`, `agents()`, `admin()`, `cluster()`)
   * and an app's own modules plug in (`await fw.use(admin())`). Install them before `attach`/`listen`; a module
   * switched off by its property (`fw.admin.enabled=false`) installs nothing.
   */
  async use(module: FrameworkModule): Promise<this> {
    if (this.modules.some((m) => m.name === module.name)) throw new Error(`module '${module.name}' is already installed`);
    this.modules.push(module);
    await module.install(this);
    return this;
  }

  hasModule(name: string): boolean {
    return this.modules.some((m) => m.name === name);
  }

  /** Runs `fn` on close, before servers stop (in reverse registration order). */
  onClose(fn: () => void | Promise<void>): void {
    this.closeHooks.push(fn);
  }

  /**
   * Warns about unknown keys (every installed module has declared its keys by now), arms the
   * signal handlers and moves to `running`. Idempotent; `attach` and `listen` call it.
   */
  start(): Promise<void> {
    this.startPromise ??= Promise.resolve().then(() => {
      this.config.warnUnknown();
      const signals = parseSignals(this.config.get('fw.close.signals'));
      if (signals.length > 0 && !this.closing) this.onClose(drainOnSignals(signals, () => this.close()));
      this.started = true;
    });
    return this.startPromise;
  }

  /** Takes over fw's routes on an existing server. Call after the app installed its own handler. */
  attach(server: Server): this {
    void this.start().catch((err: unknown) => this.log.error({ err }, 'startup failed'));
    const appRequest = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
    const appUpgrade = server.listeners('upgrade') as ((req: IncomingMessage, socket: Duplex, head: Buffer) => void)[];
    server.removeAllListeners('request');
    server.removeAllListeners('upgrade');

    const app =
      appRequest.length > 0
        ? (req: IncomingMessage, res: ServerResponse): void => {
            for (const l of appRequest) l.call(server, req, res);
          }
        : undefined;
    const onRequest = (req: IncomingMessage, res: ServerResponse): void => this.serveRequest(req, res, app);

    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
      // Node's server takes its own `error` listener off a socket it hands to `upgrade`; until
      // `ws` adopts it (after an async admission) a reset would be an uncaught exception.
      socket.on('error', destroySocket);
      upgrade(req, socket, head);
    };
    const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
      if (!this.started) {
        this.start().then(
          () => upgrade(req, socket, head),
          () => socket.destroy(),
        );
        return;
      }
      const routing = this.routeUpgrade(req);
      switch (routing.kind) {
        case 'refused':
          rejectUpgrade(socket, routing.status, routing.code, routing.detail, routing.headers);
          return;
        case 'route':
          try {
            const r = routing.handler(req, socket, head, routing.ctx);
            if (r && typeof (r as Promise<void>).catch === 'function') (r as Promise<void>).catch(() => socket.destroy());
          } catch {
            socket.destroy();
          }
          return;
        case 'none':
          if (appUpgrade.length > 0) {
            for (const l of appUpgrade) l.call(server, req, socket, head);
            return;
          }
          rejectUpgrade(socket, 404, 'not_found', `no WebSocket endpoint at ${routing.path}`);
      }
    };

    server.on('request', onRequest);
    server.on('upgrade', onUpgrade);
    // Say where fw is, once, when the server listens (now, if it already does).
    const announce = (): void => {
      const address = server.address();
      if (address && typeof address === 'object') logListening(this.log, address, this.security.publicUrl, this.endpoints);
    };
    if (server.listening) announce();
    else server.once('listening', announce);
    this.detachers.push(() => {
      server.off('listening', announce);
      server.off('request', onRequest);
      server.off('upgrade', onUpgrade);
      for (const l of appRequest) server.on('request', l);
      for (const l of appUpgrade) server.on('upgrade', l);
    });
    return this;
  }

  /**
   * Where a WebSocket upgrade goes, whatever server received it (node:http's `upgrade` event or
   * Bun's fetch handler): an fw route, screened first (a foreign Host or Origin never gets a
   * socket; none while draining), or no fw route. Call once the framework has started.
   */
  routeUpgrade(req: IncomingMessage): UpgradeRouting {
    const url = parseUrl(req);
    const m = url ? this.upgradeRoutes.match('GET', url.pathname) : { kind: 'none' as const };
    if (m.kind !== 'found' || !url) return { kind: 'none', path: url?.pathname ?? req.url ?? '/' };
    const refusal = this.security.screen(req);
    if (refusal) {
      this.security.refused(req, url, refusal);
      return { kind: 'refused', status: refusal.status, code: refusal.code, detail: refusal.detail };
    }
    if (this.closing) {
      return {
        kind: 'refused',
        status: 503,
        code: 'shutting_down',
        detail: 'the server is shutting down',
        headers: { 'retry-after': this.retryAfter() },
      };
    }
    return { kind: 'route', handler: m.handler, ctx: { params: m.params, url } };
  }

  /**
   * Serves one request on fw's routes (screened first), or hands it to the app's own listener
   * (`app`), or answers 404/405. The same path for a node:http server fw is attached to and for
   * `Bun.serve` (its fetch handler passes the request as node:http objects, src/bun/).
   */
  serveRequest(req: IncomingMessage, res: ServerResponse, app?: (req: IncomingMessage, res: ServerResponse) => void): void {
    const url = parseUrl(req);
    // Probes answer at once while starting (readiness then says so); everything else waits.
    if (!this.started && !(url && this.probes.has(url.pathname))) {
      this.start().then(
        () => this.serveRequest(req, res, app),
        (err) => sendError(res, err),
      );
      return;
    }
    // OPTIONS on any fw path is a CORS preflight fw answers from its policy, whatever the route.
    const methods = url && req.method === 'OPTIONS' ? this.httpRoutes.methods(url.pathname) : [];
    if (url && methods.length > 0) {
      const refusal = this.security.screen(req);
      if (refusal) return this.refuse(req, res, url, refusal);
      this.security.preflight(req, res, methods);
      return;
    }
    const m = url ? this.httpRoutes.match(req.method ?? 'GET', url.pathname) : { kind: 'none' as const };
    if (m.kind === 'found' && url) {
      // Probes are exempt: orchestrators call them by IP address, and they reveal nothing.
      const probe = this.probes.has(url.pathname);
      const refusal = probe ? undefined : this.security.screen(req);
      if (refusal) return this.refuse(req, res, url, refusal);
      for (const [k, v] of Object.entries(this.security.corsHeaders(req))) res.setHeader(k, v);
      if (!probe) {
        // Draining: what is in flight finishes, nothing new starts (the balancer retries elsewhere).
        if (this.closing) return this.refuseWhileDraining(req, res);
        this.requests.track(res);
      }
      if (this.metrics.enabled) this.timeRequest(req, res, m.route);
      try {
        // A W3C traceparent continues the caller's trace in every span the route starts.
        const r = withContext(incomingContext(req), () => m.handler(req, res, { params: m.params, url }));
        if (r && typeof (r as Promise<void>).catch === 'function')
          (r as Promise<void>).catch((err) => this.routeFailed(req, url, res, err));
      } catch (err) {
        this.routeFailed(req, url, res, err);
      }
      return;
    }
    if (app !== undefined) {
      app(req, res);
      return;
    }
    if (m.kind === 'method-not-allowed') {
      sendProblem(res, 405, 'method_not_allowed', `${req.method} is not allowed on ${url?.pathname}`, undefined, {
        allow: m.allow.join(', '),
      });
    } else {
      sendProblem(res, 404, 'not_found', `no route for ${req.method} ${url?.pathname ?? req.url}`);
    }
  }

  /** Observes the request's duration once its response is finished (or its connection gone). */
  private timeRequest(req: IncomingMessage, res: ServerResponse, route: string): void {
    const started = performance.now();
    const done = (): void => {
      res.off('finish', done);
      res.off('close', done);
      this.metrics.observeHttp(route, req.method ?? 'GET', res.statusCode, (performance.now() - started) / 1000);
    };
    res.on('finish', done);
    res.on('close', done);
  }

  /** `Retry-After` while draining: the drain timeout in whole seconds, by when this node is gone or back. */
  retryAfter(): string {
    return String(Math.max(1, Math.ceil(this.config.get('fw.close.drain-timeout') / 1000)));
  }

  /**
   * A route threw: FwErrors are the client's answer as they are; anything else is a 500 whose
   * body says nothing about why, so the why goes to the log (method, path, the error and its stack).
   */
  private routeFailed(req: IncomingMessage, url: URL, res: ServerResponse, err: unknown): void {
    // The client left (its body cut short, its connection reset): nobody to answer, nothing broken.
    if (res.destroyed) {
      this.log.debug({ method: req.method, path: url.pathname, err }, 'the client left before its answer');
      return;
    }
    if (!(err instanceof FwError) || err.status >= 500) {
      this.log.error({ method: req.method, path: url.pathname, err }, 'route failed');
    }
    sendError(res, err);
  }

  private refuseWhileDraining(req: IncomingMessage, res: ServerResponse): void {
    req.resume();
    // Not again on this connection (unless its body is still arriving: see RequestDrain.begin).
    if (req.complete) res.shouldKeepAlive = false;
    sendProblem(res, 503, 'shutting_down', 'the server is shutting down', undefined, { 'retry-after': this.retryAfter() });
  }

  private refuse(req: IncomingMessage, res: ServerResponse, url: URL, refusal: Refusal): void {
    req.resume();
    sendProblem(res, refusal.status, refusal.code, refusal.detail, undefined, { connection: 'close' });
    this.security.refused(req, url, refusal);
  }

  /**
   * Creates a server, attaches, and listens. Without a port, the port is `fw.port`: `FW_PORT`,
   * else `PORT`, else fw.config.json, else 8080; a port given here is used as is and the
   * environment is not read. Host likewise (`fw.host`, 127.0.0.1). Logs every fw URL it serves
   * once; a port in use or forbidden is a `ListenError` whose message says how to fix it.
   */
  async listen(port?: number, host?: string): Promise<AddressInfo> {
    await this.start();
    const p = port ?? this.config.get('fw.port');
    const h = host ?? this.config.get('fw.host');
    const bun = bunRuntime();
    if (bun !== undefined && this.config.get('fw.bun.native')) return this.listenOnBun(bun, p, h, port !== undefined);
    const server = createServer();
    this.attach(server);
    await new Promise<void>((resolve, reject) => {
      const fail = (err: unknown): void => {
        for (const d of this.detachers.splice(this.detachers.length - 1)) d();
        reject(listenFailure(err, p, h, this.config, port !== undefined));
      };
      server.once('error', fail);
      server.listen(p, h, () => {
        server.off('error', fail);
        resolve();
      });
    });
    this.ownServers.add(server);
    return server.address() as AddressInfo;
  }

  private readonly ownServers = new Set<Server>();
  private readonly bunServers = new Set<BunServer>();
  /** Broadcasts through Bun's topics (`fw.bun.topics`), once `listen()` serves on Bun. */
  private bunTopics: BunTopics | undefined;

  /** `listen()` on Bun: `Bun.serve` with native WebSockets (src/bun/, docs/bun.md). */
  private listenOnBun(bun: BunGlobal, port: number, host: string, portGiven: boolean): AddressInfo {
    let server: BunServer;
    const topics = this.config.get('fw.bun.topics') ? (this.bunTopics ??= new BunTopics()) : undefined;
    try {
      server = serveOnBun(bun, this, port, host, this.log, topics !== undefined);
    } catch (err) {
      throw listenFailure(err, port, host, this.config, portGiven);
    }
    this.bunServers.add(server);
    if (topics !== undefined) {
      topics.servers.add(server);
      this.runtime.topics = topics;
    }
    const address = bunAddress(server);
    logListening(this.log, address, this.security.publicUrl, this.endpoints);
    return address;
  }

  /** Where fw listens itself (from `listen`), on Node or on Bun. */
  get listeningAddresses(): AddressInfo[] {
    return [...[...this.ownServers].map((s) => s.address() as AddressInfo), ...[...this.bunServers].map(bunAddress)];
  }

  /** The servers fw listens on itself (from `listen`). */
  get listeningServers(): Server[] {
    return [...this.ownServers];
  }

  /**
   * Graceful close (docs/operations.md, *Shutdown*): fw's routes refuse new requests (503 with
   * `Retry-After`) at once; requests in flight, uploads included, get `fw.close.drain-timeout` to
   * be answered, and those still unanswered then get the 503; then the close hooks run
   * (transports end their connections as a drop and drain them), modules close in reverse order,
   * and the servers fw created close once their connections have ended, within a second
   * `fw.close.drain-timeout` (attached servers are detached, not closed).
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      // Refuse new connections from the first moment of draining, not only once the runtime's
      // own hook (registered first, so run last) ends the open ones.
      this.runtime.closing = true;
      const drain = this.config.get('fw.close.drain-timeout');
      this.requests.begin();
      // Resources stay up meanwhile: a message POST in flight is taken (and acknowledged) by its resource.
      await this.requests.settle(Date.now() + drain);
      const refused = this.requests.refuseUnanswered(this.retryAfter());
      if (refused > 0) this.log.warn({ refused }, `requests still unanswered after fw.close.drain-timeout (${drain} ms) answered 503`);
      const deadline = Date.now() + drain;
      this.runtime.drainDeadline = deadline;
      for (const hook of [...this.closeHooks].reverse()) {
        try {
          await hook();
        } catch (err) {
          this.log.error({ err }, 'close hook failed');
        }
      }
      for (const m of [...this.modules].reverse()) {
        try {
          await m.close?.();
        } catch (err) {
          this.log.error({ err, closing: m.name }, 'closing a module failed');
        }
      }
      // fw keeps answering on its own servers (503) until they are closed: detached first, a
      // request still arriving on an open connection would find no listener and hang.
      await Promise.all([...this.ownServers].map((s) => closeServer(s, deadline)));
      await Promise.all([...this.bunServers].map((s) => closeBunServer(s, deadline)));
      this.ownServers.clear();
      this.bunServers.clear();
      this.bunTopics?.servers.clear();
      this.runtime.topics = undefined;
      for (const d of this.detachers.splice(0)) d();
      this.closed = true;
      this.untrack();
    })();
    return this.closing;
  }
}

/** Where `routeUpgrade` sends an upgrade. */
export type UpgradeRouting =
  | { kind: 'route'; handler: UpgradeRouteHandler; ctx: RouteContext }
  | { kind: 'refused'; status: number; code: string; detail: string; headers?: Record<string, string> }
  | { kind: 'none'; path: string };

/**
 * Stops listening and closes each connection once it is idle (a client reading its 503 or
 * finishing an upload is not cut); whatever is still open at `deadline` is cut.
 */
async function closeServer(server: Server, deadline: number): Promise<void> {
  let closed = false;
  server.close(() => {
    closed = true;
  });
  while (!closed && Date.now() < deadline) {
    server.closeIdleConnections();
    await new Promise((r) => setTimeout(r, 10));
  }
  if (closed) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => {
    if (closed) return resolve();
    // Upgraded sockets are not the HTTP server's to cut; the runtime ended them already.
    const t = setTimeout(resolve, 1000);
    server.once('close', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

/** Stops a Bun server: open requests may finish until `deadline`, then every connection is cut. */
async function closeBunServer(server: BunServer, deadline: number): Promise<void> {
  // Resolves once every request has been answered (the streams ended by the runtime included).
  const graceful = server.stop(false).then(() => true);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
  });
  const done = await Promise.race([graceful, late]);
  clearTimeout(timer);
  if (!done) await server.stop(true);
}

function parseUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

/** A socket that failed (a reset, a write after the peer left) is closed; nothing else is owed. */
function destroySocket(this: Duplex): void {
  this.destroy();
}
