import type { Broadcaster, Resource } from '../model.js';
import { FwResource } from '../resource/resource.js';
import type { Runtime } from '../runtime.js';
import { FrameRing } from './frame-ring.js';
import { Outgoing } from './outgoing.js';

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
  messages = 0;
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
      for (const r of this.members) if (r.deliver(out)) n++;
    } else {
      // A subset broadcast is not replayed to others, so it carries no broadcaster sequence.
      out = Outgoing.from(message, this.id);
      for (const r of only) if (r instanceof FwResource && r.deliver(out)) n++;
    }
    this.messages++;
    const rt = this.runtime;
    rt.counters.broadcasts++;
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
    this.cache.skipTo(bid);
    const out = new Outgoing(payload, this.id, bid);
    this.cache.push(out);
    let n = 0;
    for (const r of this.members) if (r.deliver(out)) n++;
    this.messages++;
    const rt = this.runtime;
    rt.counters.broadcasts++;
    if (!this.internal && rt.events.wants('MessageBroadcast')) {
      rt.events.emit('MessageBroadcast', { broadcasterId: this.id, id: bid, resourceCount: n });
    }
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
    resource.broadcasters.add(this.id);
  }

  remove(resource: Resource): void {
    if (!(resource instanceof FwResource) || !this.members.delete(resource)) return;
    resource.broadcasters.delete(this.id);
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
    const members = [...this.members];
    this.members.clear();
    for (const r of members) r.broadcasters.delete(this.id);
    this.runtime.broadcasters.forget(this);
    this.runtime.events.emit('BroadcasterDestroyed', { id: this.id });
    for (const r of members) if (r.home === this.id) r.close(`broadcaster ${this.id} ${reason}`);
  }

  /** Replays cached broadcasts after `lastBid` to one resource (a fresh connection's `since`). */
  replay(resource: FwResource, lastBid: number): number {
    let n = 0;
    for (let bid = Math.max(lastBid + 1, this.cache.first); bid < this.cache.next; bid++) {
      const out = this.cache.get(bid);
      // A hole (a cluster sequence this node never received) is skipped.
      if (out !== undefined && resource.deliver(out)) n++;
    }
    return n;
  }
}
