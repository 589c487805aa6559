import type { FwBroadcaster } from './broadcaster.js';

/**
 * The cluster seam (Socket.IO's "adapter" idea), installed as `fw.runtime.adapter` by cluster mode.
 *
 * A full broadcast on a non-internal broadcaster is handed to `publish` instead of being delivered
 * at once. The adapter gives it a cluster-wide broadcaster sequence (`bid`) and then delivers it on
 * every node, this one included, through `FwBroadcaster.deliverSequenced(payload, bid)`. Every node
 * therefore numbers a broadcaster's messages the same way, so a client that fails over to another
 * node resumes from its replay cache with the same `since` cursor. Returning false (the adapter is
 * offline) makes the broadcaster deliver locally at once with its own next sequence.
 */
export interface BroadcastAdapter {
  publish(broadcaster: FwBroadcaster, payload: string): boolean;
}
