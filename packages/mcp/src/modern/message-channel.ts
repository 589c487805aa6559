import { type Principal, ShareExceededError } from '@fw/runtime';
import type { McpEndpoint } from '../endpoint.js';
import { RpcCode } from '../errors.js';
import {
  errorResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '../protocol/jsonrpc.js';
import { shareRefusal } from '../share-refusal.js';
import { isRefusal, readEnvelope } from './envelope.js';
import { parseFilter, tagged } from './subscriptions.js';

/**
 * 2026-07-28 on a message transport (WebSocket), where — as on stdio — one channel carries many
 * requests: a request is cancelled by `notifications/cancelled` naming it, a
 * `subscriptions/listen` lives until cancelled or until the channel closes, and its messages are
 * told apart by `io.modelcontextprotocol/subscriptionId` (basic/patterns/subscriptions).
 */
export class ModernMessageChannel {
  private readonly inflight = new Map<RequestId, AbortController>();
  private readonly listens = new Map<RequestId, () => void>();

  constructor(
    private readonly endpoint: McpEndpoint,
    private readonly principal: Principal | undefined,
    private readonly clientAddress: string | undefined,
    private readonly send: (message: JsonRpcMessage) => boolean,
  ) {}

  async request(msg: JsonRpcRequest): Promise<JsonRpcResponse | undefined> {
    const envelope = readEnvelope(msg, undefined);
    if (isRefusal(envelope)) return envelope.reply;
    if (msg.method === 'subscriptions/listen') return this.listen(msg);
    if (this.inflight.has(msg.id) || this.listens.has(msg.id))
      return errorResponse(msg.id, RpcCode.InvalidRequest, `request id ${String(msg.id)} is already in flight`);
    const cancel = new AbortController();
    this.inflight.set(msg.id, cancel);
    try {
      const answer = await this.endpoint.modern.serve(
        msg,
        envelope,
        this.principal,
        'websocket',
        (m) => this.send(m),
        cancel.signal,
        this.clientAddress,
      );
      return cancel.signal.aborted ? undefined : answer?.response;
    } finally {
      this.inflight.delete(msg.id);
    }
  }

  /** `notifications/cancelled` ends a request or a subscription; other notifications need nothing. */
  notification(n: JsonRpcNotification): void {
    if (n.method !== 'notifications/cancelled') return;
    const id = n.params?.requestId;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    this.inflight.get(id)?.abort();
    this.listens.get(id)?.();
  }

  /**
   * A subscription on this channel: the caller's (its principal, or an anonymous key bound to this
   * one stream), counted against its share of `fw.mcp.max-subscriptions`; only this channel can
   * cancel it, by the listen request's id.
   */
  private listen(msg: JsonRpcRequest): JsonRpcResponse | undefined {
    const hub = this.endpoint.subscriptions;
    const limits = this.endpoint.limits;
    if (this.listens.has(msg.id)) return errorResponse(msg.id, RpcCode.InvalidRequest, `subscription ${String(msg.id)} is already open`);
    const filter = parseFilter(msg.params?.notifications, limits.maxResourceSubscriptions, limits.maxUriLength);
    if (typeof filter === 'string') return errorResponse(msg.id, RpcCode.InvalidParams, filter);
    let off: () => void;
    try {
      off = hub.add(
        { principal: this.principal, address: this.clientAddress },
        {
          id: msg.id,
          filter,
          send: (n) => this.send(n),
          end: () => {
            this.listens.delete(msg.id);
            this.send({
              jsonrpc: '2.0',
              id: msg.id,
              result: this.endpoint.modern.decorate('subscriptions/listen', {}, { 'io.modelcontextprotocol/subscriptionId': msg.id }),
            });
          },
        },
      );
    } catch (err) {
      if (err instanceof ShareExceededError) return shareRefusal(msg.id, err);
      throw err;
    }
    this.send(tagged('notifications/subscriptions/acknowledged', msg.id, { notifications: filter }));
    this.listens.set(msg.id, () => {
      off();
      this.listens.delete(msg.id);
    });
    return undefined;
  }

  close(): void {
    for (const c of this.inflight.values()) c.abort();
    this.inflight.clear();
    for (const off of [...this.listens.values()]) off();
  }
}
