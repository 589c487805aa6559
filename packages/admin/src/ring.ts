/** A fixed-capacity ring: keeps the newest `capacity` items, oldest overwritten first. */
export class Ring<T> {
  private readonly items: (T | undefined)[];
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) throw new RangeError(`ring capacity must be a non-negative integer, got ${capacity}`);
    this.items = new Array<T | undefined>(capacity);
  }

  push(item: T): void {
    if (this.capacity === 0) return;
    this.items[this.next] = item;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  get size(): number {
    return this.count;
  }

  /** The newest `limit` items, oldest first. */
  last(limit = this.count): T[] {
    const n = Math.min(limit, this.count);
    const out: T[] = [];
    for (let k = n; k > 0; k--) out.push(this.items[(this.next - k + this.capacity) % this.capacity] as T);
    return out;
  }
}
