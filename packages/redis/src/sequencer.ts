/**
 * Puts one node's view of each broadcaster's cluster sequence in order. Broadcasts reach a node
 * over two Redis connections (its own through the publish reply, the others' through the
 * subscription), so a later `bid` can arrive before an earlier one: it is held back until the
 * gap fills or `gapTimeout` passes, then the missing ones are counted as lost (never silently).
 * A `bid` older than what was already delivered is counted as lost too (e.g. after a Redis
 * restart reset a counter).
 */
export interface SequencerSink {
  /** The next sequence the local broadcaster expects, or undefined when this node has none. */
  expected(broadcaster: string): number | undefined;
  deliver(broadcaster: string, payload: string, bid: number): void;
  /** `from`/`to`: the missing sequences of a gap (a stale message has none: it was counted as a gap already). */
  lost(broadcaster: string, count: number, why: 'gap' | 'stale', from?: number, to?: number): void;
  /** Whether this sequence was delivered here already (a repeat, not a loss). */
  delivered?(broadcaster: string, bid: number): boolean;
  /** Whether a publish of this node's own on the broadcaster is waiting for its sequence. */
  publishing?(broadcaster: string): boolean;
  /**
   * With a durable replay store: reads the broadcaster's sequences from `from` on back from it and
   * accepts them. A gap that times out is only given up on for what the store lacks as well: a
   * gap timeout says a broadcast is late over the subscription, not that the cluster lost it.
   */
  fill?(broadcaster: string, from: number): Promise<void>;
}

interface Stream {
  /** The next sequence to deliver; 0 while the stream does not know yet where it starts (see `waiting`). */
  next: number;
  /**
   * What an unanchored stream waits for: `own`, the reply of this node's publish in flight (another
   * node's message came first); `echo`, the subscription catching up with this node's own publish
   * (its reply came first, and another node's earlier sequence may still be on the way).
   */
  waiting: 'own' | 'echo' | undefined;
  held: Map<number, string>;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** A read of the replay store for this stream's gap is under way (see `SequencerSink.fill`). */
  filling?: boolean;
}

export class Sequencer {
  private readonly streams = new Map<string, Stream>();
  /** While paused (Redis away, a recovery under way) nothing is given up on: gaps may still be filled. */
  private paused = false;

  constructor(
    private readonly sink: SequencerSink,
    private readonly gapTimeout: number,
    private readonly maxHeld = 10_000,
  ) {}

  /** Number of broadcasters with messages held back (for diagnostics and leak tests). */
  get pending(): number {
    let n = 0;
    for (const s of this.streams.values()) if (s.held.size > 0) n++;
    return n;
  }

  /** `own`: the sequence of this node's own publish, from the publish reply. */
  accept(broadcaster: string, bid: number, payload: string, own = false): void {
    const expected = this.sink.expected(broadcaster);
    if (expected === undefined) return this.forget(broadcaster); // no local members to deliver to
    let s = this.streams.get(broadcaster);
    if (!s) {
      // A broadcaster with no local history starts from whatever arrives first over the
      // subscription (it carries every broadcast in sequence order), unless this node's own
      // publishes are involved: their replies come over the other connection, so they race the
      // subscription both ways. Another node's message first while our publish is in flight: our
      // reply may carry the earlier sequence, so wait for it. Our reply first: another node's
      // earlier sequence may still be on its way, so wait until the subscription has caught up
      // (our own echo, or any other message on this broadcaster). A gap timeout bounds both.
      const waiting = expected > 1 ? undefined : own ? 'echo' : this.sink.publishing?.(broadcaster) === true ? 'own' : undefined;
      s = { next: expected > 1 ? expected : waiting ? 0 : bid, waiting, held: new Map(), timer: undefined };
      this.streams.set(broadcaster, s);
    }
    // (A waiting stream with a local broadcaster that has no history yet has nothing to catch up with.)
    if (expected > s.next && (s.next > 0 || expected > 1)) this.catchUp(broadcaster, s, expected);
    if (s.next === 0) {
      s.held.set(bid, payload);
      // Another node's message proves the subscription caught up to it; our reply ends the wait for it.
      if (own ? s.waiting === 'own' : s.waiting === 'echo' || this.sink.publishing?.(broadcaster) !== true) this.anchor(broadcaster, s);
      else if (!this.paused) s.timer ??= setTimeout(() => this.anchor(broadcaster, s), this.gapTimeout);
      return;
    }
    if (bid < s.next) {
      if (this.sink.delivered?.(broadcaster, bid)) return; // a repeat (a recovery read, a retried publish)
      return this.sink.lost(broadcaster, 1, 'stale');
    }
    if (bid > s.next) {
      s.held.set(bid, payload);
      if (s.held.size > this.maxHeld) return this.skipGap(broadcaster, s);
      if (!this.paused) s.timer ??= setTimeout(() => this.expire(broadcaster, s), this.gapTimeout);
      return;
    }
    this.sink.deliver(broadcaster, payload, bid);
    s.next = bid + 1;
    this.drain(broadcaster, s);
  }

  /**
   * This node's own broadcast came back over the subscription: everything published before it has
   * arrived, so a stream waiting to know where it starts can start now.
   */
  echo(broadcaster: string): void {
    const s = this.streams.get(broadcaster);
    if (s?.next === 0 && s.waiting === 'echo') this.anchor(broadcaster, s);
  }

  /**
   * Delivers a broadcast this node could not get sequenced (Redis down): whatever is held back is
   * released first (the gaps counted), then it gets the next local sequence.
   */
  local(broadcaster: string, payload: string): void {
    const s = this.streams.get(broadcaster);
    if (s && s.held.size > 0) this.skipGap(broadcaster, s, true);
    const next = this.sink.expected(broadcaster);
    if (next === undefined) return;
    this.sink.deliver(broadcaster, payload, next);
    if (s) s.next = next + 1;
  }

  /**
   * Everything up to `upTo` was published while this node could not hear it (read from the
   * counter after a reconnect, a gap timeout ago): what has not arrived by now never will. Counts
   * it lost even when no later message comes to reveal the gap.
   */
  settle(broadcaster: string, upTo: number): void {
    const expected = this.sink.expected(broadcaster);
    if (expected === undefined) return;
    let s = this.streams.get(broadcaster);
    if (!s) this.streams.set(broadcaster, (s = { next: expected, waiting: undefined, held: new Map(), timer: undefined }));
    if (expected > s.next) this.catchUp(broadcaster, s, expected);
    if (upTo < s.next) return;
    let missingFrom = 0;
    for (let bid = s.next; bid <= upTo; bid++) {
      const payload = s.held.get(bid);
      if (payload === undefined) {
        if (missingFrom === 0) missingFrom = bid;
        continue;
      }
      if (missingFrom > 0) this.sink.lost(broadcaster, bid - missingFrom, 'gap', missingFrom, bid - 1);
      missingFrom = 0;
      s.held.delete(bid);
      this.sink.deliver(broadcaster, payload, bid);
    }
    if (missingFrom > 0) this.sink.lost(broadcaster, upTo + 1 - missingFrom, 'gap', missingFrom, upTo);
    s.next = upTo + 1;
    this.drain(broadcaster, s);
  }

  /** Stops giving up on gaps (Redis is away: a recovery from the replay store may still fill them). */
  pause(): void {
    this.paused = true;
    for (const s of this.streams.values()) {
      clearTimeout(s.timer);
      s.timer = undefined;
    }
  }

  /** Gives up on gaps again, a gap timeout from now. */
  resume(): void {
    this.paused = false;
    for (const [id, s] of this.streams) {
      if (s.held.size > 0) s.timer ??= setTimeout(() => this.expire(id, s), this.gapTimeout);
    }
  }

  /** The next sequence this node waits for on a broadcaster (undefined: it has none). */
  nextOf(broadcaster: string): number | undefined {
    return this.streams.get(broadcaster)?.next ?? this.sink.expected(broadcaster);
  }

  /** Releases everything held back, counting the gaps (Redis went away: they will not come). */
  flushAll(): void {
    for (const [id, s] of this.streams) if (s.held.size > 0) this.skipGap(id, s, true);
  }

  forget(broadcaster: string): void {
    const s = this.streams.get(broadcaster);
    if (!s) return;
    clearTimeout(s.timer);
    this.streams.delete(broadcaster);
  }

  close(): void {
    for (const s of this.streams.values()) clearTimeout(s.timer);
    this.streams.clear();
  }

  /** A waiting stream starts at the earliest sequence it holds. */
  private anchor(broadcaster: string, s: Stream): void {
    clearTimeout(s.timer);
    s.timer = undefined;
    if (s.held.size === 0 || s.next !== 0) return;
    s.waiting = undefined;
    s.next = Math.min(...s.held.keys());
    this.drain(broadcaster, s);
  }

  /** The local broadcaster moved on by itself (a delivery while Redis was down): follow it. */
  private catchUp(broadcaster: string, s: Stream, next: number): void {
    s.next = next;
    let stale = 0;
    for (const bid of s.held.keys()) {
      if (bid < next) {
        s.held.delete(bid);
        stale++;
      }
    }
    if (stale > 0) this.sink.lost(broadcaster, stale, 'stale');
  }

  private drain(broadcaster: string, s: Stream): void {
    let payload: string | undefined;
    while ((payload = s.held.get(s.next)) !== undefined) {
      s.held.delete(s.next);
      this.sink.deliver(broadcaster, payload, s.next);
      s.next++;
    }
    if (s.held.size === 0) {
      clearTimeout(s.timer);
      s.timer = undefined;
    }
  }

  /**
   * A gap timed out. Without a replay store it is given up on; with one, the missing sequences are
   * read back from it first (a node that lost the subscription for a moment, or a broadcaster
   * created here after a recovery had started, would otherwise count as lost what the stream still
   * holds), and only what the store lacks too is given up on. While paused (Redis away again)
   * nothing is given up on: the next recovery reads the store.
   */
  private expire(broadcaster: string, s: Stream): void {
    clearTimeout(s.timer);
    s.timer = undefined;
    const fill = this.sink.fill;
    if (fill === undefined || s.next === 0) return this.skipGap(broadcaster, s);
    if (s.filling) return;
    s.filling = true;
    const from = s.next;
    const done = (): void => {
      s.filling = false;
      if (this.streams.get(broadcaster) !== s || s.held.size === 0 || this.paused) return;
      // The read moved the stream on: what is still missing gets its own gap timeout and read.
      if (s.next !== from) s.timer ??= setTimeout(() => this.expire(broadcaster, s), this.gapTimeout);
      else this.skipGap(broadcaster, s);
    };
    fill(broadcaster, from).then(done, done);
  }

  /** Gives up on the missing sequences before the oldest held one (all of them when `all`). */
  private skipGap(broadcaster: string, s: Stream, all = false): void {
    clearTimeout(s.timer);
    s.timer = undefined;
    do {
      if (s.held.size === 0) return;
      const oldest = Math.min(...s.held.keys());
      if (oldest > s.next && s.next > 0) this.sink.lost(broadcaster, oldest - s.next, 'gap', s.next, oldest - 1);
      s.next = oldest;
      this.drain(broadcaster, s);
    } while (all);
    if (s.held.size > 0 && !this.paused) s.timer = setTimeout(() => this.expire(broadcaster, s), this.gapTimeout);
  }
}
