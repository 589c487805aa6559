import type { BroadcastAdapter, FwBroadcaster, Runtime } from '@fw/runtime';
import type { Redis } from 'ioredis';
import { decodeEnvelope, encodeBody } from './envelope.js';
import type { RedisLink } from './link.js';
import { Sequencer } from './sequencer.js';
import { ShadowCache } from './shadow-cache.js';

/**
 * Assigns the next cluster sequence of a broadcaster and publishes in one atomic step, so every
 * node receives a broadcaster's messages in sequence order. `floor` is the publishing node's last
 * known sequence: after a Redis restart (counters gone) numbering continues above it.
 */
const PUBLISH_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
local floor = tonumber(ARGV[1])
if n <= floor then
  n = floor + 1
  redis.call('SET', KEYS[1], n)
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', KEYS[2], n .. ' ' .. ARGV[2])
return n`;

/** Raises a counter to at least a value (after a Redis restart, before publishing again). */
const RAISE_SCRIPT = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return n`;

/** Sequence counters outlive their last message by a day. */
const SEQ_TTL_MS = 86_400_000;

interface ScriptedRedis extends Redis {
  fwPublish(seqKey: string, channel: string, floor: number, body: string, ttl: number): Promise<number>;
  fwRaise(seqKey: string, value: number, ttl: number): Promise<number>;
}

export interface BroadcastCounters {
  /** Broadcasts published to the cluster. */
  published: number;
  /** Broadcasts from other nodes delivered here. */
  received: number;
  /** Local broadcasts that could not be published (Redis down): only this node's members got them. */
  unpublished: number;
  /** Broadcasts from other nodes that never arrived here (sequence gaps) or arrived too late. */
  lost: number;
}

export interface ClusterBroadcastOptions {
  nodeId: string;
  prefix: string;
  gapTimeout: number;
  /** Shadow replay: messages kept per broadcaster without local members, and how many broadcasters. */
  shadowSize: number;
  shadowBroadcasters: number;
  /** Reports a loss (counted already), so no loss is silent. */
  onLoss(kind: 'unpublished' | 'lost', broadcaster: string, count: number): void;
}

/**
 * The runtime's BroadcastAdapter on Redis: one channel per cluster carries every broadcast; each
 * node delivers a message to its local members with the cluster-wide sequence, encoded once per
 * node. A node ignores its own echo (it delivers its own broadcasts from the publish reply).
 */
export class ClusterBroadcast implements BroadcastAdapter {
  readonly counters: BroadcastCounters = { published: 0, received: 0, unpublished: 0, lost: 0 };
  readonly channel: string;
  private readonly sequencer: Sequencer;
  private readonly shadow: ShadowCache;
  private readonly redis: ScriptedRedis;
  private readonly offs: (() => void)[] = [];

  constructor(private readonly runtime: Runtime, private readonly link: RedisLink, private readonly options: ClusterBroadcastOptions) {
    this.channel = `${options.prefix}:bc`;
    this.redis = link.cmd as ScriptedRedis;
    this.redis.defineCommand('fwPublish', { numberOfKeys: 2, lua: PUBLISH_SCRIPT });
    this.redis.defineCommand('fwRaise', { numberOfKeys: 1, lua: RAISE_SCRIPT });
    this.sequencer = new Sequencer({
      expected: (id) => this.live(id)?.cache.next,
      deliver: (id, payload, bid) => {
        this.live(id)?.deliverSequenced(payload, bid);
      },
      lost: (id, count) => {
        this.counters.lost += count;
        options.onLoss('lost', id, count);
      },
    }, options.gapTimeout);
    const onMessage = (channel: string, message: string): void => {
      if (channel === this.channel) this.receive(message);
    };
    link.sub.on('message', onMessage);
    this.offs.push(() => link.sub.off('message', onMessage));
    this.shadow = new ShadowCache(options.shadowSize, options.shadowBroadcasters);
    this.offs.push(runtime.events.on('BroadcasterDestroyed', (e) => this.sequencer.forget(e.id)));
    // Synchronous: the new broadcaster is seeded before its first member's `since` is replayed.
    this.offs.push(runtime.events.on('BroadcasterCreated', (e) => {
      const b = this.live(e.id);
      if (b) for (const m of this.shadow.take(e.id)) b.remember(m.payload, m.bid);
    }));
  }

  /** Subscribes (ioredis re-subscribes by itself after a reconnect). */
  async start(): Promise<void> {
    await this.link.sub.subscribe(this.channel);
  }

  /** Broadcasters with messages held back waiting for a gap to fill. */
  get pending(): number {
    return this.sequencer.pending;
  }

  publish(broadcaster: FwBroadcaster, payload: string): boolean {
    if (!this.link.up) {
      // Local delivery goes on while Redis is away; the other nodes miss it, which is counted.
      this.unpublished(broadcaster.id);
      this.sequencer.local(broadcaster.id, payload);
      return true;
    }
    this.send(broadcaster.id, payload, broadcaster.cache.next - 1).then(
      (bid) => this.sequencer.accept(broadcaster.id, bid, payload),
      () => {
        this.unpublished(broadcaster.id);
        this.sequencer.local(broadcaster.id, payload);
      },
    );
    return true;
  }

  /**
   * Publishes to a broadcaster that may have no members on this node (the cluster-wide admin
   * broadcast). Resolves with the assigned sequence.
   */
  async publishTo(broadcasterId: string, payload: string): Promise<number> {
    const local = this.live(broadcasterId);
    const bid = await this.send(broadcasterId, payload, local ? local.cache.next - 1 : 0);
    this.accept(broadcasterId, bid, payload);
    return bid;
  }

  /** Redis is gone: whatever is held back waiting for a gap will not be completed. */
  linkDown(): void {
    this.sequencer.flushAll();
  }

  /**
   * Redis is back (possibly restarted, with its counters gone): raise every local broadcaster's
   * counter to what this node has seen, so new sequences are never below delivered ones.
   */
  async linkUp(): Promise<void> {
    const ids: string[] = [];
    const raises: Promise<unknown>[] = [];
    for (const b of this.runtime.broadcasters.values()) {
      if (b.internal || b.destroyed) continue;
      ids.push(b.id);
      if (b.cache.next > 1) raises.push(this.redis.fwRaise(this.seqKey(b.id), b.cache.next - 1, SEQ_TTL_MS));
    }
    await Promise.allSettled(raises);
    if (ids.length === 0) return;
    // What was published while this node was deaf: counted lost once a gap timeout has passed,
    // even if no later message comes to reveal the gap.
    let counters: (string | null)[];
    try {
      counters = await this.redis.mget(ids.map((id) => this.seqKey(id)));
    } catch {
      return;
    }
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => {
      this.settleTimer = undefined;
      ids.forEach((id, i) => {
        const upTo = Number(counters[i] ?? 0);
        if (upTo > 0 && this.live(id)) this.sequencer.settle(id, upTo);
      });
    }, this.options.gapTimeout);
  }

  private settleTimer: ReturnType<typeof setTimeout> | undefined;

  close(): void {
    clearTimeout(this.settleTimer);
    for (const off of this.offs.splice(0)) off();
    this.sequencer.close();
    this.shadow.clear();
  }

  private async send(broadcasterId: string, payload: string, floor: number): Promise<number> {
    const bid = Number(await this.redis.fwPublish(this.seqKey(broadcasterId), this.channel, floor,
      encodeBody(this.options.nodeId, broadcasterId, payload), SEQ_TTL_MS));
    this.counters.published++;
    return bid;
  }

  private receive(message: string): void {
    const e = decodeEnvelope(message);
    if (!e || e.node === this.options.nodeId) return; // own echo: delivered from the publish reply
    this.counters.received++;
    this.accept(e.broadcaster, e.bid, e.payload);
  }

  private accept(id: string, bid: number, payload: string): void {
    if (this.live(id)) this.sequencer.accept(id, bid, payload);
    else this.shadow.add(id, bid, payload);
  }

  /** Broadcasters whose recent messages are shadowed (diagnostics). */
  get shadowed(): number {
    return this.shadow.size;
  }

  private unpublished(id: string): void {
    this.counters.unpublished++;
    this.options.onLoss('unpublished', id, 1);
  }

  private seqKey(id: string): string {
    return `${this.options.prefix}:seq:${id}`;
  }

  private live(id: string): FwBroadcaster | undefined {
    const b = this.runtime.broadcasters.lookup(id);
    return b && !b.destroyed && !b.internal ? b : undefined;
  }
}
