import { fallbackLogger, type FwEvent, type Logger, type TransportName } from '@fw/runtime';
import { Ring } from './ring.js';
import type { Views } from './views.js';

/** Transports a connection can use; each gets its own line in the connections chart. */
export const HISTORY_TRANSPORTS: readonly TransportName[] = ['websocket', 'sse', 'long-polling', 'streaming'];

/** Task states that end a run badly (A2A `failed` / `rejected`, any spelling the agent layer uses). */
const FAILED_STATES = new Set(['failed', 'rejected', 'TASK_STATE_FAILED', 'TASK_STATE_REJECTED']);
/** Control-action outcomes that are errors (not `refused`/`invalid`: those are the gate working). */
const FAILED_OUTCOMES = new Set(['failed', 'error']);

/**
 * One point of the time series: gauges read at `t`, and counts of what happened during the
 * `intervalMs` before it. User traffic only: internal broadcasters (the admin event stream) and
 * their members are left out, as in the overview.
 */
export interface HistorySample {
  /** End of the interval, epoch milliseconds. */
  t: number;
  /** Length of the interval the counts cover (the first one after start may be shorter). */
  intervalMs: number;
  /** User connections at `t`, by transport. */
  connections: Record<TransportName, number>;
  /** Broadcasts on user broadcasters during the interval. */
  broadcasts: number;
  /** Messages those broadcasts delivered (one per member reached). */
  deliveries: number;
  /** Messages received from clients during the interval. */
  messagesIn: number;
  /** Agent runs started: A2A tasks created and coordinator dispatches. */
  agentRuns: number;
  /** Runs in flight at `t` (A2A tasks not in a final state, AG-UI runs). */
  activeRuns: number;
  /** Failed runs and dispatches, and control actions that failed with an error. */
  errors: number;
  /** Gap notices sent to clients (each says how many messages it skipped). */
  gaps: number;
  /** Messages members missed, each told to the client with a gap. */
  lost: number;
  /** Messages replayed to reconnecting clients or recovered after a cluster link outage. */
  recovered: number;
}

/** Totals since the admin plane started, from the same counting as the samples. */
export interface HistoryTotals {
  broadcasts: number;
  deliveries: number;
  agentRuns: number;
  errors: number;
}

export interface HistoryOptions {
  /** Milliseconds between samples (fw.admin.history.interval-ms). */
  intervalMs: number;
  /** Samples kept (fw.admin.history.samples); intervalMs × samples is the window a late dashboard still sees. */
  samples: number;
}

/** The runtime's gap counters, present on fw's runtime (not part of the RuntimeView contract). */
interface GapCounters {
  gaps: number;
  lost: number;
  recovered: number;
}

const TERMINAL = new Set([
  'completed',
  'canceled',
  'cancelled',
  'failed',
  'rejected',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_FAILED',
  'TASK_STATE_REJECTED',
]);

/**
 * A bounded per-framework history of the figures the dashboard charts: one sample every
 * `intervalMs`, the newest `samples` kept (default 5 s × 180 = 15 minutes). Event counts come
 * from the event bus (one integer increment per event); gauges and the runtime's counters are
 * read once per sample, so the cost does not grow with traffic. Served by GET /api/admin/history
 * and pushed to the event stream as a `HistorySample` frame.
 */
export class History {
  private readonly ring: Ring<HistorySample>;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private last = Date.now();
  private previous: { messagesIn: number } & GapCounters;
  private readonly current = { broadcasts: 0, deliveries: 0, agentRuns: 0, errors: 0 };
  private readonly sums: HistoryTotals = { broadcasts: 0, deliveries: 0, agentRuns: 0, errors: 0 };
  private readonly listeners = new Set<(sample: HistorySample) => void>();

  constructor(
    private readonly views: Views,
    private readonly subscribe: (listener: (event: FwEvent) => void) => () => void,
    readonly options: HistoryOptions,
    private readonly log: Logger = fallbackLogger(),
  ) {
    if (!Number.isInteger(options.intervalMs) || options.intervalMs < 100)
      throw new RangeError(`fw.admin.history.interval-ms must be an integer of at least 100, got ${options.intervalMs}`);
    if (!Number.isInteger(options.samples) || options.samples < 1 || options.samples > 100_000)
      throw new RangeError(`fw.admin.history.samples must be an integer from 1 to 100000, got ${options.samples}`);
    this.ring = new Ring(options.samples);
    this.previous = this.counters();
  }

  start(): void {
    this.unsubscribe = this.subscribe((event) => this.count(event));
    this.last = Date.now();
    this.previous = this.counters();
    this.timer = setInterval(() => this.sample(), this.options.intervalMs);
    this.timer.unref();
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearInterval(this.timer);
    this.timer = undefined;
    this.listeners.clear();
  }

  /** The samples kept, oldest first. */
  samples(): HistorySample[] {
    return this.ring.last();
  }

  /** Totals since start (the overview's `broadcasts` excludes internal broadcasters the same way). */
  totals(): HistoryTotals {
    return { ...this.sums };
  }

  /** Called with each new sample; returns a function that stops it. */
  onSample(listener: (sample: HistorySample) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Takes a sample now (the timer calls this; tests may too). */
  sample(now = Date.now()): HistorySample {
    const counters = this.counters();
    const runtime = this.views.runtime;
    const internal = runtime.listBroadcasters().filter((b) => b.internal);
    const connections = {} as Record<TransportName, number>;
    for (const transport of HISTORY_TRANSPORTS) {
      let n = runtime.listResources({ transport, limit: 1 }).total;
      // The members of internal broadcasters (the dashboards' own streams) are not users.
      for (const b of internal) if (b.resourceCount > 0) n -= runtime.listResources({ broadcaster: b.id, transport, limit: 1 }).total;
      connections[transport] = Math.max(0, n);
    }
    const sample: HistorySample = {
      t: now,
      intervalMs: Math.max(1, now - this.last),
      connections,
      broadcasts: this.current.broadcasts,
      deliveries: this.current.deliveries,
      messagesIn: Math.max(0, counters.messagesIn - this.previous.messagesIn),
      agentRuns: this.current.agentRuns,
      activeRuns: this.views.agent.tasks().filter((t) => !TERMINAL.has(t.state)).length,
      errors: this.current.errors,
      gaps: Math.max(0, counters.gaps - this.previous.gaps),
      lost: Math.max(0, counters.lost - this.previous.lost),
      recovered: Math.max(0, counters.recovered - this.previous.recovered),
    };
    this.last = now;
    this.previous = counters;
    this.current.broadcasts = this.current.deliveries = this.current.agentRuns = this.current.errors = 0;
    this.ring.push(sample);
    for (const l of this.listeners) {
      try {
        l(sample);
      } catch (err) {
        this.log.error({ err }, 'admin history listener failed');
      }
    }
    return sample;
  }

  private count(event: FwEvent): void {
    switch (event.type) {
      case 'MessageBroadcast':
        // Internal broadcasters emit no MessageBroadcast (the runtime skips them).
        this.add('broadcasts', 1);
        this.add('deliveries', event.resourceCount);
        break;
      case 'TaskStateChanged':
        if (event.oldState === null) this.add('agentRuns', 1);
        if (FAILED_STATES.has(event.newState)) this.add('errors', 1);
        break;
      case 'AgentDispatched':
        this.add('agentRuns', 1);
        break;
      case 'AgentCompleted':
        if (!event.success) this.add('errors', 1);
        break;
      case 'ControlActionExecuted':
        if (FAILED_OUTCOMES.has(event.outcome)) this.add('errors', 1);
        break;
      default:
        break;
    }
  }

  private add(key: keyof HistoryTotals, n: number): void {
    this.current[key] += n;
    this.sums[key] += n;
  }

  private counters(): { messagesIn: number } & GapCounters {
    const s = this.views.runtime.stats();
    return {
      messagesIn: s.messagesIn,
      gaps: 'gaps' in s && typeof s.gaps === 'number' ? s.gaps : 0,
      lost: 'lost' in s && typeof s.lost === 'number' ? s.lost : 0,
      recovered: 'recovered' in s && typeof s.recovered === 'number' ? s.recovered : 0,
    };
  }
}
