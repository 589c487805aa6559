import type { FwResource } from '../resource/resource.js';
import type { FrameRing } from './frame-ring.js';
import { Outgoing } from './outgoing.js';
import type { GapReason, ReplayRead } from './replay-store.js';

/** What a catch-up reads of a broadcaster: its id and its in-memory replay cache. */
export interface CatchUpSource {
  readonly id: string;
  readonly cache: FrameRing<Outgoing>;
}

/**
 * Brings a fresh resource up from its `since` cursor (`lastBid`) with what this node can prove,
 * merging the durable replay store's entries (`read`; undefined when the store could not be read)
 * with the broadcaster's replay cache: every sequence once, in order, the cache's copy first (it
 * is encoded already). A sequence neither holds is said lost with a gap frame covering exactly the
 * missing range; a range nobody can know (no cursor position on this node, no stream, no counter)
 * gets a gap without a count, so the recovery never reads `recovered: true` unless every
 * sequence past the cursor was delivered or is still to come live.
 *
 * How far the catch-up must go (`end`):
 * - this node's broadcaster has reached the cursor (`cache.next - 1 >= lastBid`): up to what it
 *   has delivered, or further if the store holds more. Anything later reaches the resource live
 *   (or is said lost by the cluster adapter, to every member), so the rest is proven;
 * - it has not (a broadcaster new on this node, or one lagging behind the client's last node):
 *   up to the cluster's counter when the store knows it, else to the stream's latest entry (every
 *   publish appends to it); with neither, or with a counter below the cursor (reset: Redis lost
 *   it), nothing past the cursor can be proven.
 *
 * Returns the last sequence accounted for (delivered or said lost), or `lastBid`.
 */
export function catchUp(
  b: CatchUpSource,
  resource: FwResource,
  lastBid: number,
  read: ReplayRead | undefined,
  delivered: () => void,
): number {
  const { cache, id } = b;
  const local = cache.next - 1;
  const entries = read?.entries ?? [];
  const stored = entries.length > 0 ? entries[entries.length - 1]!.bid : 0;
  let end: number;
  if (local > 0 && local >= lastBid) end = Math.max(local, stored);
  else if (read !== undefined && read.last !== undefined && read.last >= lastBid) end = Math.max(read.last, stored);
  // No counter: a stream that exists ends at the latest publish. A counter below the cursor is no
  // such case: the cluster numbered past the cursor once, so its counter was lost (a Redis
  // restarted empty, a failover to a replica behind) and the numbering may have started over
  // under the same epoch: the stream then holds other broadcasts under the client's sequences,
  // and nothing after the cursor can be proven.
  else if (read !== undefined && read.last === undefined && (stored > 0 || read.first > 0)) end = Math.max(stored, lastBid);
  else {
    // Neither this node, nor a stream, nor a counter knows what came after the cursor.
    resource.gap({ b: id, from: lastBid + 1, reason: 'replay-window-exceeded' });
    return lastBid;
  }

  let run: { from: number; to: number; reason: GapReason } | undefined;
  const say = (): void => {
    if (run === undefined) return;
    resource.gap({ b: id, from: run.from, to: run.to, lost: run.to - run.from + 1, reason: run.reason });
    run = undefined;
  };
  const send = (out: Outgoing): void => {
    say();
    if (resource.deliver(out)) delivered();
  };
  let next = lastBid + 1;
  let i = 0;
  while (next <= end) {
    while (i < entries.length && entries[i]!.bid < next) i++;
    const entry = entries[i];
    const cached = cache.get(next);
    if (cached !== undefined) {
      send(cached);
      next++;
      continue;
    }
    if (entry !== undefined && entry.bid === next) {
      send(new Outgoing(entry.payload, id, next));
      next++;
      continue;
    }
    // Missing here: up to the next sequence the store or the cache may hold (a run, not one by one).
    let to = entry === undefined ? end : Math.min(end, entry.bid - 1);
    let reason: GapReason = 'replay-window-exceeded';
    if (next < cache.first) to = Math.min(to, cache.first - 1);
    else if (next < cache.next) {
      // A hole in the cache: a cluster broadcast that never reached this node (and no longer in the store).
      to = next;
      reason = 'cluster-link-lost';
    }
    if (run !== undefined && run.reason === reason && run.to === next - 1) run.to = to;
    else {
      say();
      run = { from: next, to, reason };
    }
    next = to + 1;
  }
  say();
  return Math.max(end, lastBid);
}
