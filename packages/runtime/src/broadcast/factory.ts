import { FwError } from '../errors.js';
import type { BroadcasterOptions } from '../model.js';
import type { Runtime } from '../runtime.js';
import { FwBroadcaster } from './broadcaster.js';

/** Creates, finds and destroys broadcasters; announces BroadcasterCreated / BroadcasterDestroyed. */
export class BroadcasterFactory {
  private readonly map = new Map<string, FwBroadcaster>();
  /**
   * The next sequence of recently destroyed broadcasters (at most `fw.broadcaster.sequence-memory`,
   * oldest forgotten first): one recreated under the same id numbers on from there, so a client
   * holding a cursor from before never takes its new messages for ones it has seen.
   */
  private readonly retired = new Map<string, number>();

  constructor(private readonly runtime: Runtime) {}

  get size(): number {
    return this.map.size;
  }

  lookup(id: string): FwBroadcaster | undefined;
  lookup(id: string, createIfAbsent: true): FwBroadcaster;
  lookup(id: string, createIfAbsent = false): FwBroadcaster | undefined {
    return this.map.get(id) ?? (createIfAbsent ? this.make(id, {}, false) : undefined);
  }

  /** Creates a broadcaster; throws `broadcaster_exists` (409) when the id is taken. */
  create(id: string, options: BroadcasterOptions = {}): FwBroadcaster {
    if (this.map.has(id)) throw new FwError('broadcaster_exists', `broadcaster '${id}' already exists`, 409, { id });
    return this.make(id, options, false);
  }

  /** The broadcaster of a handler path, created on first join and destroyed when empty. */
  implicit(id: string): FwBroadcaster {
    return this.map.get(id) ?? this.make(id, {}, true);
  }

  /** Destroys a broadcaster; false when there was none. */
  destroy(id: string, reason?: string): boolean {
    const b = this.map.get(id);
    if (!b) return false;
    b.destroy(reason);
    return true;
  }

  list(): FwBroadcaster[] {
    return [...this.map.values()];
  }

  values(): IterableIterator<FwBroadcaster> {
    return this.map.values();
  }

  /** Called by a broadcaster's destroy. */
  forget(b: FwBroadcaster): void {
    if (this.map.get(b.id) !== b) return;
    this.map.delete(b.id);
    const memory = this.runtime.settings.sequenceMemory;
    if (b.internal || memory <= 0 || b.cache.next <= 1) return;
    this.retired.delete(b.id);
    this.retired.set(b.id, b.cache.next);
    if (this.retired.size > memory) this.retired.delete(this.retired.keys().next().value!);
  }

  private make(id: string, options: BroadcasterOptions, implicit: boolean): FwBroadcaster {
    if (!id) throw new FwError('invalid_broadcaster_id', 'a broadcaster id must not be empty', 400);
    const b = new FwBroadcaster(
      id,
      this.runtime,
      options.internal ?? false,
      options.replayCacheSize ?? this.runtime.settings.replayCache,
      implicit,
    );
    const next = this.retired.get(id);
    if (next !== undefined) {
      this.retired.delete(id);
      b.cache.startAt(next);
    }
    this.map.set(id, b);
    this.runtime.events.emit('BroadcasterCreated', { id });
    return b;
  }
}
