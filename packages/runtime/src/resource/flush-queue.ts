import type { FwResource } from './resource.js';

/**
 * Coalesces writes: a resource written to during a tick is queued once, and all queued resources
 * flush together in a microtask after the current task, so N messages to one socket in one tick
 * become one socket write.
 */
export class FlushQueue {
  private dirty: FwResource[] = [];
  private pending = false;

  get size(): number {
    return this.dirty.length;
  }

  add(resource: FwResource): void {
    this.dirty.push(resource);
    if (!this.pending) {
      this.pending = true;
      queueMicrotask(this.run);
    }
  }

  private readonly run = (): void => {
    this.pending = false;
    const list = this.dirty;
    this.dirty = [];
    for (const r of list) {
      try {
        r.flushQueued();
      } catch (err) {
        r.terminate(`write failed: ${(err as Error).message}`);
      }
    }
  };
}
