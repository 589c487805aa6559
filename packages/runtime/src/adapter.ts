/**
 * `@fw/runtime/adapter`: the seams a scaling module plugs into (what the Redis cluster package implements). An
 * application never needs this entry point; the packages that run fw on several nodes do.
 */
export type { BroadcastAdapter } from './broadcast/adapter.js';
export type * from './cluster.js';
