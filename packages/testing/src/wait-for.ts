/** How long `waitFor` polls, and how often. */
export interface WaitOptions {
  /** Give up after this many ms (default 10 000). */
  timeout?: number;
  /** Poll every this many ms (default 10). */
  interval?: number;
}

/**
 * Polls `check` until it yields something other than `undefined` or `false`, and returns that.
 * A check that throws is retried (a server still starting refuses connections); the timeout
 * error names `what` and the last error, so a failing test says what never happened.
 *
 *   await waitFor('two events', () => events.length === 2);
 *   const task = await waitFor('the task to finish', async () => (await getTask()).done ? task : undefined, 20_000);
 */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  options: number | WaitOptions = {},
): Promise<Exclude<T, undefined | false>> {
  const { timeout = 10_000, interval = 10 } = typeof options === 'number' ? { timeout: options } : options;
  const deadline = Date.now() + timeout;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as Exclude<T, undefined | false>;
      last = undefined;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeout} ms waiting for ${what}${last === undefined ? '' : `: ${String(last)}`}`);
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
