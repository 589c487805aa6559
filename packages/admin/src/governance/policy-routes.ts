import { FwError, readJson, requireJsonContentType } from '@fw/runtime';
import type { AdminRequest, AdminRoute } from '../api/router.js';
import type { Governance } from './governance.js';

/** Largest body of POST governance/check (an agent id, an action and its context). */
const MAX_CHECK_BODY = 64 * 1024;
const DEFAULT_DECISIONS = 100;
const MAX_DECISIONS = 10_000;

/** The policy routes of the admin REST API, under `/api/admin/governance/` (docs/governance.md#policies). */
export function policyRoutes(governance: Governance): AdminRoute[] {
  const caller = (r: AdminRequest) => ({ principal: r.principal, source: r.source, address: r.address });
  return [
    {
      method: 'GET',
      path: '/governance/policies',
      doc: {
        tag: 'governance',
        reply: 'object',
        summary:
          'The policies this node enforces, in the order they are evaluated: `{file, digest, policies: [{name, kind, mode, description, digest, rules, denied, wouldDeny}]}`; `digest` is the sha256 of the canonical JSON (of the file, of each policy; a code policy: of its source)',
      },
      handle: () => ({
        kind: 'json',
        body: { file: governance.policyFile || null, digest: governance.policies.fileDigest, policies: governance.policies.list() },
      }),
    },
    {
      method: 'GET',
      path: '/governance/decisions',
      doc: {
        tag: 'governance',
        reply: 'list',
        summary:
          'The newest policy decisions of this node, newest first: `[{time, policy, decision (allow, deny, dry-run), reason, evaluation_ms, source (run, check), action, agent, context}]`; `X-Total-Count` is how many the log holds',
        query: {
          limit: {
            description: `At most this many (default ${DEFAULT_DECISIONS}, at most ${MAX_DECISIONS})`,
            schema: { type: 'integer', minimum: 1, maximum: MAX_DECISIONS },
          },
        },
      },
      handle: (r) => {
        const items = governance.decisions(limitOf(r.url.searchParams.get('limit')));
        return { kind: 'list', items, total: governance.policies.decisions.size };
      },
    },
    {
      method: 'POST',
      path: '/governance/reload',
      doc: {
        tag: 'governance',
        reply: 'object',
        summary:
          'Read the policy file (`fw.admin.governance.policy-file`) again and apply it at once. Fail-closed: a file that cannot be read or does not match the schema changes nothing and answers 400 `invalid_policy_file` with `details.problems`. Answers `{file, digest, policies, node}`',
        body: { required: false, schema: { type: 'object', properties: {} } },
      },
      write: { action: 'governance.reload', target: { body: 'policies', default: 'policies' }, body: 'optional' },
      handle: async (r) => ({ kind: 'json', body: await governance.reload(caller(r)) }),
    },
    {
      method: 'POST',
      path: '/governance/check',
      doc: {
        tag: 'governance',
        reply: 'object',
        summary:
          "Ask the policies about an action, as Microsoft's Agent Governance Toolkit does: `{agent_id, action, context}` → `{allowed, decision, reason, matched_policy, evaluation_ms}` (plus `dry_run` when a dry-run policy would have denied). `action`: `tool_call` (`context.tool_name`, `context.arguments`), `model_call` (`context.input`), `model_output` (`context.output`), or a tool's name; `context.principal` (or `user_id`) and `run_id` select principal and run. A read (viewer), not audited; it counts toward rate limits and is in the decision log",
        body: {
          required: true,
          schema: {
            type: 'object',
            required: ['agent_id', 'action'],
            properties: {
              agent_id: { type: 'string', minLength: 1, maxLength: 256, description: 'The agent that wants to act' },
              action: { type: 'string', minLength: 1, maxLength: 256, description: 'tool_call, model_call, model_output, or a tool name' },
              context: { type: 'object', description: 'What the action is about (tool_name, arguments, input, output, principal, run_id)' },
            },
          },
        },
      },
      handle: async (r) => {
        requireJsonContentType(r.req);
        const body = await readJson(r.req, MAX_CHECK_BODY);
        if (body === null || typeof body !== 'object' || Array.isArray(body))
          throw new FwError('bad_request', 'request body must be a JSON object', 400, { field: 'body' });
        const { agent_id: agent, action, context = {} } = body as Record<string, unknown>;
        if (typeof agent !== 'string' || agent === '' || agent.length > 256)
          throw new FwError('bad_request', "'agent_id' must be a non-empty string of at most 256 characters", 400, { field: 'agent_id' });
        if (typeof action !== 'string' || action === '' || action.length > 256)
          throw new FwError('bad_request', "'action' must be a non-empty string of at most 256 characters", 400, { field: 'action' });
        if (context === null || typeof context !== 'object' || Array.isArray(context))
          throw new FwError('bad_request', "'context' must be an object", 400, { field: 'context' });
        return { kind: 'json', body: governance.check(agent, action, context as Record<string, unknown>) };
      },
    },
  ];
}

function limitOf(v: string | null): number {
  if (v === null || v === '') return DEFAULT_DECISIONS;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > MAX_DECISIONS)
    throw new FwError('bad_request', `'limit' must be an integer from 1 to ${MAX_DECISIONS}`, 400, { field: 'limit' });
  return n;
}
