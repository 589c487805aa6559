import type { FwBroadcaster } from '../broadcast/broadcaster.js';
import type { Gap, ReplayRead, ReplayStore } from '../broadcast/replay-store.js';

/** What to read: the `last` N messages, or those after broadcaster sequence `since`. */
export type HistoryQuery = { last: number; since?: undefined; epoch?: string } | { since: number; last?: undefined; epoch?: string };

export interface HistoryMessage {
  /** The broadcaster sequence (the `bid` of the live `m` frame). */
  bid: number;
  d: string;
}

/**
 * A page of a room's history. `gaps` says, honestly, which sequences of the asked range nobody
 * holds any more (the replay cache and the durable store are bounded); a gap without `to`/`lost`
 * means what came after `from` cannot be known at all. `more`: the read stopped at
 * `fw.rooms.history-max`; ask again with `since` the last `bid`.
 */
export interface HistoryPage {
  room: string;
  epoch: string;
  messages: HistoryMessage[];
  gaps: Gap[];
  more: boolean;
}

interface Sources {
  broadcaster: FwBroadcaster | undefined;
  store: ReplayStore | undefined;
  epoch: string;
  max: number;
}

/**
 * Reads a room's past broadcasts from what this node holds (the broadcaster's replay cache,
 * `fw.broadcaster.replay-cache`) merged with the durable replay store when there is one (Redis
 * Streams in cluster mode): each sequence once, the cache's copy first, and each sequence of the
 * asked range that neither holds said as a gap. Undefined when nothing knows the room.
 */
export async function readHistory(room: string, query: HistoryQuery, s: Sources): Promise<HistoryPage | undefined> {
  const cache = s.broadcaster?.cache;
  let read: ReplayRead | undefined;
  if (s.store !== undefined) {
    try {
      read = await s.store.read(room, query.since ?? 0);
    } catch {
      read = undefined; // said below: what the store would have held is a gap
    }
  }
  const local = cache === undefined ? 0 : cache.next - 1;
  const entries = read?.entries ?? [];
  const stored = entries.length > 0 ? entries[entries.length - 1]!.bid : 0;
  const end = Math.max(local, stored, read?.last ?? 0);
  if (cache === undefined && read === undefined) return undefined;
  if (cache === undefined && end === 0 && (read?.first ?? 0) === 0) return undefined;

  const gaps: Gap[] = [];
  let from: number;
  if (query.epoch !== undefined && query.epoch !== s.epoch) {
    // A cursor from another epoch (a restarted server without a durable store) means nothing here.
    gaps.push({ b: room, reason: 'server-restarted' });
    from = 1;
  } else if (query.since !== undefined) from = query.since + 1;
  else from = Math.max(1, end - query.last + 1);

  const messages: HistoryMessage[] = [];
  let run: Gap | undefined;
  const say = (): void => {
    if (run !== undefined) gaps.push(run);
    run = undefined;
  };
  let i = 0;
  let next = from;
  for (; next <= end && messages.length < s.max; next++) {
    while (i < entries.length && entries[i]!.bid < next) i++;
    const cached = cache?.get(next);
    const payload = cached !== undefined ? cached.payload : entries[i]?.bid === next ? entries[i]!.payload : undefined;
    if (payload !== undefined) {
      say();
      messages.push({ bid: next, d: payload });
      continue;
    }
    // Missing here: up to the next sequence the cache or the store may hold (a run, not one by one).
    let to = end;
    if (cache !== undefined && next < cache.first) to = Math.min(to, cache.first - 1);
    else if (cache !== undefined && next < cache.next) to = next; // a hole in the cache
    if (i < entries.length) to = Math.min(to, entries[i]!.bid - 1);
    if (run !== undefined && run.to === next - 1) run.to = to;
    else {
      say();
      run = { b: room, from: next, to, reason: 'replay-window-exceeded' };
    }
    run.lost = run.to! - run.from! + 1;
    next = to;
  }
  say();
  return { room, epoch: s.epoch, messages, gaps, more: next <= end };
}
