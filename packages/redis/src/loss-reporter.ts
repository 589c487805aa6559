/**
 * Turns loss counts into reports: at most one per second (so a Redis outage during a busy stream
 * is one line and one event per second, not one per message), never none.
 */
export class LossReporter {
  private unpublished = new Map<string, number>();
  private lost = new Map<string, number>();
  private recovered = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly report: (detail: string, count: number) => void,
    private readonly every = 1000,
    /** Recoveries are reported the same way (a `messages-recovered` event). */
    private readonly reportRecovered: (detail: string, count: number) => void = () => {},
  ) {}

  add(kind: 'unpublished' | 'lost' | 'recovered', broadcaster: string, count: number): void {
    const map = kind === 'unpublished' ? this.unpublished : kind === 'lost' ? this.lost : this.recovered;
    map.set(broadcaster, (map.get(broadcaster) ?? 0) + count);
    this.timer ??= setTimeout(() => this.flush(), this.every);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const parts: string[] = [];
    let total = 0;
    for (const [label, map] of [
      ['not published to the other nodes (Redis down)', this.unpublished],
      ['from other nodes lost', this.lost],
    ] as const) {
      if (map.size === 0) continue;
      let n = 0;
      for (const c of map.values()) n += c;
      total += n;
      parts.push(`${n} broadcast(s) ${label} on ${[...map.keys()].slice(0, 5).join(', ')}${map.size > 5 ? ', …' : ''}`);
      map.clear();
    }
    if (total > 0) this.report(parts.join('; '), total);
    if (this.recovered.size > 0) {
      let n = 0;
      for (const c of this.recovered.values()) n += c;
      const ids = [...this.recovered.keys()];
      this.recovered.clear();
      this.reportRecovered(
        `${n} broadcast(s) missed while Redis was away recovered from the replay streams on ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`,
        n,
      );
    }
  }

  close(): void {
    this.flush();
  }
}
