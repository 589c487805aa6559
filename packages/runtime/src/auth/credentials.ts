import type { Principal } from '../model.js';

/** Why a credential stopped being good while a socket was open. */
export type CredentialEnd = 'expired' | 'revoked';

/** Longest delay a Node timer takes (~24.8 days); a later expiry re-arms. */
const MAX_TIMER = 2 ** 31 - 1;

/**
 * When a principal's credential stops being good: its expiry (`principal.expiresAt`, in epoch
 * milliseconds; the JWT authenticator sets it from `exp`) or an operator's revocation. HTTP
 * requests are authenticated one by one, so they notice by themselves; an open socket or stream
 * was authenticated once, at its start, and must be told. Every surface that keeps a socket open
 * for a principal (fw transports, the admin event stream, MCP and admin MCP streams, chat) calls
 * `watch` when it opens and closes the socket when told.
 */
export class Credentials {
  private readonly watches = new Map<string, Set<Watch>>();
  /** Principal id → when it was revoked (credentials issued before then are refused). */
  private readonly revoked = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Calls `onEnd` once when the principal's credential expires or is revoked, and returns the
   * function that stops watching (call it when the socket closes). Nothing is watched for an
   * anonymous caller. A credential already past its expiry ends on the next tick.
   */
  watch(principal: Principal | undefined, onEnd: (reason: CredentialEnd) => void): () => void {
    if (!principal) return noop;
    const watch: Watch = { principal, onEnd, timer: undefined, done: false };
    let set = this.watches.get(principal.id);
    if (!set) this.watches.set(principal.id, (set = new Set()));
    set.add(watch);
    const expiresAt = expiryOf(principal);
    if (expiresAt !== undefined) this.arm(watch, expiresAt);
    return () => this.end(watch);
  }

  /**
   * Revokes every credential of `principalId` issued until now: its open sockets close with
   * `revoked`, and `isRevoked` refuses its credentials from here on (a JWT issued later, by its
   * `iat`, is good again). Returns how many open sockets were told.
   */
  revoke(principalId: string): number {
    this.revoked.set(principalId, this.now());
    const set = this.watches.get(principalId);
    if (!set) return 0;
    const list = [...set];
    for (const w of list) this.fire(w, 'revoked');
    return list.length;
  }

  /** Takes a revocation back. */
  restore(principalId: string): boolean {
    return this.revoked.delete(principalId);
  }

  /** True when the principal's credential was issued before a revocation of it. */
  isRevoked(principal: Principal): boolean {
    const at = this.revoked.get(principal.id);
    if (at === undefined) return false;
    const issuedAt = typeof principal.iat === 'number' ? principal.iat * 1000 : undefined;
    return issuedAt === undefined || issuedAt <= at;
  }

  /** Open sockets being watched (for leak tests and metrics). */
  get watching(): number {
    let n = 0;
    for (const set of this.watches.values()) n += set.size;
    return n;
  }

  private arm(w: Watch, expiresAt: number): void {
    const delay = expiresAt - this.now();
    if (delay > MAX_TIMER) {
      w.timer = setTimeout(() => this.arm(w, expiresAt), MAX_TIMER);
    } else {
      w.timer = setTimeout(() => this.fire(w, 'expired'), Math.max(0, delay));
    }
    w.timer.unref();
  }

  private fire(w: Watch, reason: CredentialEnd): void {
    if (w.done) return;
    this.end(w);
    w.onEnd(reason);
  }

  private end(w: Watch): void {
    if (w.done) return;
    w.done = true;
    if (w.timer) clearTimeout(w.timer);
    const set = this.watches.get(w.principal.id);
    set?.delete(w);
    if (set?.size === 0) this.watches.delete(w.principal.id);
  }
}

interface Watch {
  principal: Principal;
  onEnd: (reason: CredentialEnd) => void;
  timer: NodeJS.Timeout | undefined;
  done: boolean;
}

/** `expiresAt` (ms) when an authenticator set it, else a JWT-style `exp` claim (seconds). */
export function expiryOf(principal: Principal): number | undefined {
  if (typeof principal.expiresAt === 'number' && Number.isFinite(principal.expiresAt)) return principal.expiresAt;
  if (typeof principal.exp === 'number' && Number.isFinite(principal.exp)) return principal.exp * 1000;
  return undefined;
}

function noop(): void {}
