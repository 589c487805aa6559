/**
 * One connection's publish allowance: a token bucket of `burst` tokens refilled at `perSecond`.
 * It lives on the member (one per connection), so it costs nothing when rooms are not used and
 * needs no map of its own.
 */
export class PublishBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = Math.max(1, burst);
    this.at = now;
  }

  /** Takes a token and returns 0, or returns the ms until one is free (nothing taken). */
  take(now: number): number {
    if (this.perSecond <= 0) return 0;
    const capacity = Math.max(1, this.burst);
    this.tokens = Math.min(capacity, this.tokens + ((now - this.at) * this.perSecond) / 1000);
    this.at = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) * 1000) / this.perSecond);
  }
}
