/** The shared empty backing array (never written: `push` replaces it first). */
const NONE: never[] = Object.freeze([]) as unknown as never[];

/**
 * A bounded ring of items with consecutive ids (1, 2, 3…). Used for a resource's resume buffer
 * (ids are the resource's message ids) and a broadcaster's replay cache (ids are `bid`s). The
 * backing array grows only as items arrive, so an idle ring costs almost nothing.
 */
export class FrameRing<T> {
  /** `NONE` until the first push and after a release: an idle resource's ring holds no array of its own. */
  private items: (T | undefined)[] = NONE;
  private head = 0;
  /** Id of the oldest item held. */
  first = 1;
  /** Id the next item gets. */
  next = 1;

  constructor(readonly capacity: number) {}

  push(item: T): number {
    const id = this.next++;
    if (this.capacity <= 0) {
      this.first = this.next;
      return id;
    }
    if (this.items.length < this.capacity) {
      if (this.items === NONE) this.items = [];
      this.items.push(item);
    } else {
      this.items[this.head] = item;
      if (++this.head === this.capacity) this.head = 0;
      this.first++;
    }
    return id;
  }

  /**
   * Moves numbering forward so the next push gets `id`; the skipped ids become holes (`get`
   * answers undefined). Used when a cluster sequence jumps over messages this node never got.
   */
  skipTo(id: number): void {
    if (id <= this.next) return;
    if (this.capacity <= 0 || id - this.next >= this.capacity) {
      this.release();
      this.first = this.next = id;
      return;
    }
    while (this.next < id) this.push(undefined as T);
  }

  /** Forgets every item and numbers on from `id` (no holes): a recreated broadcaster continuing its old sequence. */
  startAt(id: number): void {
    this.release();
    this.head = 0;
    this.first = this.next = id;
  }

  get(id: number): T | undefined {
    if (id < this.first || id >= this.next) return undefined;
    return this.items[(this.head + (id - this.first)) % this.items.length];
  }

  get size(): number {
    return this.next - this.first;
  }

  /** Forgets every item but keeps numbering (raw resources release frames once flushed). */
  release(): void {
    if (this.items.length === 0) return;
    this.items = NONE;
    this.head = 0;
    this.first = this.next;
  }
}
