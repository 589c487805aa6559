/**
 * The fleet routes (docs/agents.md, "Fleet"): the flow graph of who dispatches to whom over a time
 * window or in one coordination, a coordinator's fleet health (availability and circuit breaker
 * per agent), a coordination's causal tree, and the protocol bridges installed. All reads, for
 * the viewer role; they carry names and counts, never what agents were told.
 */
import { FwError, NotFoundError } from '@fw/runtime';
import type { Views } from '../views.js';
import { intParam } from './params.js';
import type { AdminRequest, AdminRoute, Reply } from './router.js';

/** The longest flow window: 30 days, the journal's default retention. */
export const FLOW_MAX_LOOKBACK_MINUTES = 43_200;

export function fleetRoutes(d: { views: Views }): AdminRoute[] {
  const { views } = d;
  const json = (body: unknown): Reply => ({ kind: 'json', body });
  const param = (r: AdminRequest, name: string): string => r.params[name] ?? '';
  /** A read the agent module answers; 404 when it is absent. */
  const agentView = () => {
    const v = views.agent;
    if (!v.flow || !v.coordinationFlow || !v.fleetHealth || !v.journalTree)
      throw new FwError('agents_unavailable', 'no fleet: the agent module is not installed', 404);
    return v as Required<Pick<typeof v, 'flow' | 'coordinationFlow' | 'fleetHealth' | 'journalTree'>>;
  };

  return [
    {
      method: 'GET',
      path: '/flow',
      doc: {
        tag: 'fleet',
        reply: 'object',
        summary:
          'Who dispatches to whom: coordinators and agents as nodes, each coordinator → agent pair as an edge with dispatches, successes, failures, average and p95 duration',
        query: {
          lookbackMinutes: {
            description: `Events of the last this many minutes (0, the default: the whole journal; at most ${FLOW_MAX_LOOKBACK_MINUTES})`,
            schema: { type: 'integer', minimum: 0, maximum: FLOW_MAX_LOOKBACK_MINUTES },
          },
        },
      },
      handle: async (r) => {
        const lookbackMinutes = intParam(r.url, 'lookbackMinutes', { min: 0, max: FLOW_MAX_LOOKBACK_MINUTES, default: 0 });
        return json(await agentView().flow({ lookbackMinutes }));
      },
    },
    {
      method: 'GET',
      path: '/flow/{coordinationId}',
      doc: { tag: 'fleet', reply: 'object', summary: 'The flow graph of one coordination (the same nodes and edges)' },
      handle: async (r) => {
        const id = param(r, 'coordinationId');
        const flow = await agentView().coordinationFlow(id);
        if (!flow) throw new NotFoundError('coordination', id);
        return json(flow);
      },
    },
    {
      method: 'GET',
      path: '/coordinators/{name}/health',
      doc: {
        tag: 'fleet',
        reply: 'object',
        summary:
          'Fleet health of a coordinator: per agent, available, circuitState (CLOSED, OPEN, HALF_OPEN), recentFailures (consecutive), the breaker settings',
      },
      handle: (r) => {
        const name = param(r, 'name');
        const health = agentView().fleetHealth(name);
        if (!health) throw new NotFoundError('coordinator', name);
        return json(health);
      },
    },
    {
      method: 'GET',
      path: '/journal/{coordinationId}/tree',
      doc: {
        tag: 'journal',
        reply: 'list',
        summary:
          'One coordination as its causal tree: the root events, each with eventId, parentEventId and the events it caused as children (fan-outs, retries, handoffs, evaluations)',
      },
      handle: async (r) => {
        const id = param(r, 'coordinationId');
        const roots = await agentView().journalTree(id);
        if (!roots) throw new NotFoundError('coordination', id);
        return { kind: 'list', items: roots, total: roots.length };
      },
    },
    {
      method: 'GET',
      path: '/protocols',
      doc: {
        tag: 'fleet',
        reply: 'list',
        summary:
          'The protocol bridges installed: what agents are served on (A2A, AG-UI, MCP, chat), MCP servers, the A2A client to remote agents',
      },
      handle: () => {
        const bridges: unknown[] = [...(views.agent.protocols?.() ?? [])];
        for (const s of views.mcp.servers()) {
          bridges.push({
            name: 'mcp-server',
            direction: 'inbound',
            description: `MCP server '${s.name}' ${s.version}`,
            agents: [],
            endpoints: [s.path],
          });
        }
        return { kind: 'list', items: bridges, total: bridges.length };
      },
    },
  ];
}
