import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  FwError,
  readJson,
  RouteTable,
  requestHost,
  requireJsonContentType,
  sendError,
  sendJson,
  sendProblem,
  type Framework,
  type Principal,
} from '@fw/runtime';
import type { ControlAction } from '../authorizer.js';
import type { AuditLog, AuditSource } from '../audit.js';
import type { ControlPlane } from '../control.js';
import type { AdminGate } from '../gate.js';
import type { RouteDoc } from './route-doc.js';

export interface AdminRequest {
  req: IncomingMessage;
  url: URL;
  params: Record<string, string>;
  principal: Principal | undefined;
  source: AuditSource;
  address: string | undefined;
  /** The JSON body of a write route (read and checked before the handler runs; `{}` when optional and absent). */
  body: Record<string, unknown>;
}

export type Reply =
  | { kind: 'json'; body: unknown; status?: number }
  | { kind: 'list'; items: unknown[]; total: number; missing?: string[] /** cursor of the next page (X-Next-Cursor) */; next?: string }
  | { kind: 'text'; body: string; contentType: string };

export interface AdminRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** Relative to the REST base, e.g. `/resources/{uuid}`. */
  path: string;
  /**
   * Set on write routes: the action, where its target is (a path parameter or a body member, so a
   * refusal is audited with the real target) and whether a JSON body is required or optional.
   */
  write?: { action: ControlAction; target: { param: string } | { body: string; default?: string }; body: 'required' | 'optional' };
  /** What the route does: the OpenAPI document (`/openapi.json`) is generated from these. */
  doc: RouteDoc;
  handle(r: AdminRequest): Reply | Promise<Reply>;
}

export interface RouterDeps {
  gate: AdminGate;
  control: ControlPlane;
  audit: AuditLog;
  /** Largest body of a write (fw.admin.max-body). */
  maxBody: number;
  /** Path prefixes the dashboard is served at: requests from its pages are audited as `dashboard`. */
  dashboardPrefixes: () => readonly string[];
}

/** Mounts the routes under `base` on fw's route table. Returns a function that removes them. */
export function mountRoutes(fw: Framework, base: string, routes: readonly AdminRoute[], deps: RouterDeps): () => void {
  const removers = routes.map((route) =>
    fw.route(route.method, base + route.path, (req, res, ctx) => serve(route, req, res, ctx.url, ctx.params, deps)),
  );
  // Writes the framework refused for their Host or Origin (before any route ran) are audited too,
  // with the target of their path (a body target was not read: the request was refused first).
  const writes = new RouteTable<AdminRoute>();
  for (const route of routes) if (route.write) writes.add(route.method, base + route.path, route);
  removers.push(
    fw.security.onRefusal((req, url, refusal) => {
      const m = writes.match(req.method ?? 'GET', url.pathname);
      if (m.kind !== 'found' || !m.handler.write) return;
      const where = m.handler.write.target;
      const target = 'param' in where ? (m.params[where.param] ?? '(missing)') : '(body not read: refused before)';
      void deps.control.refuse(
        m.handler.write.action,
        target,
        { principal: undefined, source: sourceOf(req, deps.dashboardPrefixes()), address: deps.gate.clientAddress(req) },
        'refused',
        refusal.code === 'origin_not_allowed' ? 'origin not allowed' : 'host not allowed',
      );
    }),
  );
  return () => removers.forEach((r) => r());
}

async function serve(
  route: AdminRoute,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  params: Record<string, string>,
  deps: RouterDeps,
): Promise<void> {
  try {
    const source = sourceOf(req, deps.dashboardPrefixes());
    const write = route.write;
    // A write's body is read first (bounded), so that even a refused write is audited with its real target.
    const body = write ? await readWriteBody(req, deps.maxBody, write.body) : { value: {} };
    const target = write ? targetOf(write.target, params, body.value) : url.pathname;
    const address = deps.gate.clientAddress(req);
    // A write from another site's page (CSRF against a loopback admin) carries a foreign Origin:
    // the framework refused it (403 origin_not_allowed, audited below through onRefusal) before
    // this route ran. A form or text/plain write is refused in readWriteBody (415, audited as invalid).
    // A public route (the API description) is the same for everyone and carries no live data.
    const gate =
      route.doc.public && !write
        ? { ok: true as const, principal: undefined, address }
        : await deps.gate.check(req, url, { write: write !== undefined });
    if (!gate.ok) {
      const caller = { principal: gate.principal, source, address };
      if (write) await deps.control.refuse(write.action, target, caller, 'refused', gate.detail);
      else
        await deps.audit.note({
          action: 'read',
          target,
          principal: gate.principal?.id ?? null,
          address: address ?? null,
          success: false,
          outcome: 'refused',
          reason: gate.detail,
          source,
        });
      sendProblem(res, gate.status, gate.code, gate.detail, undefined, gate.headers);
      return;
    }
    if (write && body.error) {
      await deps.control.refuse(
        write.action,
        target,
        { principal: gate.principal, source, address },
        'invalid',
        `${body.error.code}: ${body.error.message}`,
      );
      throw body.error;
    }
    let reply: Reply;
    try {
      reply = await route.handle({ req, url, params, principal: gate.principal, source, address, body: body.value ?? {} });
    } catch (err) {
      // A write the handler found malformed (a missing member): nothing ran, the attempt is recorded.
      if (write && err instanceof FwError && err.status === 400) {
        await deps.control.refuse(
          write.action,
          target,
          { principal: gate.principal, source, address },
          'invalid',
          `${err.code}: ${err.message}`,
        );
      }
      throw err;
    }
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
        res.writeHead(200, {
          'content-type': reply.contentType,
          'content-length': Buffer.byteLength(reply.body),
          'cache-control': 'no-store',
        });
        res.end(reply.body);
        break;
    }
  } catch (err) {
    sendError(res, err);
  }
}

/** The body of a write: JSON only (415 otherwise), at most `maxBody` bytes; an optional one may be absent. */
async function readWriteBody(
  req: IncomingMessage,
  maxBody: number,
  mode: 'required' | 'optional',
): Promise<{ value?: Record<string, unknown>; error?: FwError }> {
  const length = Number(req.headers['content-length'] ?? 0);
  const present = length > 0 || req.headers['transfer-encoding'] !== undefined;
  try {
    requireJsonContentType(req);
    if (mode === 'optional' && !present) return { value: {} };
    const value = await readJson(req, maxBody);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return { error: new FwError('bad_request', 'request body must be a JSON object', 400, { field: 'body' }) };
    }
    return { value: value as Record<string, unknown> };
  } catch (err) {
    return { error: err instanceof FwError ? err : new FwError('bad_request', 'the request body is not valid JSON', 400) };
  }
}

/** The real target of a write: its path parameter, or the body member naming it (`(missing)` when absent). */
function targetOf(
  where: { param: string } | { body: string; default?: string },
  params: Record<string, string>,
  body: Record<string, unknown> | undefined,
): string {
  const v = 'param' in where ? params[where.param] : body?.[where.body];
  if (typeof v === 'string' && v !== '') return v;
  return ('default' in where ? where.default : undefined) ?? '(missing)';
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
