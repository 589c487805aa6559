/**
 * One circuit breaker: a coordinator's view of one fleet agent (local or remote over A2A). CLOSED
 * lets every dispatch through and counts consecutive failures; at the threshold it opens. OPEN
 * refuses at once (the coordinator fails fast instead of waiting on an agent that keeps failing)
 * until the open duration has passed; then HALF_OPEN lets exactly one probe through: its success
 * closes the breaker, its failure opens it again for another full duration. A dispatch cancelled
 * by its caller says nothing about the agent: it neither counts as a failure nor ends a probe's
 * turn without giving it back.
 */
export type CircuitState = 'CLOSED' | 'OPEN' | 'HALF_OPEN';

export interface CircuitSettings {
  /** Consecutive failures that open the breaker (0: it never opens). */
  failureThreshold: number;
  /** How long it stays open before one probe may go (ms). */
  openDurationMs: number;
}

export interface CircuitTransition {
  from: CircuitState;
  to: CircuitState;
  consecutiveFailures: number;
  /** The failure that opened it (absent when it closes or half-opens). */
  error?: string;
}

export class CircuitBreaker {
  private current: CircuitState = 'CLOSED';
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  private timer: NodeJS.Timeout | undefined;
  /** The last failure's message, kept for the health table. */
  lastError: string | undefined;
  /** When the state last changed (epoch ms; 0: never). */
  changedAt = 0;

  constructor(
    private readonly settings: () => CircuitSettings,
    private readonly changed: (t: CircuitTransition) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** The state now (an OPEN breaker whose time is up reads, and becomes, HALF_OPEN). */
  get state(): CircuitState {
    if (this.current === 'OPEN' && this.now() - this.openedAt >= this.settings().openDurationMs) this.move('HALF_OPEN');
    return this.current;
  }

  /** Consecutive failures since the last success. */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /** When an OPEN breaker lets its probe through (epoch ms), undefined otherwise. */
  get retryAt(): number | undefined {
    return this.current === 'OPEN' ? this.openedAt + this.settings().openDurationMs : undefined;
  }

  /**
   * Whether a dispatch may go now. In HALF_OPEN the one caller that gets `true` holds the probe:
   * it must end with `success()`, `failure()` or `release()`.
   */
  tryAcquire(): boolean {
    switch (this.state) {
      case 'CLOSED':
        return true;
      case 'OPEN':
        return false;
      case 'HALF_OPEN':
        if (this.probing) return false;
        this.probing = true;
        return true;
    }
  }

  success(): void {
    this.failures = 0;
    this.probing = false;
    this.lastError = undefined;
    if (this.current !== 'CLOSED') this.move('CLOSED');
  }

  failure(error: string): void {
    this.failures++;
    this.lastError = error;
    const threshold = this.settings().failureThreshold;
    if (this.current === 'HALF_OPEN') {
      this.probing = false;
      this.open(error);
    } else if (this.current === 'CLOSED' && threshold > 0 && this.failures >= threshold) {
      this.open(error);
    }
  }

  /** A dispatch that ended without a verdict (cancelled by its caller): a probe's turn is given back. */
  release(): void {
    this.probing = false;
  }

  /** Stops the timer that announces HALF_OPEN (the host is closing). */
  close(): void {
    clearTimeout(this.timer);
  }

  private open(error: string): void {
    this.openedAt = this.now();
    this.move('OPEN', error);
    // Announced when its time is up even if no dispatch asks: the fleet view shows HALF_OPEN live.
    clearTimeout(this.timer);
    // (Node's timers stop at 2^31 - 1 ms, about 24.8 days: a longer duration is read when asked.)
    this.timer = setTimeout(() => void this.state, Math.min(this.settings().openDurationMs + 1, 2 ** 31 - 1));
    this.timer.unref();
  }

  private move(to: CircuitState, error?: string): void {
    const from = this.current;
    if (from === to) return;
    this.current = to;
    this.changedAt = this.now();
    if (to !== 'OPEN') clearTimeout(this.timer);
    this.changed({ from, to, consecutiveFailures: this.failures, ...(error !== undefined ? { error } : {}) });
  }
}
