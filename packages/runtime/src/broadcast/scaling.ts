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
}

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
  };
}
