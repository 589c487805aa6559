import type { ClusterLog } from '@fw/runtime/adapter';
import type { RedisLink } from './link.js';

/**
 * An append-only log shared by every node through one Redis list (newest first, capped at
 * `fw.cluster.shared-log.max-entries`). The admin plane's audit log and the agent layer's
 * coordination journal use one each, so any node shows the entries written on all of them.
 * Redis being down never fails the caller: `append` answers false (keep the local copy, and
 * count it) and `list` throws so the caller can fall back to its own entries.
 */
export class SharedLog<T extends object> implements ClusterLog<T> {
  constructor(
    private readonly link: RedisLink,
    readonly key: string,
    private readonly maxEntries: number,
  ) {}

  async append(entry: T): Promise<boolean> {
    if (!this.link.up) return false;
    try {
      await this.link.cmd
        .multi()
        .lpush(this.key, JSON.stringify(entry))
        .ltrim(this.key, 0, this.maxEntries - 1)
        .exec();
      return true;
    } catch {
      return false;
    }
  }

  /** Newest first. */
  async list(limit = 100, offset = 0): Promise<T[]> {
    const start = Math.max(0, Math.floor(offset));
    const count = Math.max(0, Math.min(this.maxEntries, Math.floor(limit)));
    if (count === 0) return [];
    const raw = await this.link.cmd.lrange(this.key, start, start + count - 1);
    const out: T[] = [];
    for (const line of raw) {
      try {
        out.push(JSON.parse(line) as T);
      } catch {
        // a foreign value in our list: skip it
      }
    }
    return out;
  }

  async size(): Promise<number> {
    return this.link.cmd.llen(this.key);
  }
}
