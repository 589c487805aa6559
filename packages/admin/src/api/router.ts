import type { IncomingMessage, ServerResponse } from 'node:http';
import { RouteTable, requestHost, requireJsonContentType, sendError, sendJson, sendProblem, type Framework, type Principal } from '@fw/runtime';
import type { ControlAction } from '../authorizer.js';
import type { AuditSource } from '../audit.js';
import type { ControlPlane } from '../control.js';
import type { AdminGate } from '../gate.js';
import type { RouteDoc } from './route-doc.js';

export interface AdminRequest {
  req: IncomingMessage;
  url: URL;
  params: Record<string, string>;
  principal: Principal | undefined;
  source: AuditSource;
}

export type Reply =
  | { kind: 'json'; body: unknown; status?: number }
  | { kind: 'list'; items: unknown[]; total: number; missing?: string[]; /** cursor of the next page (X-Next-Cursor) */ next?: string }
  | { kind: 'text'; body: string; contentType: string };

export interface AdminRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** Relative to the REST base, e.g. `/resources/{uuid}`. */
  path: string;
  /** Set on write routes: the action, and the path parameter naming its target (for auditing refusals). */
  write?: { action: ControlAction; target?: string };
  /** What the route does: the OpenAPI document (`/openapi.json`) is generated from these. */
  doc: RouteDoc;
  handle(r: AdminRequest): Reply | Promise<Reply>;
}

export interface RouterDeps {
  gate: AdminGate;
  control: ControlPlane;
  /** Path prefixes the dashboard is served at: requests from its pages are audited as `dashboard`. */
  dashboardPrefixes: () => readonly string[];
}

/** Mounts the routes under `base` on fw's route table. Returns a function that removes them. */
export function mountRoutes(fw: Framework, base: string, routes: readonly AdminRoute[], deps: RouterDeps): () => void {
  const removers = routes.map((route) => fw.route(route.method, base + route.path, (req, res, ctx) => serve(route, req, res, ctx.url, ctx.params, deps)));
  // Writes the framework refused for their Host or Origin (before any route ran) are audited too.
  const writes = new RouteTable<AdminRoute>();
  for (const route of routes) if (route.write) writes.add(route.method, base + route.path, route);
  removers.push(fw.security.onRefusal((req, url, refusal) => {
    const m = writes.match(req.method ?? 'GET', url.pathname);
    if (m.kind !== 'found' || !m.handler.write) return;
    const { action, target } = m.handler.write;
    deps.control.refuseUnauthenticated(action, (target ? m.params[target] : undefined) ?? '*', sourceOf(req, deps.dashboardPrefixes()), refusal.code === 'origin_not_allowed' ? 'origin not allowed' : 'host not allowed');
  }));
  return () => removers.forEach((r) => r());
}

async function serve(route: AdminRoute, req: IncomingMessage, res: ServerResponse, url: URL, params: Record<string, string>, deps: RouterDeps): Promise<void> {
  try {
    const source = sourceOf(req, deps.dashboardPrefixes());
    const target = route.write ? (route.write.target ? params[route.write.target] : undefined) ?? '*' : '';
    // A write from another site's page (CSRF against a loopback admin) carries a foreign Origin:
    // the framework refused it (403 origin_not_allowed) before this route ran. A form or
    // text/plain write (no preflight needed) is refused here, before the gate and the handler.
    if (route.write) requireJsonContentType(req);
    // A public route (the API description) is the same for everyone and carries no live data.
    const gate = route.doc.public && !route.write ? { ok: true as const, principal: undefined } : await deps.gate.check(req, url);
    if (!gate.ok) {
      if (route.write) deps.control.refuseUnauthenticated(route.write.action, target, source, gate.detail);
      sendProblem(res, gate.status, gate.code, gate.detail, undefined, gate.headers);
      return;
    }
    const reply = await route.handle({ req, url, params, principal: gate.principal, source });
    switch (reply.kind) {
      case 'json':
        sendJson(res, reply.status ?? 200, reply.body);
        break;
      case 'list':
        sendJson(res, 200, reply.items, {
          'x-total-count': String(reply.total),
          // Cluster mode: the nodes that did not answer in time (the list leaves them out).
          ...(reply.missing?.length ? { 'x-missing-nodes': reply.missing.join(',') } : {}),
          ...(reply.next ? { 'x-next-cursor': reply.next } : {}),
          'access-control-expose-headers': 'X-Total-Count, X-Missing-Nodes, X-Next-Cursor',
        });
        break;
      case 'text':
        res.writeHead(200, { 'content-type': reply.contentType, 'content-length': Buffer.byteLength(reply.body), 'cache-control': 'no-store' });
        res.end(reply.body);
        break;
    }
  } catch (err) {
    sendError(res, err);
  }
}

/** `X-Fw-Admin-Client: dashboard`, or a same-origin Referer under a dashboard path. */
export function sourceOf(req: IncomingMessage, dashboardPrefixes: readonly string[]): AuditSource {
  if (String(req.headers['x-fw-admin-client'] ?? '').toLowerCase() === 'dashboard') return 'dashboard';
  const referer = req.headers.referer;
  if (typeof referer === 'string') {
    try {
      const u = new URL(referer);
      if (u.host === requestHost(req) && dashboardPrefixes.some((p) => u.pathname.startsWith(p))) return 'dashboard';
    } catch {
      // not a URL: not the dashboard
    }
  }
  return 'rest';
}
