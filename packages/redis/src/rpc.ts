import { randomUUID } from 'node:crypto';
import { FwError, LimitExceededError } from '@fw/runtime';
import { NodeUnreachableError } from './errors.js';
import type { RedisLink } from './link.js';

import type { ClusterMethod } from '@fw/runtime/adapter';

/** A method other nodes may call on this one (the contract's `ClusterMethod`). Throwing an FwError sends its code back. */
export type RpcHandler = ClusterMethod;

interface Request {
  t: 'req';
  id: string;
  from: string;
  method: string;
  args: Record<string, unknown>;
}

interface Reply {
  t: 'res';
  id: string;
  ok: boolean;
  result?: unknown;
  error?: { code: string; message: string; status: number };
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
  node: string;
}

export interface RpcOptions {
  prefix: string;
  nodeId: string;
  timeout: number;
  maxPending: number;
}

/**
 * Request/response between nodes over Redis pub/sub: each node listens on `<prefix>:rpc:<id>` for
 * requests and for the replies to its own requests. A request to a node nobody listens for fails
 * at once (PUBLISH reached no subscriber); one that gets no reply within the timeout fails with
 * `node_unreachable`. So a caller always learns a real outcome, never fire-and-forget.
 */
export class Rpc {
  private readonly handlers = new Map<string, RpcHandler>();
  private readonly pending = new Map<string, Pending>();
  private readonly channel: string;
  private readonly onMessage = (channel: string, message: string): void => {
    if (channel === this.channel) void this.receive(message);
  };

  constructor(
    private readonly link: RedisLink,
    private readonly options: RpcOptions,
  ) {
    this.channel = this.channelOf(options.nodeId);
    link.sub.on('message', this.onMessage);
  }

  async start(): Promise<void> {
    await this.link.sub.subscribe(this.channel);
  }

  /** Registers a method; returns a remover. */
  handle(method: string, handler: RpcHandler): () => void {
    this.handlers.set(method, handler);
    return () => {
      if (this.handlers.get(method) === handler) this.handlers.delete(method);
    };
  }

  has(method: string): boolean {
    return this.handlers.has(method);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Calls `method` on `node`. Rejects with NodeUnreachableError, or the remote FwError. */
  async call<T>(node: string, method: string, args: Record<string, unknown> = {}, timeout = this.options.timeout): Promise<T> {
    if (node === this.options.nodeId) return (await this.local(method, args)) as T;
    if (!this.link.up) throw new NodeUnreachableError(node, 'Redis is unreachable');
    if (this.pending.size >= this.options.maxPending) {
      throw new LimitExceededError(
        'fw.cluster.max-pending-requests',
        this.options.maxPending,
        `too many cross-node requests waiting (${this.options.maxPending})`,
      );
    }
    const id = randomUUID();
    const request: Request = { t: 'req', id, from: this.options.nodeId, method, args };
    const answer = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new NodeUnreachableError(node, `no answer within ${timeout} ms`));
      }, timeout);
      this.pending.set(id, { resolve, reject, timer, node });
    });
    try {
      const receivers = await this.link.cmd.publish(this.channelOf(node), JSON.stringify(request));
      if (receivers === 0 && !this.link.publishCountIsLocal) this.settle(id, new NodeUnreachableError(node, 'it is not listening'));
    } catch (err) {
      this.settle(id, new NodeUnreachableError(node, (err as Error).message));
    }
    return (await answer) as T;
  }

  /** Fails every waiting request (Redis went away, or closing). */
  failAll(reason: string): void {
    for (const [id, p] of this.pending) this.settle(id, new NodeUnreachableError(p.node, reason));
  }

  close(): void {
    this.failAll('the cluster module is closing');
    this.link.sub.off('message', this.onMessage);
  }

  private channelOf(node: string): string {
    return `${this.options.prefix}:rpc:${node}`;
  }

  private settle(id: string, err: Error): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.reject(err);
  }

  private async local(method: string, args: Record<string, unknown>): Promise<unknown> {
    const handler = this.handlers.get(method);
    if (!handler) throw new FwError('unknown_method', `no cluster method '${method}'`, 404, { method });
    return handler(args);
  }

  private async receive(message: string): Promise<void> {
    let frame: Request | Reply;
    try {
      frame = JSON.parse(message) as Request | Reply;
    } catch {
      return;
    }
    if (frame.t === 'res') {
      const p = this.pending.get(frame.id);
      if (!p) return; // late answer after a timeout
      this.pending.delete(frame.id);
      clearTimeout(p.timer);
      if (frame.ok) p.resolve(frame.result);
      else
        p.reject(
          new FwError(frame.error?.code ?? 'remote_error', frame.error?.message ?? 'remote error', frame.error?.status ?? 500, {
            node: p.node,
          }),
        );
      return;
    }
    if (frame.t !== 'req' || typeof frame.id !== 'string' || typeof frame.from !== 'string') return;
    let reply: Reply;
    try {
      reply = { t: 'res', id: frame.id, ok: true, result: await this.local(frame.method, frame.args ?? {}) };
    } catch (err) {
      const e = err instanceof FwError ? err : new FwError('internal_error', (err as Error)?.message ?? String(err), 500);
      reply = { t: 'res', id: frame.id, ok: false, error: { code: e.code, message: e.message, status: e.status } };
    }
    try {
      await this.link.cmd.publish(this.channelOf(frame.from), JSON.stringify(reply));
    } catch {
      // Redis went away: the caller times out and names this node missing.
    }
  }
}
