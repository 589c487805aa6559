import { FwError } from '@fw/runtime';
import type { SpendGroup } from '@fw/store';
import type { AdminRoute } from '../../api/router.js';
import type { Budgets } from './budgets.js';

const GROUPS: readonly SpendGroup[] = ['agent', 'principal', 'model'];

/** `by` checked: agent, principal or model (default agent). */
export function spendGroupOf(v: string | null | undefined): SpendGroup {
  if (v === null || v === undefined || v === '') return 'agent';
  if (!(GROUPS as readonly string[]).includes(v))
    throw new FwError('bad_request', `'by' must be one of ${GROUPS.join(', ')} (got '${v.slice(0, 64)}')`, 400, { field: 'by' });
  return v as SpendGroup;
}

/** `since` checked: an ISO-8601 time not in the future (default: the start of today, UTC). */
export function spendSinceOf(v: string | null | undefined, now = Date.now()): Date {
  if (v === null || v === undefined || v === '') return new Date(`${new Date(now).toISOString().slice(0, 10)}T00:00:00.000Z`);
  const at = /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v) : Number.NaN;
  if (!Number.isFinite(at))
    throw new FwError(
      'bad_request',
      `'since' must be an ISO-8601 time such as 2026-11-26 or 2026-11-26T00:00:00Z (got '${v.slice(0, 64)}')`,
      400,
      {
        field: 'since',
      },
    );
  if (at > now) throw new FwError('bad_request', "'since' must not be in the future", 400, { field: 'since' });
  return new Date(at);
}

/** GET spend and GET governance/budgets (docs/governance.md, Budgets and spend): reads, for a viewer. */
export function spendRoutes(budgets: Budgets): AdminRoute[] {
  return [
    {
      method: 'GET',
      path: '/spend',
      doc: {
        tag: 'governance',
        reply: 'object',
        summary:
          'Spend of model calls per agent, principal or model over the UTC days from `since` to now: `{by, since, until, currency: "USD", rows: [{key, calls, inputTokens, outputTokens, cachedTokens, costUsd}], total: {calls, inputTokens, outputTokens, cachedTokens, costUsd}, unpriced}`, rows by cost, largest first; `unpriced`: models called without a price (counted at cost 0); a principal key of `""` is every call without one',
        query: {
          by: { description: 'agent (default), principal or model', schema: { type: 'string', enum: [...GROUPS] } },
          since: {
            description: 'ISO-8601 time; the day it falls in is the first counted (default: today, UTC)',
            schema: { type: 'string' },
          },
        },
      },
      handle: async (r) => {
        const by = spendGroupOf(r.url.searchParams.get('by'));
        const since = spendSinceOf(r.url.searchParams.get('since'));
        return { kind: 'json', body: await budgets.spend(by, since) };
      },
    },
    {
      method: 'GET',
      path: '/governance/budgets',
      doc: {
        tag: 'governance',
        reply: 'object',
        summary:
          "The budgets of the policy file and where each stands: `{budgets: [{id, scope (run, agent, principal), key, period (run, day), soft, hard, used, state (ok, soft, hard)}]}`; `used` (`{tokens, usd}`) is today's spend of a keyed agent or principal budget, null for a budget of many (each run, each agent), whose `state` is the highest of theirs",
      },
      handle: () => ({ kind: 'json', body: { budgets: budgets.report() } }),
    },
  ];
}
