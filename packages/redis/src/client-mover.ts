import { FwError } from '@fw/runtime';
import type { ScalingHost } from '@fw/runtime/adapter';

export interface ClientMoverOptions {
  /** `fw.cluster.move-clients-after`: how long the link may be down before clients are moved; 0: never. */
  after: number;
  /** Seconds a refused client is told to wait (`Retry-After`): about when this node tries Redis again. */
  retryAfterSeconds: number;
  /** Reports a move (already counted): how many connections were dropped. */
  onMoved(dropped: number, detail: string): void;
}

/**
 * Moves the clients of a node cut from Redis to the nodes that still reach it. Such a node still
 * delivers its own broadcasts, but the other nodes' reach its subscribers only once the link is
 * back, which can be minutes: late, and nothing on the wire says so. Once the link has been down
 * for `after`, the node drops every connection that subscribes to a broadcaster the way a
 * shutdown does (WebSocket 1012, a `reconnect` frame on the HTTP transports; the resource ends),
 * and refuses new ones with 503 `cluster_unavailable` until the link is back. A client reconnects
 * through its balancer (which sees `/fw/ready` answer 503 and picks another node) or to the next
 * URL it knows, and catches up there with `since` from the replay streams: exactly once, in order,
 * or told with a gap. Handlers that join no broadcaster (the admin event stream, agent chats)
 * keep their connections.
 */
export class ClientMover {
  /** Connections dropped so far because the link was down. */
  moved = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private refusing = false;

  constructor(
    private readonly host: ScalingHost,
    private readonly options: ClientMoverOptions,
  ) {}

  /** The link went down: clients are moved once it has stayed down for `after`. */
  linkDown(): void {
    if (this.options.after <= 0 || this.timer !== undefined || this.refusing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.move();
    }, this.options.after);
    this.timer.unref();
  }

  /** The link is back: connections are taken again (and a pending move is off). */
  linkUp(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.refusing) return;
    this.refusing = false;
    this.host.refuse(undefined);
  }

  close(): void {
    this.linkUp();
  }

  private async move(): Promise<void> {
    this.refusing = true;
    this.host.refuse(
      new FwError('cluster_unavailable', 'this node has lost its connection to the cluster; connect to another node', 503, undefined, {
        'retry-after': String(this.options.retryAfterSeconds),
      }),
    );
    const dropped = await this.host.dropMembers('cluster link lost');
    this.moved += dropped;
    this.options.onMoved(
      dropped,
      `Redis unreachable for ${this.options.after} ms: dropped ${dropped} connection(s) so their clients reconnect to a node that reaches it; refusing new ones until the link is back`,
    );
  }
}
