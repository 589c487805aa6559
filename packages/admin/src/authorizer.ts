import type { BuiltinRole, Principal } from '@fw/runtime';

/**
 * The write operations the admin plane performs; the `action` an authorizer is asked about.
 * `revoke` cuts a principal off: its credentials are refused and its open sockets closed.
 * `replay` runs a taped agent run's code again with its recorded model outputs (docs/runs.md).
 * `kill-switch.arm` / `kill-switch.disarm` (governance) stop or let again every agent run of a
 * scope on every node; their target is the scope (`*`, or an agent's name). `session.cancel-inflight`
 * stops one chat session's model call and keeps its socket (target: the session id).
 * `governance.reload` reads the policy file again and applies it (target: `policies`).
 * `evaluate` promotes a taped run to a dataset case, or starts an eval run (docs/runs.md, "Evals").
 * `rerun` sends a taped run's input to its agent again, with the live model (docs/runs.md, "Re-run and compare").
 */
export type ControlAction =
  | 'broadcast'
  | 'unicast'
  | 'disconnect'
  | 'destroy'
  | 'cancel'
  | 'revoke'
  | 'kill-switch.arm'
  | 'kill-switch.disarm'
  | 'session.cancel-inflight'
  | 'governance.reload'
  | 'replay'
  | 'evaluate'
  | 'rerun';
export const CONTROL_ACTIONS: readonly ControlAction[] = [
  'broadcast',
  'unicast',
  'disconnect',
  'destroy',
  'cancel',
  'revoke',
  'kill-switch.arm',
  'kill-switch.disarm',
  'session.cancel-inflight',
  'governance.reload',
  'replay',
  'evaluate',
  'rerun',
];

/**
 * The built-in role each action needs (when authentication is configured): `operator` acts on
 * live traffic, `admin` destroys and revokes credentials. Reads need `viewer`.
 */
export const REQUIRED_ROLE: Readonly<Record<ControlAction, BuiltinRole>> = Object.freeze({
  broadcast: 'operator',
  unicast: 'operator',
  disconnect: 'operator',
  cancel: 'operator',
  replay: 'operator',
  evaluate: 'operator',
  rerun: 'operator',
  destroy: 'admin',
  revoke: 'admin',
  'kill-switch.arm': 'operator',
  'kill-switch.disarm': 'operator',
  'session.cancel-inflight': 'operator',
  'governance.reload': 'operator',
});

/**
 * Spec §5: the app's own say on a write, asked after the role check: may `principal` perform
 * `action` on `target` (a broadcaster id, a resource uuid, a task id, a principal id, or `*` when the dashboard
 * asks what it may do in general)? Throwing denies the write and is audited as `error`.
 */
export type ControlAuthorizer = (action: ControlAction, target: string, principal: Principal | undefined) => boolean | Promise<boolean>;

/** The default: the roles decide alone. */
export const ALLOW_ALL: ControlAuthorizer = () => true;

/** Refuses every write (a read-only admin plane). */
export const DENY_ALL: ControlAuthorizer = () => false;

/** Permits writes by any authenticated principal. */
export const REQUIRE_PRINCIPAL: ControlAuthorizer = (_action, _target, principal) => principal !== undefined;

/** Permits writes by a principal that has `role` among its roles. */
export function requireRole(role: string): ControlAuthorizer {
  return (_action, _target, principal) => principal?.roles?.includes(role) ?? false;
}
