/**
 * Recent cluster broadcasts of broadcasters that have no members on this node, kept so that a
 * client failing over to this node (its first member here) can still replay what it missed with
 * `since`: when the broadcaster is created here, its replay cache is seeded from this. Bounded:
 * `perBroadcaster` messages each (the replay cache size) for at most `maxBroadcasters`, the least
 * recently active dropped first.
 */
export interface ShadowEntry {
  bid: number;
  payload: string;
}

export class ShadowCache {
  private readonly map = new Map<string, ShadowEntry[]>();

  constructor(
    private readonly perBroadcaster: number,
    private readonly maxBroadcasters: number,
  ) {}

  get size(): number {
    return this.map.size;
  }

  add(broadcaster: string, bid: number, payload: string): void {
    if (this.perBroadcaster <= 0 || this.maxBroadcasters <= 0) return;
    let list = this.map.get(broadcaster);
    if (list)
      this.map.delete(broadcaster); // re-inserted below: most recently active last
    else list = [];
    this.map.set(broadcaster, list);
    list.push({ bid, payload });
    if (list.length > this.perBroadcaster) list.shift();
    if (this.map.size > this.maxBroadcasters) this.map.delete(this.map.keys().next().value!);
  }

  /** Removes and returns a broadcaster's entries in sequence order, each sequence once. */
  take(broadcaster: string): ShadowEntry[] {
    const list = this.map.get(broadcaster);
    if (!list) return [];
    this.map.delete(broadcaster);
    list.sort((a, b) => a.bid - b.bid);
    return list.filter((e, i) => i === 0 || e.bid !== list[i - 1]!.bid);
  }

  clear(): void {
    this.map.clear();
  }
}
