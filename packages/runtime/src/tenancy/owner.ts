import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../model.js';

/**
 * Who owns a piece of work (a task, a run, a session, a subscription): `principal:<id>` for an
 * authenticated caller, `anonymous:<key>` for an anonymous one, where the key is 128 random bits
 * handed to that caller only (bound to its context, session or run), so that knowing another
 * caller's ids is never enough. Stored with the work; every list, read and cancel compares it.
 */
export type Owner = string;

/** The owner for a principal; for an anonymous caller, a fresh unguessable owner. */
export function ownerOf(principal: Principal | undefined): Owner {
  return principal ? principalOwner(principal.id) : anonymousOwner(newOwnerKey());
}

export function principalOwner(id: string): Owner {
  return `principal:${id}`;
}

export function anonymousOwner(key: string): Owner {
  return `anonymous:${key}`;
}

/** 128 random bits, base64url: what an anonymous caller holds to prove it owns its work. */
export function newOwnerKey(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * May the caller (its principal, or the anonymous owner key it presented) act on work owned by
 * `owner`? A principal owns what it created; an anonymous caller owns what its key created.
 * Work recorded before owners existed (`undefined`) belongs to no caller. Compared in constant
 * time, so the comparison does not leak how much of a key matched.
 */
export function isOwner(owner: Owner | undefined, principal: Principal | undefined, anonymousKey?: string): boolean {
  if (owner === undefined) return false;
  const mine = principal ? principalOwner(principal.id) : anonymousKey ? anonymousOwner(anonymousKey) : undefined;
  if (mine === undefined) return false;
  const a = Buffer.from(owner);
  const b = Buffer.from(mine);
  return a.length === b.length && timingSafeEqual(a, b);
}
