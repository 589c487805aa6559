import type { Principal } from '@fw/runtime';

/** The write operations the admin plane performs; the `action` an authorizer is asked about. */
export type ControlAction = 'broadcast' | 'unicast' | 'disconnect' | 'destroy' | 'cancel';
export const CONTROL_ACTIONS: readonly ControlAction[] = ['broadcast', 'unicast', 'disconnect', 'destroy', 'cancel'];

/**
 * Spec §5: decides whether `principal` may perform `action` on `target` (a broadcaster id, a
 * resource uuid, a task id, or `*` when the dashboard asks what it may do in general).
 */
export type ControlAuthorizer = (action: ControlAction, target: string, principal: Principal | undefined) => boolean | Promise<boolean>;

/** The spec's default: every operation is permitted. */
export const ALLOW_ALL: ControlAuthorizer = () => true;

/** Refuses every write (a read-only admin plane). */
export const DENY_ALL: ControlAuthorizer = () => false;

/** Permits writes by any authenticated principal. */
export const REQUIRE_PRINCIPAL: ControlAuthorizer = (_action, _target, principal) => principal !== undefined;

/** Permits writes by a principal that has `role` among its roles. */
export function requireRole(role: string): ControlAuthorizer {
  return (_action, _target, principal) => principal?.roles?.includes(role) ?? false;
}
