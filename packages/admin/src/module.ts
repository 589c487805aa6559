import type { IncomingMessage } from 'node:http';
import type { Framework, FrameworkModule } from '@fw/runtime';
import { mountRoutes } from './api/router.js';
import { adminRoutes } from './api/routes.js';
import { AuditLog } from './audit.js';
import { ALLOW_ALL, type ControlAuthorizer } from './authorizer.js';
import { ADMIN_CONFIG } from './config.js';
import { ControlPlane } from './control.js';
import { DASHBOARD_DIR, mountDashboard } from './dashboard.js';
import { EventStream } from './event-stream.js';
import { AdminGate } from './gate.js';
import { registerMcpTools } from './mcp-tools.js';
import type { PrincipalResolver } from './principal.js';
import type { RealtimeFramework } from './realtime.js';
import type { AdminService } from './service.js';
import { Views } from './views.js';

/** REST base path of the admin API. */
export const ADMIN_API_BASE = '/api/admin';

export interface AdminOptions {
  /** Gate for write operations (spec §5). Default: the app's `admin.authorizer` service, the `adminAuthorizer` option, else permit all. */
  authorizer?: ControlAuthorizer;
  /** Resolves the caller's principal. Default: the `admin.principal-resolver` service, the `adminPrincipalResolver` option, else the bearer token only. */
  principalResolver?: PrincipalResolver;
  /** Directory of the dashboard's static files (default: the package's `dashboard/`). */
  dashboardDir?: string;
}

/**
 * The admin control plane: REST API under `/api/admin/`, the event stream at `/fw/admin/events`,
 * the dashboard at `/fw/admin/`, the audit log and the admin MCP tools.
 */
export class AdminModule implements FrameworkModule {
  readonly name = '@fw/admin';
  private readonly cleanups: (() => void)[] = [];
  private events: EventStream | undefined;

  constructor(private readonly options: AdminOptions = {}) {}

  async install(fw: Framework): Promise<void> {
    fw.config.declare(ADMIN_CONFIG);
    if (!fw.config.get<boolean>('fw.admin.enabled')) return;
    const get = <T>(key: string): T => fw.config.get<T>(key);

    const resolver = this.options.principalResolver
      ?? fw.services.get<PrincipalResolver>('admin.principal-resolver')
      ?? fw.config.option<PrincipalResolver>('adminPrincipalResolver');
    // Looked up at every write, so an app may provide or replace it after start.
    const authorizer = (): ControlAuthorizer => this.options.authorizer
      ?? fw.services.get<ControlAuthorizer>('admin.authorizer')
      ?? fw.config.option<ControlAuthorizer>('adminAuthorizer')
      ?? ALLOW_ALL;

    const gate = new AdminGate({
      token: get<string>('fw.admin.auth.token'),
      resolver: typeof resolver === 'function' ? resolver : undefined,
      allowRemoteUnauthenticated: get<boolean>('fw.admin.allow-remote-unauthenticated'),
    });
    if (!gate.authRequired && get<boolean>('fw.admin.allow-remote-unauthenticated')) {
      console.warn('[fw] WARNING: the admin plane accepts unauthenticated requests from any address ' +
        '(fw.admin.allow-remote-unauthenticated=true); set fw.admin.auth.token in production');
    }

    const file = get<string>('fw.admin.audit.file');
    const audit = new AuditLog(get<number>('fw.admin.audit.max-entries'), file || undefined);
    const views = new Views(fw);
    const control = new ControlPlane(views, audit, fw.events, authorizer);
    const events = new EventStream(fw as RealtimeFramework, gate, {
      recent: get<number>('fw.admin.events.recent'),
      maxQueue: get<number>('fw.admin.events.max-queue'),
    });
    this.events = events;
    events.start();

    const pageDefault = get<number>('fw.admin.page.default-limit');
    const pageMax = get<number>('fw.admin.page.max-limit');
    const dashboardDir = this.options.dashboardDir ?? DASHBOARD_DIR;
    const dashboardPrefixes = [`${fw.path}/admin/`];
    this.cleanups.push(mountRoutes(fw, ADMIN_API_BASE, adminRoutes({
      views, control, audit, events, gate, pageDefault, pageMax, maxBody: get<number>('fw.admin.max-body'),
    }), { gate, control, dashboardPrefixes: () => dashboardPrefixes }));
    this.cleanups.push(mountDashboard(fw, `${fw.path}/admin`, dashboardDir));

    const mcpWriteTools = get<boolean>('fw.admin.mcp-write-tools');
    const service: AdminService = {
      views, control, audit, events, gate, pageDefault, pageMax, mcpWriteTools,
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
    // MCP sessions (and any other module) resolve their principal the way the admin plane does,
    // so the admin MCP tools see the same principal as REST. An app's own resolver service wins.
    if (!fw.services.get('principal-resolver')) {
      fw.services.provide('principal-resolver', (req: IncomingMessage) => gate.resolve(req, new URL(req.url ?? '/', 'http://localhost'), false));
    }

    if (get<boolean>('fw.admin.mcp-tools')) {
      const unregister = await registerMcpTools({ write: mcpWriteTools });
      if (unregister) this.cleanups.push(unregister);
    }
  }

  close(): void {
    this.events?.close();
    for (const c of this.cleanups.splice(0).reverse()) c();
  }
}
