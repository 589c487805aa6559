/**
 * Reconnect delays: exponential from `minDelay`, capped at `maxDelay`, with "subtractive" jitter
 * so a crowd of clients dropped by the same server restart does not come back in lock-step.
 * The delay of attempt n (0-based) lies in [cap·(1 − jitter), cap] where cap = min(maxDelay,
 * minDelay·2ⁿ); it never exceeds `maxDelay`.
 */
export interface ReconnectOptions {
  /** First delay, ms. Default 250. */
  minDelay: number;
  /** Largest delay, ms. Default 10 000. */
  maxDelay: number;
  /** Fraction of the delay that is randomised away, 0…1. Default 0.5. */
  jitter: number;
  /** Give up (state `closed`) after this many failed rounds in a row. Default Infinity. */
  maxAttempts: number;
}

export const DEFAULT_RECONNECT: Readonly<ReconnectOptions> = Object.freeze({
  minDelay: 250,
  maxDelay: 10_000,
  jitter: 0.5,
  maxAttempts: Infinity,
});

export function reconnectOptions(given: Partial<ReconnectOptions> | undefined): ReconnectOptions {
  const o = { ...DEFAULT_RECONNECT, ...given };
  if (!(o.minDelay >= 0) || !(o.maxDelay >= o.minDelay)) {
    throw new RangeError(`reconnect delays must satisfy 0 <= minDelay <= maxDelay (got ${o.minDelay}, ${o.maxDelay})`);
  }
  if (!(o.jitter >= 0 && o.jitter <= 1)) throw new RangeError(`reconnect.jitter must be within 0…1 (got ${o.jitter})`);
  if (!(o.maxAttempts >= 0)) throw new RangeError(`reconnect.maxAttempts must be >= 0 (got ${o.maxAttempts})`);
  return o;
}

export function backoffDelay(attempt: number, options: ReconnectOptions, random: () => number = Math.random): number {
  const cap = Math.min(options.maxDelay, options.minDelay * 2 ** Math.max(0, attempt));
  return Math.round(cap * (1 - options.jitter * random()));
}
