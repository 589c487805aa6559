/**
 * A lossy TCP proxy for chaos tests: every connection through it is forwarded to the target in
 * both directions, with jitter (each chunk held 0–`maxDelay` ms, order kept), and faults drawn
 * per chunk from a seeded generator: a reset (both sides torn down with RST, what is in flight
 * lost) or a truncation (part of the chunk delivered, then both sides closed), and at least one
 * every `every` chunks. Faults are bounded (`budget` in all); `heal()` stops them, so a test can
 * finish on a clean network.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '@fw/testing';

export interface LossyOptions {
  /** Seed of the fault generator: the same seed, the same draws (printed by the tests). */
  seed: number;
  /** Faults in all, then the proxy is clean. */
  budget: number;
  /** Chance per chunk of a reset, and of a truncation. */
  resetRate: number;
  truncateRate: number;
  /** Longest a chunk is held (ms). */
  maxDelay: number;
  /** A fault at least every this many chunks (while the budget lasts): a few busy connections see faults too. */
  every: number;
}

export interface LossyProxy {
  port: number;
  readonly faults: { resets: number; truncations: number; connections: number };
  /** No more faults (jitter stays). */
  heal(): void;
  close(): Promise<void>;
}

export async function lossyProxy(targetPort: number, options: LossyOptions): Promise<LossyProxy> {
  const random = seededRandom(options.seed);
  const faults = { resets: 0, truncations: 0, connections: 0 };
  let healed = false;
  let quiet = 0;
  const sockets = new Set<Socket>();
  const draw = (): 'reset' | 'truncate' | undefined => {
    if (healed || faults.resets + faults.truncations >= options.budget) return undefined;
    const x = random();
    if (++quiet >= options.every) {
      quiet = 0;
      return x < 0.5 ? 'reset' : 'truncate';
    }
    if (x < options.resetRate) return 'reset';
    if (x < options.resetRate + options.truncateRate) return 'truncate';
    return undefined;
  };
  // Half-open allowed: each direction ends on its own, after the chunks still held for it.
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    faults.connections++;
    const upstream = connect({ port: targetPort, host: '127.0.0.1', allowHalfOpen: true });
    sockets.add(client);
    sockets.add(upstream);
    let dead = false;
    const kill = (reset: boolean): void => {
      if (dead) return;
      dead = true;
      for (const s of [client, upstream]) {
        // An RST only for an established socket that has not started its own shutdown: after
        // resetting sockets with a FIN pending, Node 20 hung at process exit (gdb: CleanupHandles
        // spinning, ~1 run in 3); those get a plain close.
        if (reset && !s.connecting && !s.writableEnded && !s.destroyed) s.resetAndDestroy();
        else s.destroy();
      }
    };
    const pipe = (from: Socket, to: Socket): void => {
      // Chunks wait in order (TCP never reorders): one timer releases the head when its time has come.
      const held: { at: number; part: Buffer; last: boolean; end: boolean }[] = [];
      let timer: NodeJS.Timeout | undefined;
      const release = (): void => {
        timer = undefined;
        while (held.length > 0 && held[0]!.at <= Date.now()) {
          const { part, last, end } = held.shift()!;
          if (dead) return;
          if (part.length > 0 && to.writable) to.write(part);
          if (last) return kill(false);
          if (end && to.writable) to.end();
        }
        if (held.length > 0) timer = setTimeout(release, held[0]!.at - Date.now());
      };
      const hold = (part: Buffer, last: boolean, end: boolean): void => {
        const at = Math.max(held.at(-1)?.at ?? 0, Date.now() + random() * options.maxDelay);
        held.push({ at, part, last, end });
        if (timer === undefined) timer = setTimeout(release, Math.max(0, held[0]!.at - Date.now()));
      };
      from.on('data', (chunk: Buffer) => {
        if (dead) return;
        const fault = draw();
        if (fault !== undefined) quiet = 0;
        if (fault === 'reset') {
          faults.resets++;
          kill(true);
          return;
        }
        if (fault === 'truncate') {
          faults.truncations++;
          hold(chunk.subarray(0, Math.floor(chunk.length * random())), true, false);
        } else {
          hold(chunk, false, false);
        }
      });
      from.on('end', () => hold(Buffer.alloc(0), false, true));
    };
    pipe(client, upstream);
    pipe(upstream, client);
    for (const s of [client, upstream]) {
      // A peer's reset is passed on as one.
      s.on('error', () => kill(true));
      s.on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    faults,
    heal: () => {
      healed = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
