/**
 * Reading content: what agents were told and answered (the run tape's messages, tool arguments and
 * results) is more than the metadata the `viewer` role reads. It needs the content role:
 * `operator` (and so `admin`) may, `viewer` may not. Without authentication configured (the
 * loopback-only admin plane), whoever the gate admits may, as for every other read.
 */
import { hasRole, type BuiltinRole, type Principal } from '@fw/runtime';
import { ForbiddenError } from './errors.js';

/** The built-in role that reads content (run tapes). */
export const CONTENT_ROLE: BuiltinRole = 'operator';

export function mayReadContent(principal: Principal | undefined, authRequired: boolean): boolean {
  return principal === undefined && !authRequired ? true : hasRole(principal, CONTENT_ROLE);
}

/** Throws 403 `content_forbidden` unless `principal` may read content. */
export function requireContent(principal: Principal | undefined, authRequired: boolean, target: string): void {
  if (!mayReadContent(principal, authRequired))
    throw new ForbiddenError('read the content of', target, 'content_forbidden', `needs the '${CONTENT_ROLE}' role`);
}
