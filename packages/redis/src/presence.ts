import type { NodeRecord } from '@fw/runtime/adapter';
import type { RedisLink } from './link.js';

/** What each node announces about itself with every heartbeat: a `NodeRecord` (the cluster contract's). */
export interface PresenceOptions {
  prefix: string;
  nodeId: string;
  interval: number;
  timeout: number;
  /** Builds this node's record (called for every heartbeat). */
  record(): NodeRecord;
  onJoin(id: string): void;
  onLeave(id: string): void;
}

/**
 * Presence: each node writes its record under `<prefix>:node:<id>` with a time-to-live of
 * `fw.cluster.node-timeout` and keeps its id in the set `<prefix>:nodes`. A node that stops
 * refreshing disappears when its key expires; every node compares the live set on each heartbeat
 * and reports joins and leaves. No clock is compared across machines: Redis expires the keys.
 */
export class Presence {
  private timer: ReturnType<typeof setInterval> | undefined;
  private known = new Set<string>();
  private ticking = false;
  /** Until then a known node missing from the set is not reported gone (see `reconnected`). */
  private graceUntil = 0;

  constructor(
    private readonly link: RedisLink,
    private readonly options: PresenceOptions,
  ) {}

  private get setKey(): string {
    return `${this.options.prefix}:nodes`;
  }

  private nodeKey(id: string): string {
    return `${this.options.prefix}:node:${id}`;
  }

  start(): void {
    void this.tick();
    this.timer = setInterval(() => void this.tick(), this.options.interval);
    this.timer.unref?.();
  }

  /** Refreshes this node's record, then diffs the live set. Never throws (Redis may be down). */
  async tick(): Promise<void> {
    if (this.ticking || !this.link.up) return;
    this.ticking = true;
    try {
      await this.announce();
      const live = await this.nodes();
      const ids = new Set(live.map((n) => n.id));
      const grace = Date.now() < this.graceUntil;
      for (const id of ids) if (!this.known.has(id) && id !== this.options.nodeId) this.options.onJoin(id);
      for (const id of this.known) {
        if (ids.has(id) || id === this.options.nodeId) continue;
        if (grace)
          ids.add(id); // still known: its next announcement is no join
        else this.options.onLeave(id);
      }
      this.known = ids;
    } catch {
      // Redis went away mid-tick: the link reports it; the next tick tries again.
    } finally {
      this.ticking = false;
    }
  }

  /**
   * The link to Redis came back. Redis may have restarted and lost every key, so the other nodes
   * are missing from the set until their next heartbeat: without a grace this node would report
   * each of them gone and, a heartbeat later, back again. For `timeout` ms a missing node stays
   * known; one still missing after that is reported gone then (at most `timeout` later than a
   * node that expired without a restart).
   */
  reconnected(): void {
    this.graceUntil = Date.now() + this.options.timeout;
  }

  async announce(): Promise<void> {
    const record = JSON.stringify(this.options.record());
    await this.link.cmd
      .multi()
      .set(this.nodeKey(this.options.nodeId), record, 'PX', this.options.timeout)
      .sadd(this.setKey, this.options.nodeId)
      .exec();
  }

  /** The live nodes, this one included; ids whose record expired are pruned from the set. */
  async nodes(): Promise<NodeRecord[]> {
    const ids = await this.link.cmd.smembers(this.setKey);
    if (ids.length === 0) return [];
    const values = await this.link.cmd.mget(ids.map((id) => this.nodeKey(id)));
    const out: NodeRecord[] = [];
    const gone: string[] = [];
    values.forEach((v, i) => {
      if (v === null) return void gone.push(ids[i]!);
      try {
        out.push(JSON.parse(v) as NodeRecord);
      } catch {
        gone.push(ids[i]!);
      }
    });
    if (gone.length > 0) await this.link.cmd.srem(this.setKey, ...gone);
    return out.sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Leaves the cluster at once (graceful stop) instead of waiting for the timeout. */
  async leave(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    if (!this.link.up) return;
    try {
      await this.link.cmd.multi().del(this.nodeKey(this.options.nodeId)).srem(this.setKey, this.options.nodeId).exec();
    } catch {
      // the key expires by itself
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
