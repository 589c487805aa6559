import { FwError } from '../errors.js';
import { shareKey, type Caller } from './caller.js';

/** A token bucket: `burst` tokens, refilled at `perMinute` a minute. `perMinute` 0 turns it off. */
export interface RateLimits {
  perMinute: number;
  burst: number;
}

/** Too many requests from one caller: 429 with `Retry-After` (RFC 9110 §10.2.3, RFC 6585 §4). */
export class RateLimitedError extends FwError {
  constructor(
    readonly limit: string,
    readonly retryAfterSeconds: number,
  ) {
    super(
      'rate_limited',
      `${limit}: too many requests from this caller; retry in ${retryAfterSeconds} s`,
      429,
      { limit, retryAfter: retryAfterSeconds },
      { 'retry-after': String(retryAfterSeconds) },
    );
  }
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * One token bucket per caller (principal, or address group when anonymous). Memory is bounded:
 * a bucket that has refilled is the same as no bucket, so full ones are dropped when the map
 * grows past `maxKeys`, and if every bucket is still draining the oldest is dropped (which can
 * only favour that caller, never refuse anyone else).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly name: string,
    private readonly limits: () => RateLimits,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 100_000,
  ) {}

  /** Takes one token or throws {@link RateLimitedError}. */
  take(caller: Caller): void {
    const wait = this.tryTake(caller);
    if (wait > 0) throw new RateLimitedError(this.name, Math.max(1, Math.ceil(wait / 1000)));
  }

  /** Takes one token and returns 0, or returns the milliseconds until one is free. */
  tryTake(caller: Caller): number {
    const { perMinute, burst } = this.limits();
    if (perMinute <= 0) return 0;
    const capacity = Math.max(1, burst);
    const rate = perMinute / 60_000;
    const key = shareKey(caller).key;
    const t = this.now();
    const b = this.buckets.get(key);
    const tokens = b ? Math.min(capacity, b.tokens + (t - b.at) * rate) : capacity;
    if (tokens < 1) {
      if (b) {
        b.tokens = tokens;
        b.at = t;
      }
      return Math.ceil((1 - tokens) / rate);
    }
    if (b) {
      this.buckets.delete(key); // re-inserted: the map stays in order of last use
    } else if (this.buckets.size >= this.maxKeys) {
      this.evict(t, capacity, rate);
    }
    this.buckets.set(key, { tokens: tokens - 1, at: t });
    return 0;
  }

  get size(): number {
    return this.buckets.size;
  }

  private evict(t: number, capacity: number, rate: number): void {
    for (const [k, b] of this.buckets) if (b.tokens + (t - b.at) * rate >= capacity) this.buckets.delete(k);
    if (this.buckets.size >= this.maxKeys) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
  }
}
