import { FwError } from '@fw/runtime';
import type { AdminRequest, AdminRoute } from '../../api/router.js';
import { mayReadContent } from '../../content.js';
import type { AdminGate } from '../../gate.js';
import { APPROVAL_STATUSES, type Approval } from './approval.js';
import type { Approvals } from './approvals.js';

export const DEFAULT_APPROVALS = 100;
export const MAX_APPROVALS = 1000;

const SHAPE =
  '`{id, runId, agent, tool, arguments, principal, surface, status (pending, approved, denied, expired), reason, requestedAt, expiresAt, decidedAt, decidedBy}`';

/** The human-approval routes of the admin REST API (docs/governance.md, "Human approval"). */
export function approvalRoutes(approvals: Approvals, gate: AdminGate): AdminRoute[] {
  const caller = (r: AdminRequest) => ({ principal: r.principal, source: r.source, address: r.address });
  return [
    {
      method: 'GET',
      path: '/approvals',
      doc: {
        tag: 'governance',
        reply: 'object',
        summary: `Human approvals, newest first: \`{approvals: [${SHAPE}]}\`. \`arguments\` are content: null for a caller without the operator role`,
        query: {
          status: { description: 'Only approvals of this status', schema: { type: 'string', enum: [...APPROVAL_STATUSES] } },
          limit: {
            description: `At most this many (default ${DEFAULT_APPROVALS}, at most ${MAX_APPROVALS})`,
            schema: { type: 'integer', minimum: 1, maximum: MAX_APPROVALS },
          },
        },
      },
      handle: async (r) => {
        const status = statusOf(r.url.searchParams.get('status'));
        const limit = limitOf(r.url.searchParams.get('limit'));
        const list = await approvals.list(status, limit, mayReadContent(r.principal, gate.authRequired));
        return { kind: 'json', body: { approvals: list } };
      },
    },
    {
      method: 'POST',
      path: '/approvals/{id}',
      doc: {
        tag: 'governance',
        reply: 'object',
        summary: `Approve or deny a pending approval: the waiting tool call runs (approved) or is answered to the model as refused (denied), and an admin MCP action (\`fw.admin.mcp-approval\`) runs now, as the approver (its result in \`result\`, or \`error\`). Answers the approval ${SHAPE}. 404 unknown; 409 \`approval_decided\` when it was decided otherwise (expired, or the other decision); the same decision again answers 200 with the approval as it is`,
        body: {
          required: true,
          schema: {
            type: 'object',
            additionalProperties: false,
            required: ['approve'],
            properties: {
              approve: { type: 'boolean', description: 'true: approve; false: deny' },
              reason: { type: 'string', minLength: 1, maxLength: 1024, description: 'Why (recorded, and told to the model on a denial)' },
            },
          },
        },
      },
      write: { action: 'approval.decide', target: { param: 'id' }, body: 'required' },
      handle: async (r) => {
        const { approve, reason } = decisionOf(r.body);
        return { kind: 'json', body: await approvals.decide(r.params.id ?? '', approve, reason, caller(r)) };
      },
    },
  ];
}

/** The body of a decision, checked: `approve` a boolean, `reason` an optional string. */
export function decisionOf(body: Record<string, unknown>): { approve: boolean; reason: string | undefined } {
  if (typeof body.approve !== 'boolean')
    throw new FwError('bad_request', "'approve' must be true (approve) or false (deny)", 400, { field: 'approve' });
  const reason = body.reason;
  if (reason !== undefined && (typeof reason !== 'string' || reason.trim() === '' || reason.length > 1024))
    throw new FwError('bad_request', "'reason' must be a non-empty string of at most 1024 characters", 400, { field: 'reason' });
  const unknown = Object.keys(body).filter((k) => k !== 'approve' && k !== 'reason');
  if (unknown.length > 0)
    throw new FwError('bad_request', `unknown member '${unknown[0]}': expected {approve, reason?}`, 400, { field: unknown[0] });
  return { approve: body.approve, reason: reason as string | undefined };
}

export function statusOf(v: string | null): Approval['status'] | undefined {
  if (v === null || v === '') return undefined;
  const status = APPROVAL_STATUSES.find((s) => s === v);
  if (!status) throw new FwError('bad_request', `'status' must be one of ${APPROVAL_STATUSES.join(', ')}`, 400, { field: 'status' });
  return status;
}

export function limitOf(v: string | null): number {
  if (v === null || v === '') return DEFAULT_APPROVALS;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > MAX_APPROVALS)
    throw new FwError('bad_request', `'limit' must be an integer from 1 to ${MAX_APPROVALS}`, 400, { field: 'limit' });
  return n;
}
