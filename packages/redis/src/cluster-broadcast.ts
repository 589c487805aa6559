import { randomBytes } from 'node:crypto';
import type { AdaptedBroadcaster, BroadcastAdapter, ScalingHost } from '@fw/runtime/adapter';
import { decodeEnvelope, encodeBody } from './envelope.js';
import type { RedisClient, RedisLink } from './link.js';
import { sequenceKey, StreamReplayStore, streamKey } from './replay-stream.js';
import { Sequencer } from './sequencer.js';
import { ShadowCache } from './shadow-cache.js';

/**
 * Assigns the next cluster sequence of a broadcaster, stores the broadcast in the broadcaster's
 * replay stream and publishes it, in one atomic step, so every node receives a broadcaster's
 * messages in sequence order and the stream holds exactly what was published. `floor` is the
 * publishing node's last known sequence: after a Redis restart (counters gone) numbering continues
 * above it. With `retry`, a broadcast whose earlier attempt may have run (the reply was lost) is
 * first looked up by its origin id `o` among the stream's latest entries, and not published twice.
 *
 * KEYS: sequence counter, channel, stream. ARGV: floor, body, ttl, retention (0: no stream),
 * origin id, retry ('1' or '0').
 */
const PUBLISH_SCRIPT = `
local retention = tonumber(ARGV[4])
if retention > 0 and ARGV[6] == '1' then
  local recent = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 200)
  for _, e in ipairs(recent) do
    local f = e[2]
    for i = 1, #f, 2 do
      if f[i] == 'o' and f[i + 1] == ARGV[5] then return tonumber(string.match(e[1], '^(%d+)')) end
    end
  end
end
local n = redis.call('INCR', KEYS[1])
local floor = tonumber(ARGV[1])
if n <= floor then
  n = floor + 1
  redis.call('SET', KEYS[1], n)
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if retention > 0 then
  redis.pcall('XADD', KEYS[3], 'MAXLEN', '~', retention, n .. '-1', 'e', ARGV[2], 'o', ARGV[5])
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
end
redis.call('PUBLISH', KEYS[2], n .. ' ' .. ARGV[2])
return n`;

/** Raises a counter to at least a value (after a Redis restart, before publishing again). */
const RAISE_SCRIPT = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return n`;

/** Sequence counters and replay streams outlive their last message by a day. */
const SEQ_TTL_MS = 86_400_000;
/** How long the outbox waits before trying again after a failed publish while Redis looks up. */
const OUTBOX_RETRY_MS = 200;

type ScriptedRedis = RedisClient & {
  fwPublish(
    seqKey: string,
    channel: string,
    streamKey: string,
    floor: number,
    body: string,
    ttl: number,
    retention: number,
    origin: string,
    retry: string,
  ): Promise<number>;
  fwRaise(seqKey: string, value: number, ttl: number): Promise<number>;
};

export interface BroadcastCounters {
  /** Broadcasts published to the cluster. */
  published: number;
  /** Broadcasts from other nodes delivered here. */
  received: number;
  /** Local broadcasts that could not be published (Redis down): only this node's members got them. */
  unpublished: number;
  /** Broadcasts from other nodes that never arrived here (sequence gaps) or arrived too late. */
  lost: number;
  /** Broadcasts this node missed while Redis was away and read back from the replay streams. */
  recovered: number;
  /** Local broadcasts waiting in the outbox for Redis to come back. */
  queued: number;
}

export interface ClusterBroadcastOptions {
  nodeId: string;
  prefix: string;
  gapTimeout: number;
  /** Shadow replay: messages kept per broadcaster without local members, and how many broadcasters. */
  shadowSize: number;
  shadowBroadcasters: number;
  /** Entries kept per broadcaster in its replay stream (`fw.cluster.replay-retention`); 0: no streams. */
  retention: number;
  /** Local broadcasts held while Redis is away, published in order once it is back (`fw.cluster.outbox`; streams only). */
  outboxLimit: number;
  /** How long a replay-stream read waits for Redis to come back before failing (a catch-up then serves only memory); default 0. */
  readRetryWithin?: number;
  /** Reports a loss (counted already), so no loss is silent. */
  onLoss(kind: 'unpublished' | 'lost', broadcaster: string, count: number): void;
  /** Reports broadcasts recovered from the replay streams after an outage (counted already). */
  onRecovered(broadcaster: string, count: number): void;
}

interface Queued {
  broadcaster: string;
  payload: string;
  /** This node's publish order: the outbox is published in it. */
  order: number;
  /** Set once an attempt may have reached Redis: the retry looks it up before publishing again. */
  tried: boolean;
}

/**
 * The runtime's BroadcastAdapter on Redis: one channel per cluster carries every broadcast; each
 * node delivers a message to its local members with the cluster-wide sequence, encoded once per
 * node. A node ignores its own echo (it delivers its own broadcasts from the publish reply).
 */
export class ClusterBroadcast implements BroadcastAdapter {
  readonly counters: BroadcastCounters = { published: 0, received: 0, unpublished: 0, lost: 0, recovered: 0, queued: 0 };
  readonly channel: string;
  private readonly sequencer: Sequencer;
  private readonly shadow: ShadowCache;
  private readonly redis: ScriptedRedis;
  private readonly offs: (() => void)[] = [];
  private outbox: Queued[] = [];
  /** Names this process in origin ids (a restarted node numbers its publishes from 1 again). */
  private readonly instance = `${this.options.nodeId}:${randomBytes(4).toString('hex')}`;
  private order = 0;
  private flushing = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Redis is away or a recovery is under way: gaps are not given up on yet. */
  private recovering = false;

  constructor(
    private readonly runtime: ScalingHost,
    private readonly link: RedisLink,
    private readonly options: ClusterBroadcastOptions,
  ) {
    this.channel = `${options.prefix}:bc`;
    this.redis = link.cmd as ScriptedRedis;
    this.redis.defineCommand('fwPublish', { numberOfKeys: 3, lua: PUBLISH_SCRIPT });
    this.redis.defineCommand('fwRaise', { numberOfKeys: 1, lua: RAISE_SCRIPT });
    this.sequencer = new Sequencer(
      {
        expected: (id) => this.live(id)?.cache.next,
        deliver: (id, payload, bid) => {
          this.live(id)?.deliverSequenced(payload, bid);
        },
        lost: (id, count, why, from, to) => {
          this.counters.lost += count;
          options.onLoss('lost', id, count);
          // Every member is told (a gap frame); a stale one was part of a gap said already.
          if (why === 'gap' && from !== undefined && to !== undefined) this.live(id)?.lose(from, to, 'cluster-link-lost');
        },
        delivered: (id, bid) => this.live(id)?.cache.get(bid) !== undefined,
        publishing: (id) => (this.publishingOn.get(id) ?? 0) > 0,
        // With streams a timed-out gap is read back from the stream before anything is counted lost.
        ...(options.retention > 0 ? { fill: (id: string) => this.recover(id) } : {}),
      },
      options.gapTimeout,
    );
    const onMessage = (channel: string, message: string): void => {
      if (channel === this.channel) this.receive(message);
    };
    link.sub.on('message', onMessage);
    this.offs.push(() => link.sub.off('message', onMessage));
    this.shadow = new ShadowCache(options.shadowSize, options.shadowBroadcasters);
    this.offs.push(runtime.events.on('BroadcasterDestroyed', (e) => this.sequencer.forget(e.id)));
    // Synchronous: the new broadcaster is seeded before its first member's `since` is replayed.
    this.offs.push(
      runtime.events.on('BroadcasterCreated', (e) => {
        const b = this.live(e.id);
        if (b) for (const m of this.shadow.take(e.id)) b.remember(m.payload, m.bid);
      }),
    );
  }

  /** Subscribes; called again on every reconnect (the link turns ioredis's own re-subscribe off). */
  async start(): Promise<void> {
    await this.link.sub.subscribe(this.channel);
  }

  /** Broadcasters with messages held back waiting for a gap to fill. */
  get pending(): number {
    return this.sequencer.pending;
  }

  publish(broadcaster: AdaptedBroadcaster, payload: string): boolean {
    const streams = this.options.retention > 0 && this.options.outboxLimit > 0;
    if (streams && (!this.link.up || this.outbox.length > 0)) {
      // Held, in order, until Redis is back: every node then gets it under a cluster sequence.
      if (this.enqueue(broadcaster.id, payload, false)) return true;
    }
    if (!this.link.up) {
      // Local delivery goes on while Redis is away; the other nodes miss it, which is counted.
      // After the publishes still in flight (they fail first), so local order is kept.
      this.unpublished(broadcaster.id);
      this.deliverLocally(++this.order, broadcaster.id, payload);
      return true;
    }
    const order = ++this.order;
    this.inflight++;
    const id = broadcaster.id;
    const settled = (): void => {
      this.inflight--;
    };
    this.send(id, payload, broadcaster.cache.next - 1, order, false).then(
      (bid) => {
        settled();
        this.sequencer.accept(id, bid, payload, true);
        this.drainLocal();
      },
      () => {
        settled();
        // The outcome is unknown (the reply may be what was lost): retried with a look-up first.
        if (streams && this.enqueue(broadcaster.id, payload, true, order)) return this.drainLocal();
        this.unpublished(broadcaster.id);
        this.deliverLocally(order, broadcaster.id, payload);
      },
    );
    return true;
  }

  private inflight = 0;
  /** Own publishes awaiting their sequence, per broadcaster (see Sequencer.accept). */
  private readonly publishingOn = new Map<string, number>();
  private waitingLocal: { order: number; broadcaster: string; payload: string }[] = [];

  /** Local-only delivery in publish order: waits while earlier publishes are still in flight. */
  private deliverLocally(order: number, broadcaster: string, payload: string): void {
    let i = this.waitingLocal.length;
    while (i > 0 && this.waitingLocal[i - 1]!.order > order) i--;
    this.waitingLocal.splice(i, 0, { order, broadcaster, payload });
    this.drainLocal();
  }

  private drainLocal(): void {
    if (this.inflight > 0) return;
    const list = this.waitingLocal;
    this.waitingLocal = [];
    for (const w of list) this.sequencer.local(w.broadcaster, w.payload);
  }

  private enqueue(broadcaster: string, payload: string, tried: boolean, order = ++this.order): boolean {
    if (this.outbox.length >= this.options.outboxLimit) return false;
    const q: Queued = { broadcaster, payload, order, tried };
    // Publishes that failed in flight come back after later ones were queued: keep publish order.
    let i = this.outbox.length;
    while (i > 0 && this.outbox[i - 1]!.order > order) i--;
    this.outbox.splice(i, 0, q);
    this.counters.queued = this.outbox.length;
    if (this.link.up) void this.flushOutbox();
    return true;
  }

  /** Publishes the outbox in order while Redis answers; stops at the first failure and tries again later. */
  private async flushOutbox(): Promise<void> {
    if (this.flushing || this.recovering) return;
    this.flushing = true;
    try {
      while (this.outbox.length > 0 && this.link.up) {
        const q = this.outbox[0]!;
        const floor = this.live(q.broadcaster)?.cache.next ?? 1;
        let bid: number;
        try {
          bid = await this.send(q.broadcaster, q.payload, floor - 1, q.order, q.tried);
        } catch {
          q.tried = true;
          clearTimeout(this.retryTimer);
          this.retryTimer = setTimeout(() => void this.flushOutbox(), OUTBOX_RETRY_MS);
          return;
        }
        this.outbox.shift();
        this.counters.queued = this.outbox.length;
        this.accept(q.broadcaster, bid, q.payload, true);
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * Publishes to a broadcaster that may have no members on this node (the cluster-wide admin
   * broadcast). Resolves with the assigned sequence.
   */
  async publishTo(broadcasterId: string, payload: string): Promise<number> {
    const local = this.live(broadcasterId);
    const bid = await this.send(broadcasterId, payload, local ? local.cache.next - 1 : 0, ++this.order, false);
    this.accept(broadcasterId, bid, payload, true);
    return bid;
  }

  /**
   * Redis is gone. Without replay streams, whatever is held back waiting for a gap will not be
   * completed; with them, the gaps wait for the recovery once Redis is back.
   */
  linkDown(): void {
    this.outages++;
    if (this.options.retention > 0) {
      this.recovering = true;
      this.sequencer.pause();
    } else {
      this.sequencer.flushAll();
    }
  }

  /**
   * Redis is back (possibly restarted, with its counters gone): raise every local broadcaster's
   * counter to what this node has seen, so new sequences are never below delivered ones; read
   * back from the replay streams, in order, every broadcast this node missed; then publish the
   * outbox. What neither brings back is counted lost (and said to the members with a gap).
   */
  async linkUp(): Promise<void> {
    // Redis may go away again while this runs (a slow recovery on a loaded machine): then this
    // recovery is stale, and must not resume giving up on gaps; the next 'up' starts over.
    const outage = this.outages;
    const ids: string[] = [];
    const raises: Promise<unknown>[] = [];
    for (const b of this.runtime.broadcasters()) {
      if (b.internal || b.destroyed) continue;
      ids.push(b.id);
      if (b.cache.next > 1) raises.push(this.redis.fwRaise(this.seqKey(b.id), b.cache.next - 1, SEQ_TTL_MS));
    }
    await Promise.allSettled(raises);
    let counters: (string | null)[] = [];
    try {
      if (ids.length > 0) counters = await this.redis.mget(ids.map((id) => this.seqKey(id)));
    } catch {
      return; // down again: the next 'up' starts over
    }
    if (outage !== this.outages) return;
    if (this.options.retention > 0) {
      try {
        await Promise.all(ids.map((id) => this.recover(id)));
      } catch {
        return;
      }
      if (outage !== this.outages) return;
      this.recovering = false;
      this.sequencer.resume();
      void this.flushOutbox();
    }
    if (ids.length === 0) return;
    // What was published while this node was deaf and is not in a stream: counted lost once a
    // gap timeout has passed, even if no later message comes to reveal the gap.
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => {
      this.settleTimer = undefined;
      if (outage !== this.outages) return; // away again since: the next 'up' reads the counters anew
      ids.forEach((id, i) => {
        const upTo = Number(counters[i] ?? 0);
        if (upTo > 0 && this.live(id)) this.sequencer.settle(id, upTo);
      });
    }, this.options.gapTimeout);
  }

  /** Reads a broadcaster's stream from the next sequence this node waits for, and delivers it in order. */
  private async recover(id: string): Promise<void> {
    const from = this.sequencer.nextOf(id);
    if (from === undefined || !this.store) return;
    const { entries } = await this.store.read(id, from - 1);
    let recovered = 0;
    for (const e of entries) {
      const before = this.sequencer.nextOf(id) ?? 0;
      this.sequencer.accept(id, e.bid, e.payload);
      if (e.bid >= before) recovered++;
    }
    if (recovered > 0) {
      this.counters.recovered += recovered;
      const b = this.live(id);
      if (b) b.recovered += recovered;
      this.options.onRecovered(id, recovered);
    }
  }

  /** The replay streams, when kept (`fw.cluster.replay-retention` > 0). */
  get store(): StreamReplayStore | undefined {
    return (this.streamStore ??=
      this.options.retention > 0
        ? new StreamReplayStore(this.redis, this.options.prefix, this.options.retention, {
            link: this.link,
            within: this.options.readRetryWithin ?? 0,
          })
        : undefined);
  }

  private streamStore: StreamReplayStore | undefined;

  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Times Redis went away: a recovery started before the latest outage is stale. */
  private outages = 0;

  close(): void {
    clearTimeout(this.settleTimer);
    clearTimeout(this.retryTimer);
    for (const off of this.offs.splice(0)) off();
    this.sequencer.close();
    this.shadow.clear();
  }

  /** One publish script call. While it is in flight the broadcaster counts as `publishing` (see Sequencer.accept). */
  private async send(broadcasterId: string, payload: string, floor: number, order: number, retry: boolean): Promise<number> {
    this.publishingOn.set(broadcasterId, (this.publishingOn.get(broadcasterId) ?? 0) + 1);
    try {
      return await this.publishScript(broadcasterId, payload, floor, order, retry);
    } finally {
      const n = (this.publishingOn.get(broadcasterId) ?? 1) - 1;
      if (n > 0) this.publishingOn.set(broadcasterId, n);
      else this.publishingOn.delete(broadcasterId);
    }
  }

  private async publishScript(broadcasterId: string, payload: string, floor: number, order: number, retry: boolean): Promise<number> {
    const bid = Number(
      await this.redis.fwPublish(
        this.seqKey(broadcasterId),
        this.channel,
        streamKey(this.options.prefix, broadcasterId),
        floor,
        encodeBody(this.options.nodeId, broadcasterId, payload),
        SEQ_TTL_MS,
        this.options.retention,
        `${this.instance}:${order}`,
        retry ? '1' : '0',
      ),
    );
    this.counters.published++;
    return bid;
  }

  private receive(message: string): void {
    const e = decodeEnvelope(message);
    if (!e) return;
    if (e.node === this.options.nodeId) {
      // Own echo: delivered from the publish reply, but it tells a new stream the subscription caught up.
      if (this.live(e.broadcaster)) this.sequencer.echo(e.broadcaster);
      return;
    }
    this.counters.received++;
    this.accept(e.broadcaster, e.bid, e.payload);
  }

  /** `own`: the sequence came in the reply of this node's own publish, not over the subscription. */
  private accept(id: string, bid: number, payload: string, own = false): void {
    if (this.live(id)) this.sequencer.accept(id, bid, payload, own);
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
    return sequenceKey(this.options.prefix, id);
  }

  private live(id: string): AdaptedBroadcaster | undefined {
    const b = this.runtime.broadcaster(id);
    return b && !b.destroyed && !b.internal ? b : undefined;
  }
}
