/**
 * Who may reach a piece of agent work (an A2A task or context, an AG-UI run, a chat session, a
 * run record). Every piece records its owner when it starts (`@fw/runtime`'s `ownerOf`):
 * `principal:<id>` for an authenticated caller, `anonymous:<key>` (128 random bits) for an
 * anonymous one. A principal reaches exactly its own work. An anonymous caller has no identity to
 * compare, so what it presents is the proof: a server-generated id it was given (a task id, a
 * context id, a session id: unguessable, and handed to that caller only) or, where the client
 * chooses the id itself (AG-UI's runId), the owner key the server issued with the work. Work
 * recorded before owners existed (no owner) belongs to nobody; operators see everything through
 * the admin plane, which does not go through here.
 */
import { isOwner, type Owner, type Principal } from '@fw/runtime';

const ANONYMOUS = 'anonymous:';

export function isAnonymousOwner(owner: Owner | null | undefined): boolean {
  return typeof owner === 'string' && owner.startsWith(ANONYMOUS) && owner.length > ANONYMOUS.length;
}

/**
 * May this caller reach work owned by `owner`? `presentedKey`: the owner key an anonymous caller
 * sent, for work whose id the client chose; omit it where the id itself is the server-issued
 * capability the caller presented.
 */
export function reachableBy(owner: Owner | null | undefined, principal: Principal | undefined, presentedKey?: string): boolean {
  if (owner === null || owner === undefined) return false;
  if (principal) return isOwner(owner, principal);
  if (presentedKey !== undefined) return isOwner(owner, undefined, presentedKey);
  return isAnonymousOwner(owner);
}

/**
 * An owner as the admin plane shows it: the principal, or `anonymous` without its key (the key
 * is a credential: it cancels an anonymous AG-UI run).
 */
export function ownerLabel(owner: Owner | null | undefined): string | null {
  if (owner === null || owner === undefined) return null;
  return isAnonymousOwner(owner) ? 'anonymous' : owner;
}
