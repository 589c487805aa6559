import { hostname } from 'node:os';
import { FwError, highestRole, NotFoundError, type TransportName } from '@fw/runtime';
import { CONTROL_ACTIONS, type ControlAction } from '../authorizer.js';
import { ACTION_LOG, AUDIT_CLASSES, AUDIT_OUTCOMES, filterAudit, REFUSAL_LOG, type AuditEntry, type AuditLog } from '../audit.js';
import { settled } from '../cluster.js';
import type { ControlPlane } from '../control.js';
import type { EventStream } from '../event-stream.js';
import type { AdminGate } from '../gate.js';
import type { Governance } from '../governance/governance.js';
import { governanceRoutes } from '../governance/routes.js';
import type { History } from '../history.js';
import { collectMetrics } from '../metrics.js';
import { FW_VERSION, overview } from '../overview.js';
import type { JournalEvent } from '../peer-types.js';
import type { Views } from '../views.js';
import { enumParam, intParam, requireMessage, requireString, strParam, timeParam } from './params.js';
import { openApiDocument } from './openapi.js';
import { tapeRoutes } from './tape-routes.js';
import { evalRoutes } from './eval-routes.js';
import { rerunRoutes } from './rerun-routes.js';
import { MESSAGE_SCHEMA, REASON_BODY, TIME_SCHEMA } from './route-doc.js';
import type { AdminRequest, AdminRoute, Reply } from './router.js';

export interface RouteDeps {
  views: Views;
  control: ControlPlane;
  audit: AuditLog;
  events: EventStream;
  history: History;
  /** The kill switch (governance/): its routes are part of this table and of its OpenAPI document. */
  governance: Governance;
  gate: AdminGate;
  pageDefault: number;
  pageMax: number;
  /** `servers[0].url` of the OpenAPI document: fw.public-url plus the REST base, or the relative base. */
  serverUrl: string;
  /** The framework's Prometheus registry (the one `/fw/metrics` serves). */
  metrics: { scrape(): Promise<string>; readonly contentType: string };
}

const TRANSPORTS: readonly TransportName[] = ['websocket', 'sse', 'long-polling', 'streaming'];
const JOURNAL_KINDS = ['dispatch', 'completion', 'failure', 'handoff', 'evaluation', 'interrupted'] as const;
const json = (body: unknown, status?: number): Reply => ({ kind: 'json', body, ...(status ? { status } : {}) });

/** The REST API of the admin plane (docs/admin.md lists every route). */
export function adminRoutes(d: RouteDeps): AdminRoute[] {
  const { views, control } = d;
  const startedAt = new Date().toISOString();

  /** Offset/limit paging of an in-memory list, with the total for X-Total-Count. */
  const paged = (r: AdminRequest, items: unknown[]): Reply => {
    const { offset, limit } = pageOf(r);
    return { kind: 'list', items: items.slice(offset, offset + limit), total: items.length };
  };
  /** Journals page from the newest end: the last `limit` events (after skipping `offset` newest), oldest first. */
  const newestPage = (r: AdminRequest, items: unknown[], defaultLimit: number): Reply => {
    const { offset, limit } = pageOf(r, defaultLimit);
    const end = Math.max(0, items.length - offset);
    return { kind: 'list', items: items.slice(Math.max(0, end - limit), end), total: items.length };
  };
  const pageOf = (r: AdminRequest, defaultLimit = d.pageDefault): { offset: number; limit: number } => ({
    offset: intParam(r.url, 'offset', { min: 0, max: Number.MAX_SAFE_INTEGER, default: 0 }),
    limit: intParam(r.url, 'limit', { min: 1, max: d.pageMax, default: Math.min(defaultLimit, d.pageMax) }),
  });
  const reasonOf = (r: AdminRequest, fallback: string): string => {
    const v = r.body.reason ?? strParam(r.url, 'reason');
    if (v === undefined) return fallback;
    if (typeof v !== 'string' || v.length > 1024)
      throw new FwError('bad_request', "'reason' must be a string of at most 1024 characters", 400, { field: 'reason' });
    return v;
  };
  const caller = (r: AdminRequest) => ({ principal: r.principal, source: r.source, address: r.address });
  const param = (r: AdminRequest, name: string): string => r.params[name] ?? '';

  const routes: AdminRoute[] = [
    // --- overview, session, nodes, metrics ---------------------------------------------------
    {
      // Cluster mode adds `cluster`: the sums, each node's figures, and the nodes that did not answer.
      method: 'GET',
      path: '/overview',
      doc: { tag: 'overview', reply: 'object', summary: 'Status, uptime and counters of this node (and, in cluster mode, of every node)' },
      handle: async () => {
        const cluster = views.cluster;
        const own = overview(views, d.history.totals());
        return json(cluster ? { ...own, cluster: await cluster.overview() } : own);
      },
    },
    {
      method: 'GET',
      path: '/session',
      doc: { tag: 'overview', reply: 'object', summary: 'Who is asking: principal, roles and which control actions it may perform' },
      handle: async (r) => {
        const permissions = {} as Record<ControlAction, boolean>;
        for (const action of CONTROL_ACTIONS) permissions[action] = await control.permitted(action, '*', r.principal);
        return json({
          principal: r.principal?.id ?? null,
          roles: r.principal?.roles ?? [],
          // The anonymous local operator (loopback, no authentication configured) may do everything.
          role: r.principal ? (highestRole(r.principal) ?? null) : 'admin',
          authenticated: r.principal !== undefined,
          authRequired: d.gate.authRequired,
          address: r.address ?? null,
          permissions,
          audit: d.audit.status(),
        });
      },
    },
    {
      method: 'GET',
      path: '/nodes',
      doc: { tag: 'overview', reply: 'list', summary: 'The nodes of the cluster (this one alone on a single node)' },
      handle: async (r) => {
        // In cluster mode (`@fw/redis`) the cluster service knows every node; alone, this is the only one.
        const cluster = d.views.cluster;
        if (cluster) {
          const nodes = await cluster.nodes();
          return { kind: 'list', items: nodes, total: nodes.length };
        }
        const local = r.req.socket;
        const node = {
          id: `${hostname()}:${process.pid}`,
          address: local.localAddress
            ? `${local.localAddress.includes(':') ? `[${local.localAddress}]` : local.localAddress}:${local.localPort}`
            : null,
          version: FW_VERSION,
          startedAt,
          self: true,
        };
        return { kind: 'list', items: [node], total: 1 };
      },
    },
    {
      method: 'GET',
      path: '/metrics',
      doc: { tag: 'overview', reply: 'object', summary: 'Runtime, event stream, audit, agent and MCP figures as JSON' },
      handle: () => json(collectMetrics(views, d.events.stats(), d.audit.size)),
    },
    {
      method: 'GET',
      path: '/metrics/prometheus',
      doc: {
        tag: 'overview',
        reply: 'text',
        textType: 'text/plain; version=0.0.4',
        summary: 'The Prometheus exposition of /fw/metrics (same registry, same names), behind the admin gate',
      },
      handle: async () => ({ kind: 'text', body: await d.metrics.scrape(), contentType: d.metrics.contentType }),
    },
    {
      // The dashboard's charts: a late-opened page still draws the whole window (docs/dashboard.md).
      method: 'GET',
      path: '/history',
      doc: {
        tag: 'overview',
        reply: 'object',
        summary:
          'Time series of this node for the last fw.admin.history.samples × interval-ms (default 15 minutes): connections by transport, broadcasts, agent runs, errors, gaps and recoveries',
        query: { since: { description: 'Only samples taken after this epoch-milliseconds time', schema: { type: 'integer', minimum: 0 } } },
      },
      handle: (r) => {
        const since = intParam(r.url, 'since', { min: 0, max: Number.MAX_SAFE_INTEGER, default: 0 });
        const { intervalMs, samples } = d.history.options;
        return json({
          intervalMs,
          capacity: samples,
          now: Date.now(),
          totals: d.history.totals(),
          samples: d.history.samples().filter((s) => s.t > since),
        });
      },
    },
    {
      method: 'GET',
      path: '/events/recent',
      doc: {
        tag: 'events',
        reply: 'list',
        summary: 'The most recent framework events, oldest first',
        query: { limit: { description: 'How many (at most fw.admin.page.max-limit)', schema: { type: 'integer', minimum: 1 } } },
      },
      handle: (r) => {
        const limit = intParam(r.url, 'limit', { min: 1, max: Math.max(1, d.pageMax), default: Math.max(1, d.pageMax) });
        const items = d.events.recent(limit);
        return { kind: 'list', items, total: items.length };
      },
    },

    // --- agents ------------------------------------------------------------------------------
    {
      method: 'GET',
      path: '/agents',
      doc: { tag: 'agents', reply: 'list', paged: true, summary: 'Agents and coordinators' },
      handle: (r) => paged(r, views.agent.agents()),
    },
    {
      method: 'GET',
      path: '/agents/{agentName}',
      doc: { tag: 'agents', reply: 'object', summary: 'One agent or coordinator' },
      handle: (r) => {
        const a = views.agent.agent(param(r, 'agentName'));
        if (!a) throw new NotFoundError('agent', param(r, 'agentName'));
        return json(a);
      },
    },
    {
      method: 'GET',
      path: '/agents/{agentName}/sessions',
      doc: { tag: 'agents', reply: 'list', paged: true, summary: 'Live chat sessions of an agent' },
      handle: (r) => {
        const name = param(r, 'agentName');
        if (!views.agent.agent(name)) throw new NotFoundError('agent', name);
        return paged(r, views.agent.sessions(name));
      },
    },
    {
      method: 'GET',
      path: '/coordinators',
      doc: { tag: 'agents', reply: 'list', paged: true, summary: 'Coordinators with their fleets' },
      handle: (r) => paged(r, views.agent.coordinators()),
    },

    // --- broadcasters ------------------------------------------------------------------------
    {
      method: 'GET',
      path: '/broadcasters',
      doc: {
        tag: 'broadcasters',
        reply: 'list',
        paged: true,
        summary: 'Broadcasters (every node in cluster mode)',
        query: { search: { description: 'Only ids containing this text', schema: { type: 'string' } } },
      },
      handle: async (r) => {
        const search = strParam(r.url, 'search');
        const cluster = views.cluster;
        if (cluster) {
          // Every node's broadcasters, each row with its node.
          const { items, missing } = await cluster.listBroadcasters();
          return { ...(paged(r, search ? items.filter((b) => b.id.includes(search)) : items) as Reply & { kind: 'list' }), missing };
        }
        const all = views.runtime.listBroadcasters();
        return paged(r, search ? all.filter((b) => b.id.includes(search)) : all);
      },
    },
    {
      method: 'POST',
      path: '/broadcasters/broadcast',
      doc: {
        tag: 'broadcasters',
        reply: 'object',
        summary: 'Broadcast a message to every member of a broadcaster',
        body: {
          required: true,
          schema: {
            type: 'object',
            required: ['broadcasterId', 'message'],
            properties: { broadcasterId: { type: 'string', minLength: 1 }, message: MESSAGE_SCHEMA },
          },
        },
      },
      write: { action: 'broadcast', target: { body: 'broadcasterId' }, body: 'required' },
      handle: async (r) => {
        return json(await control.broadcast(requireString(r.body, 'broadcasterId'), requireMessage(r.body), caller(r)));
      },
    },
    {
      method: 'GET',
      path: '/broadcasters/{id}',
      doc: { tag: 'broadcasters', reply: 'object', summary: 'One broadcaster' },
      handle: (r) => {
        const b = views.runtime.getBroadcaster(param(r, 'id'));
        if (!b) throw new NotFoundError('broadcaster', param(r, 'id'));
        return json(b);
      },
    },
    {
      method: 'DELETE',
      path: '/broadcasters/{id}',
      doc: { tag: 'broadcasters', reply: 'object', summary: 'Destroy a broadcaster (its own resources are closed)' },
      write: { action: 'destroy', target: { param: 'id' }, body: 'optional' },
      handle: async (r) => json(await control.destroy(param(r, 'id'), caller(r))),
    },

    // --- resources ---------------------------------------------------------------------------
    {
      method: 'GET',
      path: '/resources',
      doc: {
        tag: 'resources',
        reply: 'list',
        paged: true,
        summary: 'Connected resources, filtered',
        query: {
          broadcaster: { description: 'Members of this broadcaster', schema: { type: 'string' } },
          transport: { description: 'Only this transport', schema: { enum: TRANSPORTS } },
          search: { description: 'uuid, path or remote address containing this text', schema: { type: 'string' } },
        },
      },
      handle: async (r) => {
        const { offset, limit } = pageOf(r);
        const broadcaster = strParam(r.url, 'broadcaster');
        const transport = enumParam(r.url, 'transport', TRANSPORTS);
        const search = strParam(r.url, 'search');
        const query = {
          offset,
          limit,
          ...(broadcaster ? { broadcaster } : {}),
          ...(transport ? { transport } : {}),
          ...(search ? { search } : {}),
        };
        const cluster = views.cluster;
        if (cluster) {
          // One page over every node, each row with its node.
          const page = await cluster.listResources(query);
          return { kind: 'list', items: page.items, total: page.total, missing: page.missing };
        }
        const page = views.runtime.listResources(query);
        return { kind: 'list', items: page.items, total: page.total };
      },
    },
    {
      method: 'GET',
      path: '/resources/{uuid}',
      doc: { tag: 'resources', reply: 'object', summary: 'One resource (looked up on every node in cluster mode)' },
      handle: async (r) => {
        const cluster = views.cluster;
        if (cluster && !views.runtime.getResource(param(r, 'uuid'))) {
          return json(settled(await cluster.getResource(param(r, 'uuid')), 'resource', param(r, 'uuid')).result);
        }
        const res = views.runtime.getResource(param(r, 'uuid'));
        if (!res) throw new NotFoundError('resource', param(r, 'uuid'));
        return json(res);
      },
    },
    {
      method: 'DELETE',
      path: '/resources/{uuid}',
      doc: {
        tag: 'resources',
        reply: 'object',
        summary: 'Disconnect a resource; the client is told the reason',
        query: { reason: { description: 'Why (or `reason` in the body)', schema: { type: 'string', maxLength: 1024 } } },
        body: { required: false, schema: REASON_BODY },
      },
      write: { action: 'disconnect', target: { param: 'uuid' }, body: 'optional' },
      handle: async (r) => {
        const reason = reasonOf(r, 'disconnected by the administrator');
        return json(await control.disconnect(param(r, 'uuid'), reason, caller(r)));
      },
    },
    {
      method: 'POST',
      path: '/resources/{uuid}/message',
      doc: {
        tag: 'resources',
        reply: 'object',
        summary: 'Send one message to one resource',
        body: { required: true, schema: { type: 'object', required: ['message'], properties: { message: MESSAGE_SCHEMA } } },
      },
      write: { action: 'unicast', target: { param: 'uuid' }, body: 'required' },
      handle: async (r) => {
        return json(await control.unicast(param(r, 'uuid'), requireMessage(r.body), caller(r)));
      },
    },

    // --- handlers, interceptors --------------------------------------------------------------
    {
      method: 'GET',
      path: '/handlers',
      doc: { tag: 'runtime', reply: 'list', paged: true, summary: 'Real-time handlers with their interceptors' },
      handle: (r) => paged(r, views.runtime.listHandlers()),
    },
    {
      method: 'GET',
      path: '/interceptors',
      doc: { tag: 'runtime', reply: 'list', paged: true, summary: 'Global and per-handler interceptors in order' },
      handle: (r) => paged(r, views.runtime.listInterceptors()),
    },

    // --- journal -----------------------------------------------------------------------------
    {
      method: 'GET',
      path: '/journal',
      doc: {
        tag: 'journal',
        reply: 'list',
        paged: true,
        summary: 'Coordination journal events, newest page first, oldest first within it',
        query: {
          coordinationId: { description: 'One coordination', schema: { type: 'string' } },
          agent: { description: 'Events involving this agent', schema: { type: 'string' } },
          from: { description: 'Not before', schema: TIME_SCHEMA },
          to: { description: 'Not after', schema: TIME_SCHEMA },
          kind: { description: 'Events of this kind (the status of a step)', schema: { type: 'string', enum: [...JOURNAL_KINDS] } },
          cursor: {
            description: 'The X-Next-Cursor of the previous page: continues with older events (instead of offset)',
            schema: { type: 'string' },
          },
        },
      },
      handle: async (r) => {
        const coordinationId = strParam(r.url, 'coordinationId');
        const agent = strParam(r.url, 'agent');
        const from = timeParam(r.url, 'from');
        const to = timeParam(r.url, 'to');
        const kind = enumParam(r.url, 'kind', JOURNAL_KINDS);
        const cursor = strParam(r.url, 'cursor');
        const query = {
          ...(coordinationId ? { coordinationId } : {}),
          ...(agent ? { agent } : {}),
          ...(from !== undefined ? { from } : {}),
          ...(to !== undefined ? { to } : {}),
          ...(kind ? { kind } : {}),
        };
        // Cluster mode: the journal every node writes to in Redis (each event with its node), in
        // time order; this node's own journal when Redis cannot be read.
        const shared = await views.cluster
          ?.log<JournalEvent>('journal')
          .list(Number.MAX_SAFE_INTEGER)
          .catch(() => undefined);
        if (shared) {
          const events = shared.filter((e) => journalMatches(e, query)).sort((x, y) => Date.parse(x.timestamp) - Date.parse(y.timestamp));
          return newestPage(r, events, d.pageMax);
        }
        // Spec: without filters all events are returned, so the journal pages at the maximum by default.
        // The agent layer's journal lives in the store: a page is one indexed query, and
        // `cursor` (from X-Next-Cursor) continues with older events at any depth.
        if (views.agent.journalPage) {
          const { offset, limit } = pageOf(r, d.pageMax);
          const page = await views.agent.journalPage({ ...query, limit, ...(cursor ? { cursor } : { offset }) });
          return {
            kind: 'list',
            items: page.events,
            total: page.total ?? page.events.length,
            ...(page.nextCursor ? { next: page.nextCursor } : {}),
          };
        }
        return newestPage(r, await views.agent.journal(query), d.pageMax);
      },
    },
    {
      method: 'GET',
      path: '/journal/{coordinationId}',
      doc: { tag: 'journal', reply: 'list', paged: true, summary: 'The events of one coordination' },
      handle: async (r) => {
        const id = param(r, 'coordinationId');
        const events = await views.agent.journal({ coordinationId: id, limit: 10_000 });
        if (events.length === 0) throw new NotFoundError('coordination', id);
        return newestPage(r, events, d.pageMax);
      },
    },
    {
      method: 'GET',
      path: '/journal/{coordinationId}/log',
      doc: { tag: 'journal', reply: 'text', textType: 'text/plain', summary: 'One coordination as a readable log' },
      handle: async (r) => {
        const log = await views.agent.journalLog(param(r, 'coordinationId'));
        if (log === undefined) throw new NotFoundError('coordination', param(r, 'coordinationId'));
        return { kind: 'text', body: log, contentType: 'text/plain; charset=utf-8' };
      },
    },
    {
      method: 'GET',
      path: '/journal/{coordinationId}/graph',
      doc: { tag: 'journal', reply: 'object', summary: 'One coordination as an execution graph (nodes and edges)' },
      handle: async (r) => {
        const graph = await views.agent.journalGraph(param(r, 'coordinationId'));
        if (!graph) throw new NotFoundError('coordination', param(r, 'coordinationId'));
        return json(graph);
      },
    },

    // --- tasks -------------------------------------------------------------------------------
    {
      method: 'GET',
      path: '/tasks',
      doc: {
        tag: 'tasks',
        reply: 'list',
        paged: true,
        summary: 'A2A tasks, the AG-UI runs in flight (protocol agui) and MCP tasks (protocol mcp, agentName = the tool)',
        query: {
          agent: { description: 'Tasks of this agent', schema: { type: 'string' } },
          state: { description: 'Tasks in this state', schema: { type: 'string' } },
        },
      },
      handle: (r) => {
        const agentName = strParam(r.url, 'agent');
        const state = strParam(r.url, 'state');
        // MCP tasks (tasks extension) beside the A2A tasks and AG-UI runs: protocol 'mcp', agentName = the tool.
        const mcpTasks = views.mcp.tasks().filter((t) => (!agentName || t.agentName === agentName) && (!state || t.state === state));
        return paged(r, [...views.agent.tasks({ ...(agentName ? { agentName } : {}), ...(state ? { state } : {}) }), ...mcpTasks]);
      },
    },
    {
      method: 'GET',
      path: '/tasks/{taskId}',
      doc: { tag: 'tasks', reply: 'object', summary: 'One A2A task' },
      handle: (r) => {
        const t = views.agent.task(param(r, 'taskId')) ?? views.mcp.tasks().find((x) => x.id === param(r, 'taskId'));
        if (!t) throw new NotFoundError('task', param(r, 'taskId'));
        return json(t);
      },
    },
    {
      method: 'POST',
      path: '/tasks/{taskId}/cancel',
      doc: {
        tag: 'tasks',
        reply: 'object',
        summary: 'Cancel a running task',
        query: { reason: { description: 'Why (or `reason` in the body)', schema: { type: 'string', maxLength: 1024 } } },
        body: { required: false, schema: REASON_BODY },
      },
      write: { action: 'cancel', target: { param: 'taskId' }, body: 'optional' },
      handle: async (r) => {
        const reason = reasonOf(r, 'canceled by the administrator');
        return json(await control.cancel(param(r, 'taskId'), reason, caller(r)));
      },
    },

    // --- agent runs on every protocol (A2A, AG-UI, chat), from the store ----------------------
    {
      method: 'GET',
      path: '/runs',
      doc: {
        tag: 'tasks',
        reply: 'list',
        paged: true,
        summary: 'Agent runs on every protocol (A2A, AG-UI, chat), newest first, from the store',
        query: {
          agent: { description: 'Runs of this agent', schema: { type: 'string' } },
          protocol: { description: 'Runs on this protocol', schema: { type: 'string', enum: ['a2a', 'agui', 'chat'] } },
          state: {
            description: 'Runs in this state',
            schema: { type: 'string', enum: ['running', 'completed', 'failed', 'cancelled', 'interrupted'] },
          },
        },
      },
      handle: async (r) => {
        const agentName = strParam(r.url, 'agent');
        const protocol = enumParam(r.url, 'protocol', ['a2a', 'agui', 'chat'] as const);
        const state = enumParam(r.url, 'state', ['running', 'completed', 'failed', 'cancelled', 'interrupted'] as const);
        const { offset, limit } = pageOf(r);
        const runs = views.agent.runs
          ? await views.agent.runs({
              ...(agentName ? { agentName } : {}),
              ...(protocol ? { protocol } : {}),
              ...(state ? { state } : {}),
              limit: offset + limit,
            })
          : [];
        return { kind: 'list', items: runs.slice(offset), total: runs.length };
      },
    },

    // --- AI runtimes -------------------------------------------------------------------------
    {
      method: 'GET',
      path: '/runtimes',
      doc: { tag: 'runtimes', reply: 'list', paged: true, summary: 'AI runtimes' },
      handle: (r) => paged(r, views.agent.runtimes()),
    },
    {
      method: 'GET',
      path: '/runtimes/active',
      doc: { tag: 'runtimes', reply: 'object', summary: 'The AI runtime in use' },
      handle: () => {
        const active = views.agent.activeRuntime();
        if (!active) throw new NotFoundError('runtime', 'active');
        return json(active);
      },
    },

    // --- MCP ---------------------------------------------------------------------------------
    {
      method: 'GET',
      path: '/mcp/servers',
      doc: { tag: 'mcp', reply: 'list', paged: true, summary: 'MCP servers and their endpoints' },
      handle: (r) => paged(r, views.mcp.servers()),
    },
    {
      method: 'GET',
      path: '/mcp/tools',
      doc: { tag: 'mcp', reply: 'list', paged: true, summary: 'MCP tools' },
      handle: (r) => paged(r, views.mcp.tools()),
    },
    {
      method: 'GET',
      path: '/mcp/resources',
      doc: { tag: 'mcp', reply: 'list', paged: true, summary: 'MCP resources and templates' },
      handle: (r) => paged(r, views.mcp.resources()),
    },
    {
      method: 'GET',
      path: '/mcp/prompts',
      doc: { tag: 'mcp', reply: 'list', paged: true, summary: 'MCP prompts' },
      handle: (r) => paged(r, views.mcp.prompts()),
    },
    {
      method: 'GET',
      path: '/mcp/sessions',
      doc: { tag: 'mcp', reply: 'list', paged: true, summary: 'Live MCP sessions' },
      handle: (r) => paged(r, views.mcp.sessions()),
    },
    {
      method: 'GET',
      path: '/mcp/bridge/pending',
      doc: { tag: 'mcp', reply: 'list', paged: true, summary: 'Tool calls waiting on a connected client (the tool bridge)' },
      handle: (r) => paged(r, views.mcp.pendingBridgeCalls()),
    },

    // --- governance --------------------------------------------------------------------------
    ...governanceRoutes(d.governance),

    // --- credentials -------------------------------------------------------------------------
    {
      method: 'POST',
      path: '/credentials/revoke',
      doc: {
        tag: 'credentials',
        reply: 'object',
        summary:
          'Cut a principal off everywhere: its credentials are refused from now on (a JWT issued later is good again) and its open sockets and streams close; every node in cluster mode',
        body: {
          required: true,
          schema: { type: 'object', required: ['principal'], properties: { principal: { type: 'string', minLength: 1, maxLength: 1024 } } },
        },
      },
      write: { action: 'revoke', target: { body: 'principal' }, body: 'required' },
      handle: async (r) => {
        const principal = requireString(r.body, 'principal');
        if (principal.length > 1024)
          throw new FwError('bad_request', "body member 'principal' must be at most 1024 characters", 400, { field: 'principal' });
        return json(await control.revoke(principal, caller(r)));
      },
    },

    // --- audit -------------------------------------------------------------------------------
    {
      method: 'GET',
      path: '/audit',
      doc: {
        tag: 'audit',
        reply: 'list',
        paged: true,
        summary: 'The audit log of every attempt on the admin plane',
        query: {
          class: {
            description:
              'One retention class: `action` (writes, credentials, configuration) or `refusal` (refusals, aggregated per caller and window)',
            schema: { enum: [...AUDIT_CLASSES] },
          },
          action: { description: 'One action (a control action, or `read` for refused reads)', schema: { type: 'string' } },
          principal: { description: 'One principal', schema: { type: 'string' } },
          outcome: { description: 'One outcome', schema: { enum: [...AUDIT_OUTCOMES] } },
          from: { description: 'Not before', schema: TIME_SCHEMA },
          to: { description: 'Not after', schema: TIME_SCHEMA },
        },
      },
      handle: async (r) => {
        const cls = enumParam(r.url, 'class', AUDIT_CLASSES);
        const action = strParam(r.url, 'action');
        const principal = strParam(r.url, 'principal');
        const outcome = enumParam(r.url, 'outcome', AUDIT_OUTCOMES);
        const from = timeParam(r.url, 'from');
        const to = timeParam(r.url, 'to');
        const query = {
          ...(cls ? { class: cls } : {}),
          ...(action ? { action } : {}),
          ...(principal ? { principal } : {}),
          ...(outcome ? { outcome } : {}),
          ...(from !== undefined ? { from } : {}),
          ...(to !== undefined ? { to } : {}),
        };
        // Cluster mode: the shared audit logs (every node's entries, each with its node), with this
        // node's refusal records still collecting; this node's own log when Redis cannot be read.
        const cluster = views.cluster;
        const shared = cluster
          ? await Promise.all([
              cluster.log<AuditEntry>(ACTION_LOG).list(Number.MAX_SAFE_INTEGER),
              cluster.log<AuditEntry>(REFUSAL_LOG).list(Number.MAX_SAFE_INTEGER),
            ]).catch(() => undefined) // all they keep
          : undefined;
        if (!shared) return paged(r, d.audit.query(query));
        const open = d.audit.openRefusals().map((e) => ({ ...e, node: cluster!.nodeId }));
        const all = [...shared[0], ...shared[1], ...open].sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp));
        return paged(r, filterAudit(all, query));
      },
    },
  ];
  // The API's own description, generated from this table (itself included), once, from the
  // configuration: `servers[0].url` is fw.public-url's origin and path plus the base, or the
  // relative base. Never from a request (its path or Host would then be everyone's document).
  const route: AdminRoute = {
    method: 'GET',
    path: '/openapi.json',
    doc: { tag: 'overview', reply: 'object', public: true, summary: 'This document: the OpenAPI 3.1 description of the admin API' },
    handle: () => json(document),
  };
  routes.push(...tapeRoutes(d), ...rerunRoutes(d), ...evalRoutes(d), route);
  const document = openApiDocument(routes, { base: d.serverUrl, version: FW_VERSION });
  return routes;
}

/** The journal query of the agent layer, applied to the cluster's shared journal. */
function journalMatches(e: JournalEvent, q: { coordinationId?: string; agent?: string; from?: number; to?: number }): boolean {
  if (q.coordinationId && e.coordinationId !== q.coordinationId) return false;
  if (q.agent && ![e.agent, e.coordinator, e.from, e.to, e.evaluator].includes(q.agent)) return false;
  const t = Date.parse(e.timestamp);
  return (q.from === undefined || t >= q.from) && (q.to === undefined || t <= q.to);
}
