import type { FwError } from '../errors.js';
import type { EventBus } from '../events.js';
import type { Framework } from '../framework.js';
import type { RuntimeView } from '../model.js';
import type { AdaptedBroadcaster, BroadcastAdapter } from './adapter.js';
import type { ReplayStore } from './replay-store.js';

/**
 * What the real-time runtime offers a scaling module (cluster mode): its read/control view, its
 * broadcasters as an adapter sees them, the epoch its sequences live in, and one method to plug
 * a broadcast adapter and a durable replay store in. The runtime itself stays internal.
 */
export interface ScalingHost {
  /** The node's read/control view: stats, resources, broadcasters, unicast, disconnect. */
  readonly view: RuntimeView;
  readonly events: EventBus;
  broadcaster(id: string): AdaptedBroadcaster | undefined;
  broadcasters(): Iterable<AdaptedBroadcaster>;
  /** The epoch naming this node's broadcast sequences (random per start on a single node). */
  readonly epoch: string;
  /** Takes the cluster's epoch, so its shared sequences mean the same on every node. */
  adoptEpoch(epoch: string): void;
  /**
   * Hands every full broadcast on a non-internal broadcaster to `adapter`, and reads `since`
   * replays from `replayStore` when given. Returns the function that puts the single-node
   * behaviour back.
   */
  install(parts: { adapter: BroadcastAdapter; replayStore?: ReplayStore }): () => void;
  /**
   * While `refusal` is set, new connections and resumes of handlers whose resources join a
   * broadcaster are answered with it (a 503 with `Retry-After`, say), so clients go to another
   * node; undefined takes them again. Handlers that join none (`broadcaster: null`: the admin
   * event stream, agent chats) are never refused: they do not depend on the cluster's broadcasts.
   */
  refuse(refusal: FwError | undefined): void;
  /**
   * Ends every resource that is a member of a non-internal broadcaster the way a shutdown does (a
   * drop, not a close: WebSocket close 1012, a `reconnect` frame on the HTTP transports; no
   * resume), so its client reconnects, through its balancer or its list of URLs, to another
   * node and catches up there with `since`. A slice of resources per event-loop turn; resolves
   * with how many were ended.
   */
  dropMembers(reason: string): Promise<number>;
}

/** Resources ended per event-loop turn by dropMembers (as the heartbeat sweep: no long stall). */
const DROP_SLICE = 250;

/** Former epochs of this process remembered (see Runtime.formerEpochs). */
const MAX_FORMER_EPOCHS = 16;

/** The scaling seam of `fw`'s real-time runtime. */
export function scalingOf(fw: Framework): ScalingHost {
  const rt = fw.runtime;
  return {
    view: rt,
    events: fw.events,
    broadcaster: (id) => rt.broadcasters.lookup(id),
    broadcasters: () => rt.broadcasters.values(),
    get epoch() {
      return rt.epoch;
    },
    adoptEpoch(epoch) {
      if (epoch === rt.epoch) return;
      rt.formerEpochs.add(rt.epoch);
      // A handful at most (one per Redis that came back empty); the oldest are the least likely asked.
      if (rt.formerEpochs.size > MAX_FORMER_EPOCHS) rt.formerEpochs.delete(rt.formerEpochs.values().next().value!);
      rt.formerEpochs.delete(epoch);
      rt.epoch = epoch;
    },
    install({ adapter, replayStore }) {
      rt.adapter = adapter;
      if (replayStore) rt.replayStore = replayStore;
      return () => {
        if (rt.adapter === adapter) rt.adapter = undefined;
        if (replayStore && rt.replayStore === replayStore) rt.replayStore = undefined;
      };
    },
    refuse(refusal) {
      rt.refusal = refusal;
    },
    async dropMembers(reason) {
      const members = [...rt.resources.values()].filter((r) => {
        for (const id of r.broadcasters) if (rt.broadcasters.lookup(id)?.internal === false) return true;
        return false;
      });
      let dropped = 0;
      for (let i = 0; i < members.length; i++) {
        if (i > 0 && i % DROP_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
        const r = members[i]!;
        if (r.closed) continue;
        r.shutdown(reason);
        dropped++;
      }
      return dropped;
    },
  };
}
