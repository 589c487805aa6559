import { FwError } from '@fw/runtime';
import type { JsonSchema } from '../api/route-doc.js';
import type { AdminRequest, AdminRoute } from '../api/router.js';
import { FLEET } from './kill-switch.js';
import { scopeOf, type Governance } from './governance.js';
import { policyRoutes } from './policy-routes.js';
import { spendRoutes } from './budgets/spend-routes.js';

const REPORT_NOTE =
  'Answers `{armed, scope, reason, operator, armedAt, nodes: [{node, ackAt, armed}]}`, plus `missing` (nodes that did not answer) in cluster mode and `durable: false` when the store could not keep it';

const SCOPE_SCHEMA: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 256,
  description: "`*` (the default): every agent and coordinator; else one agent's name",
};

/** The body member `reason`: required to arm (what every refused client reads), optional to disarm. */
function reasonOf(r: AdminRequest, required: boolean): string | undefined {
  const v = r.body.reason;
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || v.trim() === '' || v.length > 1024)
    throw new FwError('bad_request', "'reason' must be a non-empty string of at most 1024 characters", 400, { field: 'reason' });
  return v;
}

/** The governance routes of the admin REST API, under `/api/admin/governance/` (docs/governance.md). */
export function governanceRoutes(governance: Governance): AdminRoute[] {
  const caller = (r: AdminRequest) => ({ principal: r.principal, source: r.source, address: r.address });
  return [
    {
      method: 'GET',
      path: '/governance/health',
      doc: {
        tag: 'governance',
        reply: 'object',
        summary: `The kill switch: its state on this node and, in cluster mode, what every node enforces. ${REPORT_NOTE}`,
      },
      handle: async () => ({ kind: 'json', body: await governance.health() }),
    },
    {
      method: 'POST',
      path: '/governance/kill-switch/arm',
      doc: {
        tag: 'governance',
        reply: 'object',
        summary: `Arm the kill switch on every node: every model and tool call of the scope is refused, its runs in flight are stopped (recorded cancelled with the reason), and a node that starts later starts armed. ${REPORT_NOTE}`,
        body: {
          required: true,
          schema: {
            type: 'object',
            required: ['reason'],
            properties: {
              reason: { type: 'string', minLength: 1, maxLength: 1024, description: 'Why: recorded, and told to every refused client' },
              scope: SCOPE_SCHEMA,
            },
          },
        },
      },
      write: { action: 'kill-switch.arm', target: { body: 'scope', default: FLEET }, body: 'required' },
      handle: async (r) => {
        const reason = reasonOf(r, true) as string;
        const scope = scopeOf(r.body.scope);
        return { kind: 'json', body: await governance.arm({ reason, scope }, caller(r)) };
      },
    },
    {
      method: 'POST',
      path: '/governance/kill-switch/disarm',
      doc: {
        tag: 'governance',
        reply: 'object',
        summary: `Disarm the kill switch on every node: runs are admitted again. ${REPORT_NOTE}`,
        body: {
          required: false,
          schema: {
            type: 'object',
            properties: { reason: { type: 'string', minLength: 1, maxLength: 1024, description: 'Why (recorded)' } },
          },
        },
      },
      write: { action: 'kill-switch.disarm', target: { body: 'scope', default: FLEET }, body: 'optional' },
      handle: async (r) => ({ kind: 'json', body: await governance.disarm(reasonOf(r, false), caller(r)) }),
    },
    {
      method: 'POST',
      path: '/sessions/{uuid}/cancel-inflight',
      doc: {
        tag: 'governance',
        reply: 'object',
        summary:
          "Stop the model call in flight of one chat session (the agent session id), on whichever node holds it: the model's stream is aborted, the run is recorded cancelled, the socket stays open and its client gets `{type: 'cancelled', reason}`. Idempotent: answers `{session, cancelled, node}`, `cancelled: false` when nothing was in flight",
        body: {
          required: false,
          schema: {
            type: 'object',
            properties: { reason: { type: 'string', minLength: 1, maxLength: 1024, description: 'Why (recorded and told to the client)' } },
          },
        },
      },
      write: { action: 'session.cancel-inflight', target: { param: 'uuid' }, body: 'optional' },
      handle: async (r) => {
        const reason = reasonOf(r, false) ?? 'cancelled by an operator';
        return { kind: 'json', body: await governance.cancelInflight(r.params.uuid ?? '', reason, caller(r)) };
      },
    },
    ...policyRoutes(governance),
    ...spendRoutes(governance.budgets),
  ];
}
