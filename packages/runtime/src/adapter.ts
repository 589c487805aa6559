/**
 * `@fw/runtime/adapter`: the seams a scaling module plugs into (what the Redis cluster package
 * implements): the broadcast adapter and the durable replay store, installed with
 * `scalingOf(fw).install(...)`, and the cluster contract the admin plane and the agent layer
 * program against. An application never needs this entry point.
 */
export type { AdaptedBroadcaster, BroadcastAdapter } from './broadcast/adapter.js';
export { scalingOf, type ScalingHost } from './broadcast/scaling.js';
export type { Gap, GapReason, ReplayEntry, ReplayRead, ReplayStore } from './broadcast/replay-store.js';
export type * from './cluster.js';
