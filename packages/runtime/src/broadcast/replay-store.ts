import type { Gap as ProtocolGap, GapReason } from '@fw/protocol';
/**
 * Where a broadcaster's past broadcasts are read from when a client comes back with a `since`
 * cursor older than what this process still holds (a restarted process, another cluster node, a
 * cursor beyond the in-memory replay cache).
 *
 * The default is in memory: each broadcaster's replay cache (`fw.broadcaster.replay-cache`),
 * read synchronously by `FwBroadcaster.replay`; `Runtime.replayStore` is then undefined. A durable
 * store (cluster mode installs one on Redis Streams) is written by whoever sequences the broadcasts
 * (the cluster adapter, in the same atomic step) and read here, asynchronously.
 */
export interface ReplayEntry {
  bid: number;
  payload: string;
}

export interface ReplayRead {
  /** Entries with a sequence above the cursor, oldest first (the store bounds how many it keeps). */
  entries: ReplayEntry[];
  /**
   * The oldest sequence the store still holds for the broadcaster (0 when it holds none): a
   * cursor below `first - 1` has lost what lies in between.
   */
  first: number;
  /**
   * The latest sequence the cluster assigned to the broadcaster (its counter), when the store knows
   * it: everything up to it was published, so what lies past the cursor and is neither among the
   * entries nor in memory is lost, not merely quiet. Undefined when unknown (the counter is gone
   * too, e.g. evicted or a Redis restarted empty), and then nothing past the entries is claimed.
   */
  last?: number;
}

export interface ReplayStore {
  /** Reads the entries of `broadcaster` with a sequence above `after`, in order. */
  read(broadcaster: string, after: number): Promise<ReplayRead>;
}

/** What a server sends in a `gap` frame: one of the reasons it knows (defined in @fw/protocol). */
export type Gap = ProtocolGap<GapReason>;
export type { GapReason };
