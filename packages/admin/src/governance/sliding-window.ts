/**
 * The calls of one rate-limit key within its window: their times, oldest first. A call asks
 * `count(now)` and, when it goes on, `add(now)`. Expired times leave from the front, so a check
 * costs what expired since the last one, not the window's size: a limit of 10,000 calls a minute
 * on a busy agent no longer copies 10,000 timestamps per call (bench/governance).
 *
 * Times are `Date.now()` values, appended in the order calls went on. Should the clock step back,
 * a later time may sit before an earlier one; it then expires no sooner than the one before it,
 * which counts a call longer than its window, never shorter: the limit errs on the side of denying.
 */
export class SlidingWindow {
  private stamps: number[] = [];
  private head = 0;

  constructor(private readonly windowMs: number) {}

  /** Calls within the window ending at `now` (those at or before `now - windowMs` have expired). */
  count(now: number): number {
    const cutoff = now - this.windowMs;
    const stamps = this.stamps;
    while (this.head < stamps.length && (stamps[this.head] as number) <= cutoff) this.head++;
    // Compact once the expired part is the larger half: amortised O(1) per call, and the array
    // never holds more than twice the window's calls.
    if (this.head > 32 && this.head * 2 >= stamps.length) {
      this.stamps = stamps.slice(this.head);
      this.head = 0;
    }
    return this.stamps.length - this.head;
  }

  add(now: number): void {
    this.stamps.push(now);
  }
}
