import type { Principal } from '../model.js';

/**
 * The built-in roles, each including the ones before it: `viewer` reads, `operator` also acts on
 * live traffic (broadcast, unicast, disconnect, cancel), `admin` also destroys and configures.
 */
export const BUILTIN_ROLES = ['viewer', 'operator', 'admin'] as const;
export type BuiltinRole = (typeof BUILTIN_ROLES)[number];

/** True when `principal` holds `role`, directly or through a higher built-in role. */
export function hasRole(principal: Principal | undefined, role: BuiltinRole): boolean {
  const roles = principal?.roles;
  if (!roles) return false;
  const needed = BUILTIN_ROLES.indexOf(role);
  return roles.some((r) => {
    const rank = BUILTIN_ROLES.indexOf(r as BuiltinRole);
    return rank >= needed && rank >= 0;
  });
}

/** The highest built-in role a principal holds, or undefined. */
export function highestRole(principal: Principal | undefined): BuiltinRole | undefined {
  for (const role of [...BUILTIN_ROLES].reverse()) if (hasRole(principal, role)) return role;
  return undefined;
}
