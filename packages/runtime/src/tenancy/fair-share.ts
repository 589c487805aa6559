import { FwError } from '../errors.js';
import { shareKey, type Caller } from './caller.js';

/** The three numbers of a shared limit; 0 means "no cap" for a share (never for `max`). */
export interface ShareLimits {
  /** The whole capacity, for every caller together. */
  max: number;
  /** What one authenticated principal may hold. */
  perPrincipal: number;
  /** What one anonymous client address (IPv6: its /64) may hold. */
  perAddress: number;
}

/** What a caller holds of a limit; `release()` gives it back (idempotent). */
export interface Lease {
  release(): void;
}

/**
 * A caller asked for more than its share (429) or the whole capacity is in use (503). Both carry
 * `Retry-After`, the limit's configuration key and which share ran out, so a client knows what to
 * wait for and an operator what to raise.
 */
export class ShareExceededError extends FwError {
  constructor(
    readonly limit: string,
    readonly share: 'principal' | 'address' | 'total',
    readonly value: number,
    retryAfterSeconds = 1,
  ) {
    super(
      share === 'total' ? 'capacity_exhausted' : 'limit_exceeded',
      share === 'total'
        ? `${limit}: all ${value} are in use; try again later`
        : `${limit}: this ${share === 'principal' ? 'principal' : 'client address'} already holds its share (${value}); finish or close one first`,
      share === 'total' ? 503 : 429,
      { limit: share === 'total' ? limit : `${limit}-per-${share}`, share, value },
      { 'retry-after': String(retryAfterSeconds) },
    );
  }
}

/**
 * A global cap with a per-caller share, so one caller can never take the whole of it: a caller
 * is counted by principal when authenticated, by address group when anonymous (`shareKey`).
 * `name` is the configuration key of the cap (`fw.mcp.listen.max`); its shares are named
 * `<name>-per-principal` and `<name>-per-address` in errors and docs. Limits are read on every
 * acquire, so a changed setting applies at once.
 */
export class FairShare {
  private total = 0;
  private readonly held = new Map<string, number>();

  constructor(
    readonly name: string,
    private readonly limits: () => ShareLimits,
  ) {}

  /** A lease, or throws {@link ShareExceededError}. */
  acquire(caller: Caller): Lease {
    const key = this.takeKey(caller);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.releaseKey(key);
      },
    };
  }

  /**
   * `acquire` without a lease object, for holders too many to afford one each (a lease and its
   * key cost ~180 bytes; fw holds a place per real-time connection): throws
   * {@link ShareExceededError} like `acquire`, and the place is given back with `giveBack(caller)`
   * for the same caller (same principal id, or same address group), exactly once.
   */
  take(caller: Caller): void {
    this.takeKey(caller);
  }

  /** Gives back a place taken with `take`. */
  giveBack(caller: Caller): void {
    this.releaseKey(shareKey(caller).key);
  }

  private takeKey(caller: Caller): string {
    const { max, perPrincipal, perAddress } = this.limits();
    const { kind, key } = shareKey(caller);
    const share = kind === 'principal' ? perPrincipal : perAddress;
    const mine = this.held.get(key) ?? 0;
    if (share > 0 && mine >= share) throw new ShareExceededError(this.name, kind, share);
    if (this.total >= max) throw new ShareExceededError(this.name, 'total', max);
    this.total++;
    this.held.set(key, mine + 1);
    return key;
  }

  private releaseKey(key: string): void {
    const mine = this.held.get(key);
    if (mine === undefined) return; // never taken (or given back already): nothing to give
    this.total--;
    if (mine > 1) this.held.set(key, mine - 1);
    else this.held.delete(key);
  }

  /** A lease, or undefined when the caller's share or the capacity is used up. */
  tryAcquire(caller: Caller): Lease | undefined {
    try {
      return this.acquire(caller);
    } catch (err) {
      if (err instanceof ShareExceededError) return undefined;
      throw err;
    }
  }

  /** How many are held in all, or by one caller. */
  inUse(caller?: Caller): number {
    return caller ? (this.held.get(shareKey(caller).key) ?? 0) : this.total;
  }

  /** How many distinct callers hold something (bounded by the capacity). */
  get holders(): number {
    return this.held.size;
  }
}
