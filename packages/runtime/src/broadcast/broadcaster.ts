import type { Broadcaster, Resource } from '../model.js';
import { FwResource } from '../resource/resource.js';
import type { Runtime } from '../runtime.js';
import { FrameRing } from './frame-ring.js';
import { Outgoing } from './outgoing.js';
import { catchUp } from './catch-up.js';
import { Cohort } from './cohort.js';
import type { GapReason, ReplayRead, ReplayStore } from './replay-store.js';
import { errorSummary } from '../logging/logger.js';

/**
 * A pub/sub topic. A broadcast is encoded once (`Outgoing`) and handed to each member, which only
 * appends it to its resume ring; the actual socket writes happen once per tick per connection.
 * Full broadcasts get the next broadcaster sequence (`bid`) and enter the bounded replay cache
 * that fresh connections read with `since`.
 */
export class FwBroadcaster implements Broadcaster {
  readonly createdAt = Date.now();
  readonly members = new Set<FwResource>();
  readonly cache: FrameRing<Outgoing>;
  /** The members that get broadcasts from a native topic (Bun), once there are topics. See Cohort. */
  private cohort: Cohort | undefined;
  messages = 0;
  /** Messages lost on the way to members, each one said to the client with a gap: slow-consumer drops, cluster broadcasts this node never received. */
  lost = 0;
  /** Messages brought back: replayed to reconnecting clients (`since`), or recovered from the replay store after a cluster link outage. */
  recovered = 0;
  destroyed = false;

  constructor(
    readonly id: string,
    private readonly runtime: Runtime,
    readonly internal: boolean,
    replayCacheSize: number,
    /** Created implicitly for a handler path: destroyed when empty (`fw.broadcaster.destroy-empty`). */
    readonly implicit: boolean,
  ) {
    this.cache = new FrameRing(replayCacheSize);
  }

  get resources(): ReadonlySet<Resource> {
    return this.members;
  }

  get size(): number {
    return this.members.size;
  }

  broadcast(message: string | object, only?: Iterable<Resource>): number {
    if (this.destroyed) return 0;
    const observe = this.runtime.fanoutObserver;
    const started = observe === undefined ? 0 : performance.now();
    let n = 0;
    let out: Outgoing;
    if (only === undefined) {
      const adapter = this.runtime.adapter;
      // In a cluster the adapter sequences the broadcast and hands it back via deliverSequenced.
      if (adapter !== undefined && !this.internal) {
        const payload = typeof message === 'string' ? message : JSON.stringify(message);
        if (adapter.publish(this, payload)) return this.members.size;
        return this.deliverSequenced(payload, this.cache.next);
      }
      out = Outgoing.from(message, this.id, this.cache.next);
      this.cache.push(out);
      n = this.fanOut(out);
    } else {
      // A subset broadcast is not replayed to others, so it carries no broadcaster sequence.
      out = Outgoing.from(message, this.id);
      for (const r of only) if (r instanceof FwResource && r.deliver(out)) n++;
    }
    this.messages++;
    const rt = this.runtime;
    rt.counters.broadcasts++;
    if (observe !== undefined) observe((performance.now() - started) / 1000);
    if (!this.internal && rt.events.wants('MessageBroadcast')) {
      // A subset broadcast has no broadcaster sequence: its event carries id 0.
      rt.events.emit('MessageBroadcast', { broadcasterId: this.id, id: out.bid ?? 0, resourceCount: n });
    }
    return n;
  }

  /**
   * Delivers a full broadcast whose sequence was assigned by the cluster adapter. Sequences only
   * grow: an older or repeated `bid` is ignored, a jump leaves a hole in the replay cache (the
   * adapter counts those messages as lost). Returns how many resources it reached.
   */
  deliverSequenced(payload: string, bid: number): number {
    if (this.destroyed || bid < this.cache.next) return 0;
    const observe = this.runtime.fanoutObserver;
    const started = observe === undefined ? 0 : performance.now();
    this.cache.skipTo(bid);
    const out = new Outgoing(payload, this.id, bid);
    this.cache.push(out);
    const n = this.fanOut(out);
    this.messages++;
    const rt = this.runtime;
    rt.counters.broadcasts++;
    if (observe !== undefined) observe((performance.now() - started) / 1000);
    if (!this.internal && rt.events.wants('MessageBroadcast')) {
      rt.events.emit('MessageBroadcast', { broadcasterId: this.id, id: bid, resourceCount: n });
    }
    return n;
  }

  /**
   * Hands a full broadcast to every member; returns how many took it. With native topics (Bun,
   * single node), the members in this broadcaster's cohort get it from one publish per topic,
   * with nothing done per member; the others are written to one by one, and those that can join
   * the cohort do (see Cohort).
   */
  private fanOut(out: Outgoing): number {
    let n = 0;
    const rt = this.runtime;
    const topics = rt.topics;
    if (topics === undefined || rt.adapter !== undefined || rt.replayStore !== undefined) {
      for (const r of this.members) if (r.deliver(out)) n++;
      return n;
    }
    const cohort = (this.cohort ??= new Cohort(this.id, rt, this.members));
    cohort.keep(out);
    n = cohort.members.size;
    rt.counters.messagesOut += n;
    for (const r of cohort.direct) if (r.deliverByTopic(out, cohort)) n++;
    if (cohort.fw > 0 || cohort.raw > 0) topics.publish(this.id, out, cohort.fw > 0, cohort.raw > 0);
    // Nobody to take them: the log lets the broadcasts go (it keeps numbering).
    else cohort.log.release();
    return n;
  }

  /**
   * Puts a cluster broadcast this node did not deliver (it had no such broadcaster then) into the
   * replay cache, so a client failing over to this node replays it with `since`. Same ordering
   * rule as deliverSequenced; nobody is delivered to and nothing is counted.
   */
  remember(payload: string, bid: number): void {
    if (this.destroyed || bid < this.cache.next) return;
    this.cache.skipTo(bid);
    this.cache.push(new Outgoing(payload, this.id, bid));
  }

  broadcastTo(message: string | object, resource: Resource): boolean {
    if (this.destroyed || !(resource instanceof FwResource)) return false;
    return resource.deliver(Outgoing.from(message, this.id));
  }

  add(resource: Resource): void {
    if (this.destroyed || !(resource instanceof FwResource) || resource.closed) return;
    this.members.add(resource);
    resource.joined(this.id);
    this.cohort?.added(resource);
  }

  remove(resource: Resource): void {
    if (!(resource instanceof FwResource) || !this.members.delete(resource)) return;
    resource.left(this.id);
    this.cohort?.removed(resource);
    if (this.members.size === 0 && this.implicit && this.runtime.settings.destroyEmpty) this.destroy('empty');
  }

  /**
   * Destroys the topic. Resources whose owning broadcaster this was (they joined it on connect)
   * are closed with the reason, since their messages would otherwise go nowhere; members that
   * joined it in addition to their own just leave it.
   */
  destroy(reason = 'destroyed'): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.cohort?.close();
    const members = [...this.members];
    this.members.clear();
    for (const r of members) r.left(this.id);
    this.runtime.broadcasters.forget(this);
    this.runtime.events.emit('BroadcasterDestroyed', { id: this.id });
    for (const r of members) if (r.home === this.id) r.close(`broadcaster ${this.id} ${reason}`);
  }

  /**
   * Messages `from`…`to` of this broadcaster will never reach this node's members (a cluster
   * broadcast that never arrived): counted, and every member is told with a gap frame at its
   * current place in the stream.
   */
  lose(from: number, to: number, reason: GapReason): void {
    const lost = to - from + 1;
    if (lost <= 0) return;
    this.lost += lost;
    // A member catching up from the replay store accounts for these itself (see liveGap).
    for (const r of this.members) r.liveGap({ b: this.id, from, to, lost, reason });
  }

  /**
   * Brings a fresh resource up to date from its `since` cursor (`lastBid`, taken in this epoch
   * unless `foreign`): replays what is held after it, and says with a gap frame what is not. With
   * a durable replay store the older part is read from it while this broadcaster's live messages
   * to the resource wait, merged with this replay cache (a stream evicted, truncated or emptied by
   * a Redis restart loses nothing this node still holds; see catchUp), so the replay and the live
   * stream join without a hole or a repeat.
   */
  recover(resource: FwResource, lastBid: number, foreign: boolean): void {
    if (foreign) {
      // The cursor counts in a numbering that is gone (the server restarted without a durable
      // store): what came after it is unknown. This numbering is replayed from its start.
      resource.gap({ b: this.id, reason: 'server-restarted' });
      if (this.cache.first > 1)
        resource.gap({ b: this.id, from: 1, to: this.cache.first - 1, lost: this.cache.first - 1, reason: 'replay-window-exceeded' });
      this.replay(resource, 0);
      return;
    }
    const store = this.runtime.replayStore;
    if (store !== undefined && !this.internal) return this.recoverFromStore(resource, lastBid, store);
    if (lastBid >= this.cache.next) {
      // A cursor ahead of this broadcaster: it was recreated and its old numbering forgotten
      // (beyond fw.broadcaster.sequence-memory). Number on above the cursor so the client never
      // takes new messages for old ones; what this incarnation sent before is lost to it.
      if (this.runtime.adapter === undefined) {
        if (this.cache.size > 0) resource.gap({ b: this.id, lost: this.cache.size, reason: 'grace-expired' });
        this.cache.startAt(lastBid + 1);
      } else if (!this.internal) {
        // A cluster node that has not reached the cursor (the room is new here) and has no
        // replay store: what came after the cursor is unknown here, and is said so.
        resource.gap({ b: this.id, from: lastBid + 1, reason: 'replay-window-exceeded' });
      }
      return;
    }
    if (lastBid + 1 < this.cache.first) {
      const lost = this.cache.first - lastBid - 1;
      resource.gap({ b: this.id, from: lastBid + 1, to: this.cache.first - 1, lost, reason: 'grace-expired' });
    }
    this.replay(resource, lastBid);
  }

  private recoverFromStore(resource: FwResource, lastBid: number, store: ReplayStore): void {
    resource.holdBroadcaster(this.id);
    resource.recoveryPending(1);
    const finish = (read: ReplayRead | undefined): void => {
      // The hold ends before the replay is delivered (the replay must not be held itself); the
      // held live messages follow it.
      const held = resource.endHold(this.id);
      let last = lastBid;
      if (!resource.closed) last = catchUp(this, resource, lastBid, read, () => this.countRecovered());
      resource.deliverHeld(this.id, held, last);
      // Past what this node has delivered (read from the store, or said lost): the live copies of
      // those sequences, still on their way here, must not reach this resource a second time.
      if (last >= this.cache.next) resource.skipRepeats(this.id, last);
      resource.recoveryPending(-1);
    };
    store.read(this.id, lastBid).then(finish, (err: unknown) => {
      // The store is unreachable: what this process holds is all there is (its gaps said as usual).
      this.runtime.log.warn({ broadcaster: this.id, error: errorSummary(err) }, 'replay store read failed');
      finish(undefined);
    });
  }

  /**
   * Replays cached broadcasts after `lastBid` to one resource (a fresh connection's `since`); a
   * hole (a cluster sequence this node never received) becomes a gap. Returns the last sequence
   * replayed (or `lastBid`).
   */
  replay(resource: FwResource, lastBid: number): number {
    let hole = 0;
    let last = lastBid;
    for (let bid = Math.max(lastBid + 1, this.cache.first); bid < this.cache.next; bid++) {
      const out = this.cache.get(bid);
      if (out === undefined) {
        hole++;
        continue;
      }
      if (hole > 0) resource.gap({ b: this.id, from: bid - hole, to: bid - 1, lost: hole, reason: 'cluster-link-lost' });
      hole = 0;
      if (resource.deliver(out)) this.countRecovered();
      last = bid;
    }
    return last;
  }

  /** One broadcast delivered again to a client that missed it: counted here and runtime-wide (a metric). */
  private countRecovered(): void {
    this.recovered++;
    this.runtime.counters.recovered++;
  }
}
