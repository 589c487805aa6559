import type { FwResource } from './resource.js';

/**
 * Coalesces writes: a resource written to during a tick is queued once, and queued resources
 * flush in a microtask after the current task, so N messages to one socket in one tick become one
 * socket write.
 *
 * At most `slice` resources are written per event-loop turn; the rest wait, in order, for the next
 * turns (`setImmediate`). One broadcast to 10,000 sockets therefore no longer holds the loop for
 * the whole fan-out (one write system call per socket, ~7 µs each here), and while a large
 * fan-out is being written, the messages that follow it join the writes still to come: under a
 * sustained stream of broadcasts each socket gets its backlog in one write instead of one write
 * per message. A resource whose resume ring would overflow before its turn writes at once
 * (`FwResource.deliver`), so waiting never loses a message.
 */
export class FlushQueue {
  /** The resources being written, from `at` on; `next` collects those queued meanwhile. */
  private current: (FwResource | undefined)[] = [];
  private at = 0;
  private next: FwResource[] = [];
  private pending = false;

  constructor(
    private readonly slice: number,
    /** Called when the queue has run empty (what was kept for this turn's writes can go). */
    private readonly idle: () => void = () => {},
  ) {}

  get size(): number {
    return this.current.length - this.at + this.next.length;
  }

  add(resource: FwResource): void {
    this.next.push(resource);
    if (!this.pending) {
      this.pending = true;
      queueMicrotask(this.run);
    }
  }

  private readonly run = (): void => {
    for (let budget = this.slice; budget > 0; budget--) {
      if (this.at === this.current.length) {
        if (this.next.length === 0) break;
        this.current = this.next;
        this.next = [];
        this.at = 0;
      }
      const r = this.current[this.at]!;
      this.current[this.at++] = undefined; // a terminated resource is not kept alive by the queue
      try {
        r.flushQueued();
      } catch (err) {
        r.terminate(`write failed: ${(err as Error).message}`);
      }
    }
    if (this.size > 0) setImmediate(this.run);
    else {
      this.current = [];
      this.at = 0;
      this.pending = false;
      this.idle();
    }
  };
}
