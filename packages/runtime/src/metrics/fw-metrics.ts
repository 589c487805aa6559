import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EventBus, TransportName } from '../events.js';
import type { Runtime, RuntimeCounters } from '../runtime.js';
import { HotHistogram } from './hot-histogram.js';

/** How a timed call ended; `input-required`: an MCP tool paused to ask the client for input (MCP 2026-07-28). */
export type CallOutcome = 'ok' | 'error' | 'cancelled' | 'input-required';

const TRANSPORTS: readonly TransportName[] = ['websocket', 'sse', 'long-polling', 'streaming'];

/** The runtime's counters as Prometheus counters; a counter the runtime gains later is exported as `fw_runtime_<name>_total`. */
const COUNTER_NAMES: Record<keyof RuntimeCounters, [name: string, help: string]> = {
  messagesIn: ['fw_messages_in_total', 'Messages received from clients'],
  messagesOut: ['fw_messages_out_total', 'Messages written to clients'],
  broadcasts: ['fw_broadcasts_total', 'Broadcasts (one per broadcast call, whatever its fan-out)'],
  dropped: ['fw_messages_dropped_total', 'Messages not delivered to a slow consumer (policy drop), each also reported to its client'],
  slowConsumerDisconnects: ['fw_slow_consumer_disconnects_total', 'Resources closed by the slow-consumer policy disconnect'],
  resumes: ['fw_resumes_total', 'Reconnects that resumed a resource from its tracking id'],
  gaps: ['fw_gaps_total', 'Gap frames sent: a client was told that messages it should have had are gone'],
  lost: ['fw_messages_lost_total', 'Messages a client could not be given on resume (counted in the gap frames)'],
  misdirected: [
    'fw_misdirected_requests_total',
    'Message POSTs and DELETEs for a resource another cluster node holds, answered 421 (put sticky sessions in front)',
  ],
  recovered: [
    'fw_messages_recovered_total',
    'Broadcasts delivered again to a client that missed them (replay caches, the durable replay store)',
  ],
};

/** Methods kept as labels; any other (a `*` route sees every method a client invents) is `OTHER`. */
const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const SECONDS_SHORT = [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1];
const SECONDS_CALL = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const QUEUE_BYTES = [0, 1024, 8192, 65536, 262144, 1048576, 4194304, 16777216];
const QUEUE_FRAMES = [0, 1, 4, 16, 64, 256, 1024, 4096];

/**
 * fw's Prometheus metrics, in a registry of their own (never prom-client's global one, so two
 * frameworks in one process, or the app's own metrics, never collide). Gauges and the runtime's
 * counters are read at scrape time from state fw already keeps; the hot paths only add to a
 * histogram where a duration cannot be read later (a broadcast's fan-out, an HTTP request, an MCP
 * call, an agent run). Every label is bounded: transports, route patterns, status codes, tool and
 * agent names as registered — never a connection, a session or a user.
 *
 * Modules and applications add their own metrics to `registry`.
 */
export class FwMetrics {
  readonly registry = new Registry();
  readonly enabled: boolean;
  private readonly fanout: HotHistogram;
  private readonly http: Histogram<'route' | 'method' | 'status'>;
  private readonly mcpCalls: Histogram<'tool' | 'outcome'>;
  private readonly agentRuns: Histogram<'agent' | 'outcome'>;

  constructor(runtime: Runtime, _events: EventBus, options: { enabled: boolean; processMetrics: boolean }) {
    this.enabled = options.enabled;
    const registers = [this.registry];

    new Gauge({
      name: 'fw_connections',
      help: 'Live resources (connections, and dropped ones kept for resume) by transport',
      labelNames: ['transport'],
      registers,
      collect() {
        for (const t of TRANSPORTS) this.set({ transport: t }, runtime.resources.countOf(t));
      },
    });
    new Gauge({
      name: 'fw_broadcasters',
      help: 'Live broadcasters',
      registers,
      collect() {
        this.set(runtime.broadcasters.size);
      },
    });
    // Each runtime counter is advanced at scrape time by what it grew since the last scrape.
    for (const key of Object.keys(runtime.counters) as (keyof RuntimeCounters)[]) {
      const [name, help] = COUNTER_NAMES[key] ?? [`fw_runtime_${snake(key)}_total`, `Runtime counter ${key}`];
      let last = 0;
      new Counter({
        name,
        help,
        registers,
        collect() {
          const value = runtime.counters[key];
          if (value > last) this.inc(value - last);
          last = value;
        },
      });
    }
    const created = Date.now();
    new Gauge({
      name: 'fw_uptime_seconds',
      help: 'Seconds since this framework was created',
      registers,
      collect() {
        this.set((Date.now() - created) / 1000);
      },
    });

    this.fanout = new HotHistogram({
      name: 'fw_broadcast_fanout_seconds',
      help: 'Time one broadcast takes to reach every member (encode once, queue for each)',
      buckets: SECONDS_SHORT,
      registers,
    });
    new Histogram({
      name: 'fw_socket_queue_bytes',
      help: 'Bytes buffered per connection, sampled at scrape time over every live connection',
      buckets: QUEUE_BYTES,
      registers,
      collect() {
        this.reset();
        for (const r of runtime.resources.values()) if (r.connection) this.observe(r.connection.bufferedBytes());
      },
    });
    new Histogram({
      name: 'fw_socket_queue_frames',
      help: 'Frames written but not yet handed to the connection, per resource, sampled at scrape time',
      buckets: QUEUE_FRAMES,
      registers,
      collect() {
        this.reset();
        for (const r of runtime.resources.values()) this.observe(Math.max(0, r.ring.next - 1 - r.flushed));
      },
    });
    this.http = new Histogram({
      name: 'fw_http_request_duration_seconds',
      help: 'fw-owned HTTP requests by route pattern, method and status (held SSE/long-poll requests count their whole life)',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.mcpCalls = new Histogram({
      name: 'fw_mcp_tool_call_duration_seconds',
      help: 'MCP tools/call duration by tool and outcome',
      labelNames: ['tool', 'outcome'],
      buckets: SECONDS_CALL,
      registers,
    });
    this.agentRuns = new Histogram({
      name: 'fw_agent_run_duration_seconds',
      help: 'Agent runs (one user message to the whole answer) by agent and outcome',
      labelNames: ['agent', 'outcome'],
      buckets: SECONDS_CALL,
      registers,
    });

    // Modules count their own rare events with `durations` / `tally` (the runtime names none of
    // them). MessageBroadcast and ResourceConnected are never listened to here: a listener would
    // make every broadcast and connect build an event object.
    if (this.enabled) {
      const fanout = this.fanout;
      runtime.fanoutObserver = (seconds) => fanout.record(seconds);
    }
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Adds a gauge read at scrape time (modules use this rather than depend on prom-client). Returns
   * a remover. `read` must be cheap and synchronous.
   */
  gauge(name: string, help: string, read: () => number): () => void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
    return () => this.registry.removeSingleMetric(name);
  }

  /**
   * Adds a labelled histogram of durations in seconds (call-sized buckets) and returns the function
   * that records one: for a module's own events (`fw_agent_dispatch_duration_seconds`).
   */
  durations<L extends string>(name: string, help: string, labelNames: readonly L[]): (labels: Record<L, string>, seconds: number) => void {
    const histogram = new Histogram({ name, help, labelNames: [...labelNames], buckets: SECONDS_CALL, registers: [this.registry] });
    return (labels, seconds) => histogram.observe(labels, seconds);
  }

  /** Adds a labelled counter and returns the function that counts (`by` defaults to 1). */
  tally<L extends string>(name: string, help: string, labelNames: readonly L[]): (labels: Record<L, string>, by?: number) => void {
    const counter = new Counter({ name, help, labelNames: [...labelNames], registers: [this.registry] });
    return (labels, by = 1) => counter.inc(labels, by);
  }

  /** Adds a counter that follows a monotonic number `read` at scrape time (it never goes down). Returns a remover. */
  counter(name: string, help: string, read: () => number): () => void {
    let last = 0;
    new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        const value = read();
        if (value > last) this.inc(value - last);
        last = Math.max(last, value);
      },
    });
    return () => this.registry.removeSingleMetric(name);
  }

  /**
   * Adds a labelled gauge whose samples `read` gives at scrape time (`fw_tasks{state}`): label
   * sets that disappear from one scrape to the next are dropped. Returns a remover.
   */
  labelledGauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: () => Iterable<[Record<L, string>, number]>,
  ): () => void {
    new Gauge({
      name,
      help,
      labelNames: [...labelNames],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [labels, value] of read()) this.set(labels, value);
      },
    });
    return () => this.registry.removeSingleMetric(name);
  }

  /** Adds a labelled counter following monotonic numbers `read` gives per label set at scrape time. Returns a remover. */
  labelledCounter<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: () => Iterable<[Record<L, string>, number]>,
  ): () => void {
    const last = new Map<string, number>();
    new Counter({
      name,
      help,
      labelNames: [...labelNames],
      registers: [this.registry],
      collect() {
        for (const [labels, value] of read()) {
          const key = JSON.stringify(labels);
          const before = last.get(key) ?? 0;
          // inc by 0 on the first scrape too, so every label set shows up (at 0) from the start
          this.inc(labels, Math.max(0, value - before));
          last.set(key, Math.max(before, value));
        }
      },
    });
    return () => this.registry.removeSingleMetric(name);
  }

  /** Records one fw-owned HTTP request (`route` is the registered pattern, never the raw path). */
  observeHttp(route: string, method: string, status: number, seconds: number): void {
    if (this.enabled) this.http.observe({ route, method: HTTP_METHODS.has(method) ? method : 'OTHER', status: String(status) }, seconds);
  }

  /** Records one MCP `tools/call` of a registered tool. */
  observeMcpToolCall(tool: string, outcome: CallOutcome, seconds: number): void {
    if (this.enabled) this.mcpCalls.observe({ tool, outcome }, seconds);
  }

  /** Records one agent run of a registered agent. */
  observeAgentRun(agent: string, outcome: CallOutcome, seconds: number): void {
    if (this.enabled) this.agentRuns.observe({ agent, outcome }, seconds);
  }

  /** The exposition text (Prometheus text format 0.0.4). */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/[^a-z0-9_]/g, '_');
}
