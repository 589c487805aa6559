import type { Broadcaster, CredentialEnd, FwEvent, Interceptor, Resource } from '@fw/runtime';
import type { AdminGate, GateResult } from './gate.js';
import type { RealtimeFramework } from './realtime.js';
import { Ring } from './ring.js';

/** Handler path under the framework path: the stream is at `/fw/admin/events`. */
export const EVENTS_HANDLER_PATH = '/admin/events';

/**
 * The last frame a consumer gets when its credential stops being good: `{type: "SessionEnded",
 * reason: "expired" | "revoked", detail}`. Then the stream ends: a WebSocket closes with 1008 and
 * the reason `credential_expired` / `credential_revoked`, an fw client gets that reason in its close
 * frame, an HTTP stream (SSE, streaming, long-polling) ends after this event.
 */
export interface SessionEndedFrame {
  type: 'SessionEnded';
  reason: CredentialEnd;
  detail: string;
}

/** WebSocket close code of a stream ended for its credential: 1008, policy violation. */
export const CREDENTIAL_CLOSE_CODE = 1008;

export interface EventStreamOptions {
  /** Events kept for GET /api/admin/events/recent. */
  recent: number;
  /** Events waiting for the next flush; past it the oldest are dropped and counted. */
  maxQueue: number;
}

export interface EventStreamStats {
  consumers: number;
  /** Events seen on the bus since start. */
  events: number;
  /** Frames handed to consumers (an event reaching two consumers counts twice). */
  delivered: number;
  /** Events dropped from the admin queue because it overflowed. */
  queueDropped: number;
  /** Frames a consumer did not get because the runtime's slow-consumer policy dropped them. */
  consumerDropped: number;
  queued: number;
}

/**
 * Forwards every framework event to the consumers of `/fw/admin/events`, served by fw's own
 * transport: a runtime handler whose resources join an internal broadcaster (internal, so the
 * stream's own traffic never becomes a MessageBroadcast). Events are queued in a bounded queue and
 * flushed once per event-loop turn, so the emitter (the data plane) only pays an array push; a
 * stalled consumer is the runtime's slow-consumer policy's business and never blocks anyone.
 */
export class EventStream {
  private readonly ring: Ring<FwEvent>;
  private queue: FwEvent[] = [];
  private head = 0;
  private flushHandle: NodeJS.Immediate | undefined;
  private broadcaster: Broadcaster | undefined;
  private unsubscribe: (() => void) | undefined;
  private unmount: (() => void) | undefined;
  private readonly counters = { events: 0, delivered: 0, queueDropped: 0, consumerDropped: 0 };

  constructor(
    private readonly fw: RealtimeFramework,
    private readonly gate: AdminGate,
    private readonly options: EventStreamOptions,
    /** Told about every refused consumer (the audit log records it). */
    private readonly onRefused: (result: Extract<GateResult, { ok: false }>, path: string) => void | Promise<void> = () => {},
  ) {
    if (!Number.isInteger(options.maxQueue) || options.maxQueue < 1)
      throw new RangeError('fw.admin.events.max-queue must be a positive integer');
    this.ring = new Ring(options.recent);
  }

  /** The internal broadcaster's id. */
  get broadcasterId(): string {
    return `${this.fw.path}${EVENTS_HANDLER_PATH}`;
  }

  start(): void {
    this.unsubscribe = this.fw.events.onAny((event) => this.onEvent(event));
    const { broadcasters } = this.fw;
    if (!broadcasters || typeof this.fw.handle !== 'function') return; // runtime without real-time transports
    const broadcaster = broadcasters.create(this.broadcasterId, { internal: true, replayCacheSize: 0 });
    this.broadcaster = broadcaster;
    const auth: Interceptor = {
      name: 'admin-auth',
      connect: async (ctx) => {
        const result = await this.gate.check(ctx.req, ctx.url, true);
        if (!result.ok) {
          await this.onRefused(result, ctx.url.pathname);
          return { status: result.status, code: result.code, detail: result.detail };
        }
        ctx.principal = result.principal;
      },
    };
    // A consumer was authenticated once, when it connected: the stream ends when its credential
    // expires or is revoked (the runtime watches it), instead of feeding a principal that is no
    // longer one; the consumer is told why in a last frame.
    const unhandle = this.fw.handle(
      EVENTS_HANDLER_PATH,
      {
        open: (resource) => {
          broadcaster.add(resource);
        },
        close: (resource) => {
          broadcaster.remove(resource);
        },
        credentialEnded: endForCredential,
      },
      { broadcaster: null, interceptors: [auth], description: 'admin event stream (JSON events, one per frame)' },
    );
    this.unmount = () => {
      if (typeof unhandle === 'function') unhandle();
      broadcaster.destroy('admin plane closed');
    };
  }

  /**
   * Sends a frame of the admin plane's own (a `HistorySample`) to the stream's consumers now. It
   * is not a framework event: not counted, not kept for events/recent, not queued.
   */
  publish(frame: { type: string }): void {
    const b = this.broadcaster;
    if (!b || b.size === 0) return;
    b.broadcast(JSON.stringify(frame));
  }

  recent(limit?: number): FwEvent[] {
    return this.ring.last(limit);
  }

  stats(): EventStreamStats {
    return { consumers: this.broadcaster?.size ?? 0, queued: this.queue.length - this.head, ...this.counters };
  }

  close(): void {
    this.unsubscribe?.();
    this.unmount?.();
    this.broadcaster = undefined;
    if (this.flushHandle) clearImmediate(this.flushHandle);
    this.flushHandle = undefined;
    this.queue = [];
    this.head = 0;
  }

  private onEvent(event: FwEvent): void {
    if (event.type === 'MessageBroadcast' && event.broadcasterId === this.broadcasterId) return;
    this.counters.events++;
    this.ring.push(event);
    if (!this.broadcaster || this.broadcaster.size === 0) return;
    this.queue.push(event);
    if (this.queue.length - this.head > this.options.maxQueue) {
      this.head++;
      this.counters.queueDropped++;
    }
    this.flushHandle ??= setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushHandle = undefined;
    const batch = this.head === 0 ? this.queue : this.queue.slice(this.head);
    this.queue = [];
    this.head = 0;
    const b = this.broadcaster;
    if (!b) return;
    for (const event of batch) {
      const members = b.size;
      if (members === 0) break;
      const reached = b.broadcast(JSON.stringify(event));
      this.counters.delivered += reached;
      this.counters.consumerDropped += members - reached;
    }
  }
}

/** Tells the consumer why, then ends its stream (the frame is flushed before the close). */
function endForCredential(resource: Resource, reason: CredentialEnd): void {
  const frame: SessionEndedFrame = {
    type: 'SessionEnded',
    reason,
    detail: reason === 'expired' ? 'the credential expired: sign in again' : 'the credential was revoked',
  };
  resource.write(JSON.stringify(frame));
  resource.close(`credential_${reason}`, CREDENTIAL_CLOSE_CODE);
}
