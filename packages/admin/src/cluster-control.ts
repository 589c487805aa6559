import { FwError, NotFoundError, type Principal } from '@fw/runtime';
import type { ClusterService } from '@fw/runtime/adapter';
import { CONTROL_ACTIONS, type ControlAction } from './authorizer.js';
import type { ControlPlane } from './control.js';
import type { Views } from './views.js';

/**
 * The admin plane's cluster methods (`@fw/redis` routes them to the node that holds a target).
 * The node asked runs its OWN rules (roles, internal broadcasters, its authorizer) for the
 * caller's principal before it acts, so routing a write through another node never skips a rule
 * the target's node enforces. Every node of a cluster runs the admin plane: a node without it
 * has no such method and its targets read as not found.
 */
/** "Would you allow this?": asked before the write is recorded as allowed. */
export const PERMIT_METHOD = 'admin.permit';
/** "Do it": the routed action, checked again where it runs. */
export const CONTROL_METHOD = 'admin.control';
/** Revokes a principal's credentials on the node asked (`fw.credentials.revoke`); answers the sockets closed. */
export const REVOKE_METHOD = 'admin.revoke';

/** What travels to the target's node. The principal is the caller's, as the asking node authenticated it. */
export interface RoutedControl {
  [key: string]: unknown;
  action: ControlAction;
  target: string;
  principal?: Principal;
  message?: unknown;
  reason?: unknown;
}

/** One node's answer about a broadcast: whether it has the broadcaster, and its refusal if it would refuse. */
export interface BroadcastPermit {
  holds: boolean;
  refusal?: { code: string; reason: string; outcome: 'refused' | 'error' };
}

/** A refusal by another node, as the routed call brings it back. */
export interface RemoteRefusal {
  code: string;
  reason: string;
  outcome: 'refused' | 'error';
  node: string | undefined;
}

/**
 * A refusal a target's node sent back through the cluster (a 403 from `admin.permit` or
 * `admin.control`, its message the reason), or undefined for any other error.
 */
export function remoteRefusal(err: unknown): RemoteRefusal | undefined {
  if (!(err instanceof FwError) || err.status !== 403) return undefined;
  const node = (err.details as { node?: unknown } | undefined)?.node;
  if (typeof node !== 'string') return undefined;
  return { code: err.code, reason: err.message, outcome: err.code === 'authorizer_error' ? 'error' : 'refused', node };
}

/** Registers the admin plane's methods on the cluster service; returns a function that removes them. */
export function registerClusterControl(cluster: ClusterService, control: ControlPlane, views: Views): () => void {
  const removers = [
    cluster.handle(PERMIT_METHOD, async (args) => {
      const { action, target, principal } = parse(args);
      if (action === 'broadcast') {
        // Gathered from every node: each one that has the broadcaster says whether it would refuse.
        if (!control.holds(action, target)) return { holds: false } satisfies BroadcastPermit;
        const p = await control.permission(action, target, principal);
        return (
          p.ok ? { holds: true } : { holds: true, refusal: { code: p.code, reason: p.reason, outcome: p.outcome } }
        ) satisfies BroadcastPermit;
      }
      await check(control, action, target, principal);
      return { ok: true };
    }),
    cluster.handle(CONTROL_METHOD, async (args) => {
      const { action, target, principal } = parse(args);
      await check(control, action, target, principal);
      return control.runHere(action, target, { message: args.message, reason: args.reason });
    }),
    cluster.handle(REVOKE_METHOD, (args) => {
      if (typeof args.principal !== 'string' || args.principal === '')
        throw new FwError('bad_request', "'principal' must be a non-empty string", 400);
      return views.credentials.revoke(args.principal);
    }),
  ];
  return () => removers.forEach((r) => r());
}

/** Not held here: not found (the cluster then asks the other nodes). Held: this node's rules, a refusal as a 403 whose message is the reason. */
async function check(control: ControlPlane, action: ControlAction, target: string, principal: Principal | undefined): Promise<void> {
  if (!control.holds(action, target)) throw new NotFoundError(action === 'cancel' ? 'task' : 'resource', target);
  const p = await control.permission(action, target, principal);
  if (!p.ok) throw new FwError(p.code, p.reason, 403);
}

/** The routed arguments, checked: they come from another node, over Redis. */
function parse(args: Record<string, unknown>): { action: ControlAction; target: string; principal: Principal | undefined } {
  const action = args.action;
  if (typeof action !== 'string' || !(CONTROL_ACTIONS as readonly string[]).includes(action))
    throw new FwError('bad_request', "'action' must be a control action", 400);
  if (typeof args.target !== 'string' || args.target === '') throw new FwError('bad_request', "'target' must be a non-empty string", 400);
  const p = args.principal as Partial<Principal> | undefined;
  const principal =
    p && typeof p === 'object' && typeof p.id === 'string' && (p.roles === undefined || Array.isArray(p.roles))
      ? (p as Principal)
      : undefined;
  return { action: action as ControlAction, target: args.target, principal };
}
