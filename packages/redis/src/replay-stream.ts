import type { RedisClient, RedisLink } from './link.js';
import type { ReplayEntry, ReplayRead, ReplayStore } from '@fw/runtime/adapter';
import { decodeEnvelope } from './envelope.js';

/**
 * The durable replay store of a cluster: one Redis Stream per broadcaster (`<prefix>:stream:<id>`),
 * written by the publish script in the same atomic step that assigns the broadcast its sequence
 * (`XADD … MAXLEN ~ <retention> <bid>-1`), so the stream holds exactly what the cluster
 * published, in order, under stream ids that are the sequences. A client that comes back on a
 * restarted process or on another node reads what it missed with `XRANGE <cursor+1>-0 +`.
 */
export class StreamReplayStore implements ReplayStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly retention: number,
    /**
     * A read that fails because Redis is away for a moment (a restart, a failover) is tried again
     * once `link` is back, for at most `within` ms. A catch-up whose read fails can only serve what
     * this node holds, and says the rest lost (the holes a recreated broadcaster's replay cache has
     * for what the node missed while it had no members): losses the stream does not have.
     */
    private readonly retry?: { link: RedisLink; within: number },
  ) {}

  key(broadcaster: string): string {
    return streamKey(this.prefix, broadcaster);
  }

  /**
   * The entries after `after`, the oldest one the stream holds, and the broadcaster's sequence
   * counter (`last`): with it, a stream that was evicted, trimmed or emptied by a Redis restart is
   * told apart from a quiet one, and the runtime says exactly which sequences are gone.
   */
  async read(broadcaster: string, after: number): Promise<ReplayRead> {
    const deadline = Date.now() + (this.retry?.within ?? 0);
    for (;;) {
      try {
        return await this.readOnce(broadcaster, after);
      } catch (err) {
        const left = deadline - Date.now();
        if (this.retry === undefined || left <= 0) throw err;
        // A failed command may come before the link notices it is down: a short pause, never a spin.
        await new Promise((r) => setTimeout(r, Math.min(RETRY_PAUSE_MS, left)));
        if (!(await this.retry.link.waitUp(Math.max(0, deadline - Date.now())))) throw err;
      }
    }
  }

  private async readOnce(broadcaster: string, after: number): Promise<ReplayRead> {
    const key = this.key(broadcaster);
    const [oldest, rows, counter] = await Promise.all([
      this.redis.xrange(key, '-', '+', 'COUNT', 1),
      this.redis.xrange(key, `${after + 1}-0`, '+', 'COUNT', this.retention),
      this.redis.get(sequenceKey(this.prefix, broadcaster)),
    ]);
    const entries: ReplayEntry[] = [];
    for (const [id, fields] of rows) {
      const entry = toEntry(id, fields);
      if (entry !== undefined) entries.push(entry);
    }
    const last = counter === null ? undefined : Number(counter);
    return {
      entries,
      first: oldest.length > 0 ? sequenceOf(oldest[0]![0]) : 0,
      ...(last !== undefined && Number.isSafeInteger(last) ? { last } : {}),
    };
  }
}

/** Between two attempts of a read while Redis is away. */
const RETRY_PAUSE_MS = 50;

export function streamKey(prefix: string, broadcaster: string): string {
  return `${prefix}:stream:${broadcaster}`;
}

/** A broadcaster's sequence counter (INCR'd by the publish script). */
export function sequenceKey(prefix: string, broadcaster: string): string {
  return `${prefix}:seq:${broadcaster}`;
}

/** The broadcaster sequence of a stream id (`<bid>-1`). */
export function sequenceOf(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}

/** A stream entry: field `e` is the channel envelope's body (`<node> <id length> <id><payload>`). */
export function toEntry(id: string, fields: string[]): ReplayEntry | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] !== 'e') continue;
    const bid = sequenceOf(id);
    const e = decodeEnvelope(`${bid} ${fields[i + 1]}`);
    return e && { bid, payload: e.payload };
  }
  return undefined;
}
