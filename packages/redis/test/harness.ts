/** Shared helpers of the cluster tests: real Redis, fw nodes in child processes, a throwaway Redis. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { waitFor } from '@fw/testing';

export const REDIS_URL = process.env.FW_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const FIXTURE = fileURLToPath(new URL('./fixtures/node.js', import.meta.url));

/** True when a Redis answers PING at host:port (tests needing Redis skip otherwise). */
export function redisAvailable(url = REDIS_URL): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = netConnect(Number(u.port || 6379), u.hostname);
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

export const SKIP_NO_REDIS = `Redis is not reachable at ${REDIS_URL} (start one, or set FW_TEST_REDIS_URL)`;

const prefixes: string[] = [];

/**
 * A key prefix no other test run shares. Its keys are deleted from the shared Redis once the
 * file is done (`beforeExit`: after every test and hook, when the nodes are gone), so test runs
 * leave nothing behind in a developer's Redis.
 */
export function uniquePrefix(name: string): string {
  const prefix = `fwtest-${name}-${randomBytes(4).toString('hex')}`;
  if (prefixes.push(prefix) === 1) process.once('beforeExit', () => void deleteKeys(prefixes));
  return prefix;
}

async function deleteKeys(of: readonly string[]): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    for (const prefix of of) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  } catch {
    // No shared Redis (the tests skipped) or it went away: nothing to clean.
  } finally {
    redis.disconnect();
  }
}

export interface FwNode {
  id: string;
  port: number;
  url: string;
  proc: ChildProcess;
  /** The node's stderr so far (for failure messages). */
  log(): string;
  exited: Promise<number | null>;
}

export async function startNode(
  redisUrl: string,
  prefix: string,
  id: string,
  extra: string[] = [],
  listenPort = 0,
  /** Another fixture of `fixtures/` (its compiled name, e.g. `rooms-node.js`) speaking the same start line. */
  fixture = FIXTURE,
): Promise<FwNode> {
  const proc = spawn(
    process.execPath,
    [fixture.includes('/') ? fixture : fileURLToPath(new URL(`./fixtures/${fixture}`, import.meta.url)), redisUrl, prefix, id, ...extra],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FW_TEST_PORT: String(listenPort) },
    },
  );
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`node ${id} did not start: ${err}`)), 15_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      // The fixture's `{"port":…,"node":…}` line; fw's own log lines (JSON too) come and go around it.
      for (const line of out.split('\n').slice(0, -1)) {
        let port: unknown;
        try {
          port = (JSON.parse(line) as { port?: unknown }).port;
        } catch {
          continue;
        }
        if (typeof port === 'number') {
          clearTimeout(timer);
          resolve(port);
        }
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`node ${id} exited with ${code}: ${err}`));
    });
  });
  return { id, port, url: `http://127.0.0.1:${port}`, proc, log: () => err, exited };
}

/** SIGTERM (graceful) or SIGKILL (a crash); resolves once the process is gone. */
export async function stopNode(node: FwNode, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (node.proc.exitCode === null && node.proc.signalCode === null) node.proc.kill(signal);
  await node.exited;
}

export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export async function postJson<T>(url: string, body: unknown): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Whether 127.0.0.1:`port` can be listened on now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * A port for a Redis Cluster node, free together with its cluster bus port (the port + 10000).
 * Both are taken below the ephemeral range (32768 and up on Linux): from `freePort` the bus port
 * could land on a port an outgoing connection of a test running beside it holds, and redis-server
 * then exits at start.
 */
export async function clusterPort(): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    const port = 12_000 + Math.floor(Math.random() * 10_000);
    if ((await portFree(port)) && (await portFree(port + 10_000))) return port;
  }
  throw new Error('no free port p with p + 10000 free in 12000-21999');
}

/**
 * A throwaway redis-server the test may kill and restart: without persistence by default, or
 * (`persistent`) with an append-only file fsynced on every write in a temporary directory, so a
 * restarted Redis has every key and stream it had.
 */
export class ThrowawayRedis {
  private proc: ChildProcess | undefined;
  private dir: string | undefined;
  private constructor(readonly port: number) {}

  static async start(persistent = false): Promise<ThrowawayRedis> {
    const r = new ThrowawayRedis(await freePort());
    if (persistent) r.dir = mkdtempSync(join(tmpdir(), 'fw-redis-'));
    await r.start();
    return r;
  }

  /** Stops it for good and removes its files. */
  async dispose(): Promise<void> {
    await this.stop();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const persistence = this.dir ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', this.dir] : ['--appendonly', 'no'];
    this.proc = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', ...persistence], {
      stdio: 'ignore',
    });
    await waitFor('throwaway redis', async () => ((await redisAvailable(this.url)) ? true : undefined), 5000);
  }

  /** Freezes the process (SIGSTOP): its sockets stay open, nothing is answered. */
  pause(): void {
    this.proc?.kill('SIGSTOP');
  }

  /** Lets a paused process go on (SIGCONT). */
  resume(): void {
    this.proc?.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    const p = this.proc;
    this.proc = undefined;
    if (!p || p.exitCode !== null) return;
    const gone = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await gone;
  }
}

/** Whether `redis-server` can be spawned here. */
export function redisServerInstalled(): Promise<boolean> {
  return new Promise((resolve) => {
    const p = spawn('redis-server', ['--version'], { stdio: 'ignore' });
    p.on('error', () => resolve(false));
    p.on('exit', (code) => resolve(code === 0));
  });
}

/**
 * A TCP proxy in front of a Redis that the test owns, to cut one node's link the way a network
 * does: `cut()` keeps every socket open but forwards nothing more either way (no FIN, no RST, the
 * bytes are dropped), and new connections are accepted and blackholed too, so a client learns of
 * the cut only from its own deadlines. `heal()` ends the blackholed connections (their streams are
 * torn mid-command) and forwards new ones again. With `only`, just the connections whose first
 * bytes (ioredis names its connection in its handshake: `CLIENT SETNAME fw-sub`) match are cut.
 */
export class TcpProxy {
  private readonly pairs = new Set<{ client: Socket; upstream: Socket | undefined; hello: string; dead: boolean }>();
  private cutting: RegExp | undefined;
  /** Milliseconds Redis's answers are held back (`lag`). */
  private delay = 0;
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: number): Promise<TcpProxy> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const proxy = new TcpProxy(server, (server.address() as { port: number }).port);
    server.on('connection', (client) => proxy.accept(client, target));
    return proxy;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Stops forwarding (the connections matching `only`, or all of them) until `heal()`. */
  cut(only = /(?:)/): void {
    this.cutting = only;
    for (const p of this.pairs) this.check(p);
  }

  /** Holds every answer from Redis back `ms` (in order), as a slow network path does; 0: none. */
  lag(ms: number): void {
    this.delay = ms;
  }

  heal(): void {
    this.cutting = undefined;
    for (const p of this.pairs) {
      if (!p.dead) continue;
      p.client.destroy();
      p.upstream?.destroy();
      this.pairs.delete(p);
    }
  }

  async close(): Promise<void> {
    for (const p of this.pairs) {
      p.client.destroy();
      p.upstream?.destroy();
    }
    this.pairs.clear();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private accept(client: Socket, target: number): void {
    const pair = { client, upstream: undefined as Socket | undefined, hello: '', dead: false };
    this.pairs.add(pair);
    this.check(pair);
    const upstream = netConnect(target, '127.0.0.1');
    pair.upstream = upstream;
    client.on('data', (d: Buffer) => {
      if (pair.hello.length < 4096) pair.hello += d.toString('latin1');
      this.check(pair);
      if (!pair.dead) upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      if (this.delay === 0) {
        if (!pair.dead) client.write(d);
        return;
      }
      setTimeout(() => !pair.dead && !client.destroyed && client.write(d), this.delay);
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      this.pairs.delete(pair);
    };
    // A blackholed connection stays open whatever its peer does, as across a real network cut.
    client.on('close', () => !pair.dead && end());
    upstream.on('close', () => !pair.dead && end());
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  }

  private check(pair: { hello: string; dead: boolean }): void {
    if (this.cutting !== undefined && !pair.dead && this.cutting.test(pair.hello)) pair.dead = true;
  }
}
