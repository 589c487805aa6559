import { type Caller, FairShare, type Lease, type Owner, ownerOf, type ShareLimits } from '@fw/runtime';
import type { ListKind } from '../registry.js';
import { notification, type JsonRpcNotification, type RequestId } from '../protocol/jsonrpc.js';
import { META } from './era.js';

/** The notification filter of `subscriptions/listen` (basic/patterns/subscriptions "Notification Filter"). */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/**
 * The filter fw honors for a request's `notifications`, or what is wrong with it: at most
 * `maxUris` URIs (fw.mcp.max-resource-subscriptions), none longer than `maxUriLength`
 * (fw.mcp.max-uri-length).
 */
export function parseFilter(raw: unknown, maxUris: number, maxUriLength: number): SubscriptionFilter | string {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return 'params.notifications is required (an object such as {"toolsListChanged": true})';
  const r = raw as Record<string, unknown>;
  const out: SubscriptionFilter = {};
  for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
    if (r[key] === undefined) continue;
    if (typeof r[key] !== 'boolean') return `params.notifications.${key} must be a boolean`;
    if (r[key]) out[key] = true;
  }
  if (r.resourceSubscriptions !== undefined) {
    const uris = r.resourceSubscriptions;
    if (!Array.isArray(uris) || !uris.every((u) => typeof u === 'string'))
      return 'params.notifications.resourceSubscriptions must be an array of URIs';
    if (uris.length > maxUris)
      return `params.notifications.resourceSubscriptions lists ${uris.length} URIs; at most ${maxUris} per subscription (fw.mcp.max-resource-subscriptions)`;
    const long = (uris as string[]).find((u) => u.length > maxUriLength);
    if (long !== undefined)
      return `params.notifications.resourceSubscriptions holds a URI of ${long.length} characters; at most ${maxUriLength} are accepted (fw.mcp.max-uri-length)`;
    if (uris.length) out.resourceSubscriptions = [...new Set(uris as string[])];
  }
  return out;
}

/** One open `subscriptions/listen` stream. */
export interface Subscriber {
  readonly id: RequestId;
  readonly filter: SubscriptionFilter;
  /** Writes one message; false when the stream is gone. */
  send(message: JsonRpcNotification): boolean;
  /** The server ends the subscription (shutdown): graceful closure, then the stream closes. */
  end(): void;
}

/** One open stream's bookkeeping: who owns it and its share of the endpoint's streams. */
interface Held {
  /** `principal:<id>`, or `anonymous:<key>` bound to this one stream. */
  owner: Owner;
  lease: Lease;
  openedAt: number;
}

export interface SubscriptionInfo {
  subscriptionId: RequestId;
  /** `principal:<id>` or `anonymous`. */
  owner: string;
  filter: SubscriptionFilter;
  openedAt: number;
}

const KIND_FILTER: Record<ListKind, 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged'> = {
  tools: 'toolsListChanged',
  prompts: 'promptsListChanged',
  resources: 'resourcesListChanged',
};

/**
 * The open `subscriptions/listen` streams of one endpoint. Every message is tagged with the
 * subscription's id (the listen request's JSON-RPC id) and goes only to streams whose filter
 * asked for it: the server MUST NOT send types the client did not request. Each stream is owned
 * by the caller that opened it (its principal, or an anonymous key bound to that one stream) and
 * only that stream can end it; each caller holds a fair share of `fw.mcp.max-subscriptions`.
 */
export class SubscriptionHub {
  private readonly subscribers = new Map<Subscriber, Held>();
  private readonly share: FairShare;

  constructor(limits: () => ShareLimits) {
    this.share = new FairShare('fw.mcp.max-subscriptions', limits);
  }

  get size(): number {
    return this.subscribers.size;
  }

  /** Streams held by `caller` (its principal, or its address group when anonymous). */
  heldBy(caller: Caller): number {
    return this.share.inUse(caller);
  }

  /**
   * Opens a subscription for `caller`; throws `ShareExceededError` (429 at the caller's share,
   * 503 when the endpoint holds its maximum). The returned function ends it (idempotent).
   */
  add(caller: Caller, subscriber: Subscriber): () => void {
    const lease = this.share.acquire(caller);
    this.subscribers.set(subscriber, { owner: ownerOf(caller.principal), lease, openedAt: Date.now() });
    return () => this.remove(subscriber);
  }

  private remove(subscriber: Subscriber): void {
    const held = this.subscribers.get(subscriber);
    if (!held) return;
    this.subscribers.delete(subscriber);
    held.lease.release();
  }

  /** What operators see (admin view): every open stream, its owner (no anonymous keys) and filter. */
  list(): SubscriptionInfo[] {
    return [...this.subscribers].map(([s, held]) => ({
      subscriptionId: s.id,
      owner: held.owner.startsWith('anonymous:') ? 'anonymous' : held.owner,
      filter: s.filter,
      openedAt: held.openedAt,
    }));
  }

  listChanged(kind: ListKind): void {
    const key = KIND_FILTER[kind];
    for (const s of this.subscribers.keys()) if (s.filter[key]) s.send(tagged(`notifications/${kind}/list_changed`, s.id));
  }

  resourceUpdated(uri: string): void {
    for (const s of this.subscribers.keys())
      if (s.filter.resourceSubscriptions?.includes(uri)) s.send(tagged('notifications/resources/updated', s.id, { uri }));
  }

  closeAll(): void {
    for (const s of [...this.subscribers.keys()]) {
      s.end();
      this.remove(s);
    }
  }
}

export function tagged(method: string, id: RequestId, params: Record<string, unknown> = {}): JsonRpcNotification {
  return notification(method, { ...params, _meta: { [META.subscriptionId]: id } });
}
