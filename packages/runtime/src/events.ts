/**
 * The typed framework event bus. The runtime declares its own five events (admin spec §6); every
 * other package adds its events to the same map with a module augmentation, so the kernel names no
 * module and a listener of any event is still type-checked:
 *
 * ```ts
 * declare module '@fw/runtime' {
 *   interface FwEventMap { AgentSessionStarted: { agentName: string; sessionId: string } }
 * }
 * ```
 *
 * Emission is synchronous and costs a single map lookup when nobody listens: call
 * `bus.wants(type)` before building a payload on a hot path.
 */
import { fallbackLogger } from './logging/default-logger.js';

import type { TransportName } from '@fw/protocol';
export type { TransportName };

export interface FwEventMap {
  ResourceConnected: { uuid: string; transport: TransportName; broadcaster: string | null; path: string };
  ResourceDisconnected: { uuid: string; reason: string };
  BroadcasterCreated: { id: string };
  BroadcasterDestroyed: { id: string };
  /** `id` is the message id within the broadcaster; `resourceCount` how many resources it reached. */
  MessageBroadcast: { broadcasterId: string; id: number; resourceCount: number };
}

export type FwEventType = keyof FwEventMap;

/** An event as delivered: `type` and an ISO-8601 `timestamp`, then the type's own fields. */
export type FwEvent<K extends FwEventType = FwEventType> = K extends FwEventType ? { type: K; timestamp: string } & FwEventMap[K] : never;

export type Listener<K extends FwEventType> = (event: FwEvent<K>) => void;
export type AnyListener = (event: FwEvent) => void;

export class EventBus {
  private readonly byType = new Map<FwEventType, Set<Listener<never>>>();
  private readonly any = new Set<AnyListener>();
  /** Listener errors are reported here instead of breaking the emitter. */
  onListenerError: (err: unknown, event: FwEvent) => void = (err, event) => {
    fallbackLogger().error({ err, event: event.type }, 'event listener failed');
  };

  on<K extends FwEventType>(type: K, listener: Listener<K>): () => void {
    let set = this.byType.get(type);
    if (!set) this.byType.set(type, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => {
      set.delete(listener as Listener<never>);
      if (set.size === 0 && this.byType.get(type) === set) this.byType.delete(type);
    };
  }

  onAny(listener: AnyListener): () => void {
    this.any.add(listener);
    return () => this.any.delete(listener);
  }

  /** True when an emit of this type would reach anyone. */
  wants(type: FwEventType): boolean {
    return this.any.size > 0 || this.byType.has(type);
  }

  emit<K extends FwEventType>(type: K, data: FwEventMap[K]): void {
    const typed = this.byType.get(type);
    if (!typed && this.any.size === 0) return;
    const event = { type, timestamp: this.now(), ...data } as unknown as FwEvent<K>;
    if (typed) {
      for (const l of typed) {
        try {
          (l as Listener<K>)(event);
        } catch (err) {
          this.onListenerError(err, event);
        }
      }
    }
    for (const l of this.any) {
      try {
        l(event);
      } catch (err) {
        this.onListenerError(err, event);
      }
    }
  }

  /** Number of listeners, for leak assertions in tests. */
  /**
   * The event timestamp: formatted once per millisecond (toISOString is most of an emit's cost
   * when a broadcast fan-out emits an event per message with the admin plane listening).
   */
  private now(): string {
    const ms = Date.now();
    if (ms !== this.lastMs) {
      this.lastMs = ms;
      this.lastIso = new Date(ms).toISOString();
    }
    return this.lastIso;
  }

  private lastMs = 0;
  private lastIso = '';

  listenerCount(): number {
    let n = this.any.size;
    for (const s of this.byType.values()) n += s.size;
    return n;
  }
}
