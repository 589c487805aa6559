import { errorSummary, fallbackLogger, type Logger } from '@fw/runtime';

/**
 * Writes that callers do not wait for (a session touched, a run finished) still happen in the
 * order they were asked for, and `flush()` waits for all of them: graceful close and every read
 * that must see earlier writes call it. A failed write is counted and logged, never thrown at a
 * caller that has moved on.
 */
export class WriteQueue {
  constructor(private readonly log: Logger = fallbackLogger()) {}

  private tail: Promise<void> = Promise.resolve();
  /** Writes that failed (each is also logged). */
  failures = 0;
  lastError: unknown;

  /** Queues `write` after every write queued before it. */
  defer(write: () => Promise<unknown>): void {
    this.tail = this.tail.then(write).then(
      () => undefined,
      (err: unknown) => {
        this.failures++;
        this.lastError = err;
        this.log.error({ error: errorSummary(err) }, 'store write failed');
      },
    );
  }

  /** Resolves once every write queued so far has finished. */
  flush(): Promise<void> {
    return this.tail;
  }
}
