import { join, resolve } from 'node:path';
import {
  chainAuthenticators,
  clientAddress as runtimeClientAddress,
  frameworkAuthenticator,
  tokenFromConfig,
  type Authenticator,
  type Framework,
  type FrameworkModule,
  type Logger,
} from '@fw/runtime';
import { mountRoutes } from './api/router.js';
import { adminRoutes } from './api/routes.js';
import { AuditLog, REFUSAL_LOG, type AuditSink } from './audit.js';
import { FileAuditSink } from './audit-file.js';
import { storeAuditSinkFor } from './audit-store.js';
import { ALLOW_ALL, type ControlAuthorizer } from './authorizer.js';
import { ADMIN_CONFIG } from './config.js';
import { ControlPlane } from './control.js';
import { registerClusterControl } from './cluster-control.js';
import { DASHBOARD_DIR, mountDashboard } from './dashboard.js';
import { EventStream } from './event-stream.js';
import { AdminGate } from './gate.js';
import { Governance } from './governance/governance.js';
import { History } from './history.js';
import { mountAdminMcp } from './mcp-tools.js';
import { adminTokenAuthenticator, type ClientAddress } from './principal.js';
import { countControlActions } from './seams.js';
import type { RealtimeFramework } from './realtime.js';
import type { AdminService } from './service.js';
import { Views } from './views.js';
import { collectMetrics, registerAdminMetrics } from './metrics.js';

/** REST base path of the admin API. */
export const ADMIN_API_BASE = '/api/admin';

export interface AdminOptions {
  /** Gate for write operations (spec §5). Default: the app's `admin.authorizer` service, the `adminAuthorizer` option, else permit all. */
  authorizer?: ControlAuthorizer;
  /**
   * Resolves the caller's principal, asked before the admin token and `fw.auth.*`. Default: the
   * `adminPrincipalResolver` option. (A resolver for every surface is the service `'authenticator'`.)
   */
  principalResolver?: Authenticator;
  /** Directory of the dashboard's static files (default: the package's `dashboard/`). */
  dashboardDir?: string;
  /**
   * Where audit records are kept durably. Default: the service `'admin.audit-sink'`, else the file
   * fw.admin.audit.file when set, else the store's PostgreSQL when fw.store.postgres-url is set
   * (needs @fw/store), else audit.jsonl in fw.data-dir (memory only when that is empty too).
   */
  auditSink?: AuditSink;
}

/** Where the REST API is reached: fw.public-url (its origin and path) plus the base, or the relative base when unset. */
export function serverUrlOf(publicUrl: URL | undefined): string {
  return publicUrl ? `${publicUrl.href.replace(/\/+$/, '')}${ADMIN_API_BASE}` : ADMIN_API_BASE;
}

/** The admin MCP endpoint, under the framework path: `/fw/admin/mcp`. */
export const ADMIN_MCP_PATH = '/admin/mcp';

/**
 * The admin control plane: REST API under `/api/admin/`, the event stream at `/fw/admin/events`,
 * the dashboard at `/fw/admin/`, the audit log and the admin MCP tools.
 */
export class AdminModule implements FrameworkModule {
  readonly name = '@fw/admin';
  private readonly cleanups: (() => void)[] = [];
  private events: EventStream | undefined;
  private history: History | undefined;
  private audit: AuditLog | undefined;
  private governance: Governance | undefined;
  private releaseAuditStore: (() => Promise<void>) | undefined;

  constructor(private readonly options: AdminOptions = {}) {}

  async install(fw: Framework): Promise<void> {
    fw.config.declare(ADMIN_CONFIG);
    if (!fw.config.get('fw.admin.enabled')) return;
    countControlActions(fw);
    const get = fw.config.get.bind(fw.config);
    const log = fw.logger.child({ module: 'admin' });

    const resolver = this.options.principalResolver ?? fw.config.option('adminPrincipalResolver');
    // Looked up at every write, so an app may provide or replace it after start.
    const authorizer = (): ControlAuthorizer =>
      this.options.authorizer ?? fw.services.get('admin.authorizer') ?? fw.config.option('adminAuthorizer') ?? ALLOW_ALL;

    // The chain: the app's resolver, the admin token (the `admin` principal), then fw.auth.* (tokens, JWT, custom).
    const chain: Authenticator[] = [];
    if (typeof resolver === 'function') chain.push(resolver);
    // The same token rule as fw.auth.tokens and fw.metrics.token (16+ characters); an error names where the value came from.
    const token = tokenFromConfig(fw.config, 'fw.admin.auth.token');
    if (token) chain.push(adminTokenAuthenticator(token));
    const shared = frameworkAuthenticator(fw);
    if (shared) chain.push(shared);
    // The runtime's client address (a trusted proxy's forwarded one); the service `'client-address'` overrides it.
    const clientAddress: ClientAddress = (req) => fw.services.get('client-address')?.(req) ?? runtimeClientAddress(req);
    const gate = new AdminGate({
      authenticator: chain.length === 0 ? undefined : chain.length === 1 ? chain[0] : chainAuthenticators(chain),
      allowRemoteUnauthenticated: get('fw.admin.allow-remote-unauthenticated'),
      clientAddress,
      isRevoked: (principal) => fw.credentials.isRevoked(principal),
    });
    if (!gate.authRequired && get('fw.admin.allow-remote-unauthenticated')) {
      log.warn(
        { key: 'fw.admin.allow-remote-unauthenticated' },
        'the admin plane accepts unauthenticated requests from any address; configure fw.auth.tokens or fw.auth.jwt.* in production',
      );
    }

    const audit = await new AuditLog(
      {
        maxEntries: get('fw.admin.audit.max-entries'),
        refusals: {
          maxEntries: get('fw.admin.audit.refusals.max-entries'),
          windowMs: get('fw.admin.audit.refusals.window'),
          maxOpen: get('fw.admin.audit.refusals.max-open'),
          maxDistinct: get('fw.admin.audit.refusals.max-distinct'),
          maxValueLength: get('fw.admin.audit.refusals.max-value-length'),
        },
      },
      await this.auditSink(fw, log),
      log,
    ).open();
    this.audit = audit;
    // Cluster mode: a refusal record joins the shared log when its window closes (an action
    // record is appended by the control plane as it happens), in a list of its own so refusals
    // never trim action records out of the shared log either.
    this.cleanups.push(
      audit.onSealed(
        (entry) =>
          void fw.services
            .get('cluster')
            ?.append(REFUSAL_LOG, entry)
            .catch(() => false),
      ),
    );
    // Not ready while the sink cannot be written: this node refuses admin writes (fail closed), so a
    // balancer should send its traffic elsewhere. The state is the last write's; each later record
    // tries the sink again (refusals and reads of the log are recorded too), so it recovers by itself.
    this.cleanups.push(
      fw.readiness.register('audit', () =>
        audit.available ? { ready: true } : { ready: false, detail: 'the audit log cannot be written' },
      ),
    );
    const views = new Views(fw);
    const control = new ControlPlane(views, audit, fw.events, authorizer, () => gate.authRequired, log);
    // A room's refusals (docs/rooms.md) join the refusal records, aggregated like every other refusal.
    this.cleanups.push(
      fw.events.on('RoomRefused', (e) => {
        void audit.note({
          action: `room.${e.action}`,
          target: e.room,
          principal: e.principal,
          address: null,
          success: false,
          outcome: 'refused',
          reason: e.reason,
          source: 'realtime',
        });
      }),
    );
    // Cluster mode: writes routed here by other nodes pass this node's own rules before they act.
    fw.services.whenProvided('cluster', (cluster) => {
      if (this.audit === audit) this.cleanups.push(registerClusterControl(cluster, control, views));
    });
    // The kill switch and the policies: on the agent host's run hooks, in the store, on the cluster (governance/).
    const governance = new Governance(
      fw,
      control,
      {
        syncIntervalMs: get('fw.admin.governance.sync-interval'),
        policyFile: get('fw.admin.governance.policy-file'),
        decisionLogSize: get('fw.admin.governance.decision-log-size'),
        approvals: {
          timeoutMs: () => fw.config.get('fw.governance.approval-timeout'),
          retentionMs: () => fw.config.get('fw.governance.approval-retention'),
          sweepIntervalMs: get('fw.governance.approval-sweep-interval'),
        },
      },
      log,
    );
    this.governance = governance;
    governance.start();
    const events = new EventStream(
      fw as RealtimeFramework,
      gate,
      {
        recent: get('fw.admin.events.recent'),
        maxQueue: get('fw.admin.events.max-queue'),
      },
      (refused, path) =>
        audit
          .note({
            action: 'read',
            target: path,
            principal: refused.principal?.id ?? null,
            address: refused.address ?? null,
            success: false,
            outcome: 'refused',
            reason: refused.detail,
            source: 'events',
          })
          .then(() => undefined),
    );
    this.events = events;
    events.start();
    const history = new History(
      views,
      (listener) => fw.events.onAny(listener),
      {
        intervalMs: fw.config.get('fw.admin.history.interval-ms'),
        samples: fw.config.get('fw.admin.history.samples'),
      },
      log,
    );
    this.history = history;
    history.onSample((sample) => events.publish({ type: 'HistorySample', ...sample }));
    history.start();
    this.cleanups.push(registerAdminMetrics(fw, () => collectMetrics(views, events.stats(), audit.size)));

    const pageDefault = get('fw.admin.page.default-limit');
    const pageMax = get('fw.admin.page.max-limit');
    const dashboardDir = this.options.dashboardDir ?? DASHBOARD_DIR;
    const dashboardPrefixes = [`${fw.path}/admin/`];
    this.cleanups.push(
      mountRoutes(
        fw,
        ADMIN_API_BASE,
        adminRoutes({
          views,
          control,
          audit,
          events,
          history,
          governance,
          gate,
          pageDefault,
          pageMax,
          metrics: fw.metrics,
          serverUrl: serverUrlOf(fw.security.publicUrl),
        }),
        { gate, control, audit, maxBody: get('fw.admin.max-body'), dashboardPrefixes: () => dashboardPrefixes },
      ),
    );
    this.cleanups.push(mountDashboard(fw, `${fw.path}/admin`, dashboardDir));
    // Logged with the other fw URLs when the server starts listening.
    this.cleanups.push(fw.endpoints.add('dashboard', `${fw.path}/admin/`), fw.endpoints.add('admin API', `${ADMIN_API_BASE}/`));

    const mcpWriteTools = get('fw.admin.mcp-write-tools');
    const service: AdminService = {
      views,
      control,
      audit,
      events,
      history,
      governance,
      gate,
      pageDefault,
      pageMax,
      mcpWriteTools,
      mcpApproval: get('fw.admin.mcp-approval'),
      authRequired: gate.authRequired,
      mountDashboard: (prefix) => {
        const p = prefix.replace(/\/+$/, '');
        dashboardPrefixes.push(`${p}/`);
        const remove = mountDashboard(fw, p, dashboardDir);
        this.cleanups.push(remove);
        return remove;
      },
    };
    fw.services.provide('admin', service);
    // With authentication configured, /fw/metrics accepts the admin plane's credentials too (its
    // token, its resolver, fw.auth.*) and no longer answers a credential-less loopback caller.
    if (gate.authRequired && !fw.services.get('metrics.authenticator')) {
      fw.services.provide('metrics.authenticator', (req, url, context) => gate.resolve(req, url, context?.socket ?? false));
    }
    // MCP sessions (and any other module) resolve their principal the way the admin plane does,
    // so the admin MCP tools see the same principal as REST. An app's own resolver service wins.
    if (!fw.services.get('principal-resolver')) {
      fw.services.provide('principal-resolver', (req, url) => gate.resolve(req, url, false));
    }

    if (get('fw.admin.mcp-tools')) {
      const unmount = await mountAdminMcp(fw, service, {
        path: `${fw.path}${ADMIN_MCP_PATH}`,
        write: mcpWriteTools,
        onUserServer: get('fw.admin.mcp-tools-on-user-server'),
      });
      if (unmount) this.cleanups.push(unmount);
    }
  }

  private async auditSink(fw: Framework, log: Logger): Promise<AuditSink | undefined> {
    const given = this.options.auditSink ?? fw.services.get('admin.audit-sink');
    if (given) return given;
    const configured = fw.config.get('fw.admin.audit.file');
    if (!configured) {
      // Production on PostgreSQL: the audit log lives in the same database as tasks and sessions.
      const store = await storeAuditSinkFor(fw, {
        maxEntries: fw.config.get('fw.admin.audit.store-max-entries'),
        maxRefusals: fw.config.get('fw.admin.audit.refusals.store-max-entries'),
      });
      if (store) {
        this.releaseAuditStore = store.release;
        return store.sink;
      }
    }
    const dataDir = fw.config.get('fw.data-dir');
    const file = configured ? resolve(configured) : dataDir ? resolve(join(dataDir, 'audit.jsonl')) : undefined;
    if (!file) return undefined;
    return new FileAuditSink(file, {
      maxBytes: fw.config.get('fw.admin.audit.max-file-bytes'),
      maxFiles: fw.config.get('fw.admin.audit.max-files'),
      refusals: {
        maxBytes: fw.config.get('fw.admin.audit.refusals.max-file-bytes'),
        maxFiles: fw.config.get('fw.admin.audit.refusals.max-files'),
      },
      log,
    });
  }

  async close(): Promise<void> {
    this.history?.close();
    this.events?.close();
    this.governance?.close();
    for (const c of this.cleanups.splice(0).reverse()) c();
    await this.audit?.close();
    await this.releaseAuditStore?.();
    this.releaseAuditStore = undefined;
  }
}
