/**
 * The store's health as fw's write path and readiness see it. A fault (see faults.ts) seen by a
 * write or by the probe makes the store *faulted* at once (`/fw/ready` answers 503); once the fault
 * has lasted `fw.store.retry-budget` the store is *down*: writes stop retrying and fail fast with
 * 503 `store_unavailable`. A probe write every `fw.store.probe-interval` (each with a deadline of
 * `fw.store.probe-timeout`) notices the fault when nobody writes (and, on the embedded store, a
 * filesystem with less than 1 MiB free), and notices the recovery: the first probe write that
 * succeeds again clears both states, with no restart.
 */
import { errorSummary, type Logger, type ReadinessCheck } from '@fw/runtime';
import { faultAdvice, faultOf, type FaultKind } from './faults.js';
import type { StorageBudget } from './retention/budget.js';

export interface StoreHealthSettings {
  retryBudgetMs: number;
  probeIntervalMs: number;
  probeTimeoutMs: number;
}

export interface StoreFault {
  kind: FaultKind;
  /** When it was first seen (epoch ms). */
  since: number;
}

export class StoreHealth {
  private current: StoreFault | undefined;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private stopped = false;
  /** Probe writes that failed or missed their deadline, since the store opened. */
  probeFailures = 0;
  /** Times the store went from healthy to faulted. */
  faults = 0;

  constructor(
    private readonly settings: () => StoreHealthSettings,
    private readonly probe: () => Promise<void>,
    private readonly where: { kind: 'sqlite' | 'memory' | 'postgres'; location: string },
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  get fault(): StoreFault | undefined {
    return this.current;
  }

  /** True once a fault has outlasted the retry budget: writes fail fast until the store is back. */
  get down(): boolean {
    return this.current !== undefined && this.now() - this.current.since >= this.settings().retryBudgetMs;
  }

  /** How long a write keeps retrying a store fault (`fw.store.retry-budget`). */
  retryBudget(): number {
    return this.settings().retryBudgetMs;
  }

  /** A write or the probe met `err`; true when it is a store fault (recorded), false when it is the write's own. */
  failed(err: unknown): boolean {
    const kind = faultOf(err);
    if (!kind) return false;
    if (!this.current) {
      this.current = { kind, since: this.now() };
      this.faults++;
      // The operator's message names the store and what to do; clients read store_unavailable only.
      this.log.error({ fault: kind, error: errorSummary(err) }, `store fault: ${faultAdvice(kind, this.where.kind, this.where.location)}`);
    }
    return true;
  }

  /** The probe write succeeded: the store is healthy again. */
  succeeded(): void {
    if (!this.current) return;
    const downMs = this.now() - this.current.since;
    this.current = undefined;
    this.log.info({ downMs }, 'store recovered: writes are accepted again');
  }

  /** Starts the probe loop (unref'd: it never keeps the process alive). */
  start(): void {
    this.stopped = false;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Runs one probe write now (also what the loop runs); resolves when it has settled. */
  async probeNow(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    let deadline: NodeJS.Timeout | undefined;
    try {
      const timeout = this.settings().probeTimeoutMs;
      await Promise.race([
        this.probe(),
        new Promise<never>((_, reject) => {
          deadline = setTimeout(
            () => reject(Object.assign(new Error(`store probe write took longer than ${timeout} ms`), { code: 'ETIMEDOUT' })),
            timeout,
          );
        }),
      ]);
      this.succeeded();
    } catch (err) {
      // The store closed under a probe in flight: that is no fault of the store.
      if (this.stopped) return;
      this.probeFailures++;
      // Any failed probe write is a fault: the store cannot take the smallest write.
      if (!this.failed(err)) this.failed(Object.assign(new Error((err as Error)?.message ?? String(err)), { code: 'EIO' }));
    } finally {
      clearTimeout(deadline);
      this.probing = false;
    }
  }

  /** The readiness answer: faulted or refusing new work (storage budget) is not ready. */
  check(budget?: StorageBudget): ReadinessCheck {
    if (this.current) {
      const seconds = Math.round((this.now() - this.current.since) / 1000);
      return { ready: false, detail: `store ${this.down ? 'down' : 'faulted'} (${this.current.kind}) for ${seconds} s` };
    }
    const refusing = budget?.state().refusing;
    if (refusing) return { ready: false, detail: `storage budget: new work refused (${refusing})` };
    const size = budget?.state().size;
    if (budget && size && budget.underPressure(size)) return { ready: true, detail: 'storage budget: under pressure, retention deleting' };
    return { ready: true };
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.probeNow().finally(() => this.schedule());
    }, this.settings().probeIntervalMs);
    this.timer.unref();
  }
}
