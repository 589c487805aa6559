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

/** The filter fw honors for a request's `notifications`, or what is wrong with it. */
export function parseFilter(raw: unknown, maxUris: number): SubscriptionFilter | string {
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
      return `params.notifications.resourceSubscriptions lists ${uris.length} URIs; at most ${maxUris} per subscription`;
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

const KIND_FILTER: Record<ListKind, 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged'> = {
  tools: 'toolsListChanged',
  prompts: 'promptsListChanged',
  resources: 'resourcesListChanged',
};

/**
 * The open `subscriptions/listen` streams of one endpoint. Every message is tagged with the
 * subscription's id (the listen request's JSON-RPC id) and goes only to streams whose filter
 * asked for it: the server MUST NOT send types the client did not request.
 */
export class SubscriptionHub {
  private readonly subscribers = new Set<Subscriber>();

  get size(): number {
    return this.subscribers.size;
  }

  add(subscriber: Subscriber): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  listChanged(kind: ListKind): void {
    const key = KIND_FILTER[kind];
    for (const s of this.subscribers) if (s.filter[key]) s.send(tagged(`notifications/${kind}/list_changed`, s.id));
  }

  resourceUpdated(uri: string): void {
    for (const s of this.subscribers)
      if (s.filter.resourceSubscriptions?.includes(uri)) s.send(tagged('notifications/resources/updated', s.id, { uri }));
  }

  closeAll(): void {
    for (const s of [...this.subscribers]) s.end();
    this.subscribers.clear();
  }
}

export function tagged(method: string, id: RequestId, params: Record<string, unknown> = {}): JsonRpcNotification {
  return notification(method, { ...params, _meta: { [META.subscriptionId]: id } });
}
