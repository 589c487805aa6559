/**
 * Every timer the runtime starts goes through here, so that leaks are countable: after all
 * connections are gone `active` must be back to zero (asserted by the connect/disconnect test).
 */
export class Timers {
  private readonly live = new Set<NodeJS.Timeout>();

  get active(): number {
    return this.live.size;
  }

  timeout(fn: () => void, ms: number): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.live.delete(t);
      fn();
    }, ms);
    this.live.add(t);
    return t;
  }

  interval(fn: () => void, ms: number): NodeJS.Timeout {
    const t = setInterval(fn, ms);
    t.unref();
    this.live.add(t);
    return t;
  }

  clear(t: NodeJS.Timeout | undefined): void {
    if (!t) return;
    clearTimeout(t);
    this.live.delete(t);
  }

  clearAll(): void {
    for (const t of this.live) clearTimeout(t);
    this.live.clear();
  }
}
