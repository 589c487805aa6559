import type { GapReason } from './replay-store.js';

/**
 * What a broadcast adapter may do with a broadcaster: read where its sequence is, deliver a
 * broadcast the cluster sequenced, remember one for the replay cache, count recovered messages.
 */
export interface AdaptedBroadcaster {
  readonly id: string;
  /** Internal broadcasters (the admin plane's own streams) never leave the node. */
  readonly internal: boolean;
  readonly destroyed: boolean;
  /** The replay cache: `next` is the sequence the next local broadcast would get; `get(bid)` is set when it holds `bid`. */
  readonly cache: { readonly next: number; get(bid: number): unknown };
  /** Messages recovered from the replay store after a cluster link outage (shown by the admin plane). */
  recovered: number;
  /** Delivers a broadcast the cluster numbered `bid` to this node's members. */
  deliverSequenced(payload: string, bid: number): number;
  /** Keeps a broadcast numbered `bid` in the replay cache without delivering it. */
  remember(payload: string, bid: number): void;
  /** Tells every member that the broadcasts `from`..`to` are lost (a gap frame). */
  lose(from: number, to: number, reason: GapReason): void;
}

/**
 * The cluster seam (Socket.IO's "adapter" idea), installed through `scalingOf(fw).install(...)`
 * (`@fw/runtime/adapter`) by cluster mode.
 *
 * A full broadcast on a non-internal broadcaster is handed to `publish` instead of being delivered
 * at once. The adapter gives it a cluster-wide broadcaster sequence (`bid`) and then delivers it on
 * every node, this one included, through `FwBroadcaster.deliverSequenced(payload, bid)`. Every node
 * therefore numbers a broadcaster's messages the same way, so a client that fails over to another
 * node resumes from its replay cache with the same `since` cursor. Returning false (the adapter is
 * offline) makes the broadcaster deliver locally at once with its own next sequence.
 */
export interface BroadcastAdapter {
  publish(broadcaster: AdaptedBroadcaster, payload: string): boolean;
}
