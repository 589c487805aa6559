import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** A connection to a single Redis (possibly found through Sentinel) or to a Redis Cluster: the same commands. */
export type RedisClient = Redis | Cluster;

export type LinkState = 'up' | 'down';

export interface LinkOptions {
  url: string;
  /** Redis Sentinel: ask these for the master of `name` (and follow its failovers) instead of the URL's host. */
  sentinel?: { sentinels: { host: string; port: number }[]; name: string };
  /** Redis Cluster: connect to the cluster these seed nodes belong to (ioredis's Cluster client). */
  cluster?: { host: string; port: number }[];
  requestTimeout: number;
  reconnectMaxDelay: number;
  /** How often each connection is sent a PING (`fw.cluster.keepalive-interval`). */
  keepaliveInterval: number;
  /**
   * How long a connection may leave a command unanswered (a PING, the handshake, any command)
   * before it is reset, which takes the link down (`fw.cluster.keepalive-timeout`).
   */
  keepaliveTimeout: number;
  onChange(state: LinkState, detail: string): void;
}

/**
 * The node's two Redis connections: `cmd` for commands (publishes, presence, logs) and `sub` for
 * subscriptions. Both reconnect by themselves with exponential backoff; the link is `up` only
 * while both are ready. Commands never wait for a connection that is down (no offline queue, no
 * resend): the caller falls back at once and counts what could not be sent.
 *
 * A connection can also die without closing: a Redis paused (SIGSTOP, a stalled VM) or a network
 * path that silently drops packets leaves the socket open, its commands unanswered and its
 * subscription mute, and TCP notices only after minutes. So every connection is sent a PING each
 * `keepaliveInterval` (the subscriber too: PING is allowed in subscribe mode), and a socket that
 * leaves any command unanswered for `keepaliveTimeout` is destroyed (ioredis's `socketTimeout`,
 * which also bounds a reconnect's handshake): the link goes down within interval + timeout of
 * the cut, and reconnects with backoff until Redis answers again.
 */
export class RedisLink {
  readonly cmd: RedisClient;
  readonly sub: RedisClient;
  /**
   * On a Redis Cluster, PUBLISH is relayed over the cluster bus and answers with the subscribers of
   * the one shard that ran it, so 0 does not mean that nobody listens.
   */
  readonly publishCountIsLocal: boolean;
  state: LinkState = 'down';
  /** When the link last went down (ms since epoch), or undefined while up. */
  downSince: number | undefined = Date.now();
  /** Times the link came back after being down. */
  recoveries = 0;
  lastError = '';
  private everUp = false;
  private closed = false;

  constructor(private readonly options: LinkOptions) {
    const base: RedisOptions = {
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.requestTimeout,
      connectTimeout: Math.max(1000, options.requestTimeout),
      socketTimeout: options.keepaliveTimeout,
      retryStrategy: (times) => {
        const delay = Math.min(100 * 2 ** Math.min(times - 1, 10), options.reconnectMaxDelay);
        return Math.round(delay * (0.75 + Math.random() * 0.5));
      },
    };
    if (options.sentinel) {
      // The URL still carries the password, db and TLS of the master; the sentinels say where it is.
      Object.assign(base, urlOptions(options.url), { sentinels: options.sentinel.sentinels, name: options.sentinel.name });
    }
    // No autoResubscribe: ioredis re-subscribes without handling a failure, and a Redis that goes
    // away again at that moment crashes the process (an unhandled MaxRetriesPerRequestError).
    // The cluster module subscribes again itself once the link is up (with the failure handled).
    const subOptions: RedisOptions = { ...base, commandTimeout: undefined, connectionName: 'fw-sub', autoResubscribe: false };
    this.publishCountIsLocal = options.cluster !== undefined;
    if (options.cluster) {
      // The URL still carries the password and TLS; the seed nodes say where the cluster is. Each
      // client follows MOVED/ASK redirections and slot changes by itself.
      const { retryStrategy, ...perNode } = { ...base, ...urlOptions(options.url), db: undefined };
      const cluster = (redisOptions: RedisOptions, autoPipelining: boolean): Cluster =>
        new Cluster(options.cluster!, {
          redisOptions,
          clusterRetryStrategy: retryStrategy,
          enableOfflineQueue: false,
          enableAutoPipelining: autoPipelining,
          scaleReads: 'master',
        });
      this.cmd = cluster({ ...perNode, connectionName: 'fw-cmd' }, true);
      this.sub = cluster({ ...perNode, commandTimeout: undefined, connectionName: 'fw-sub', autoResubscribe: false }, false);
    } else {
      const url = options.sentinel ? undefined : options.url;
      this.cmd = url
        ? new Redis(url, { ...base, enableAutoPipelining: true, connectionName: 'fw-cmd' })
        : new Redis({ ...base, enableAutoPipelining: true, connectionName: 'fw-cmd' });
      this.sub = url ? new Redis(url, subOptions) : new Redis(subOptions);
    }
    for (const client of [this.cmd, this.sub]) {
      client.on('ready', () => this.update());
      client.on('close', () => this.update());
      // ioredis emits 'error' for every failed attempt; without a listener it would crash the process.
      client.on('error', (err: Error) => {
        this.lastError = err.message;
      });
    }
    this.keepalive = setInterval(() => this.ping(), options.keepaliveInterval);
    this.keepalive.unref();
  }

  private readonly keepalive: ReturnType<typeof setInterval>;

  /**
   * One PING on each ready connection. Its answer (or any other data) disarms the socket timeout;
   * none within `keepaliveTimeout` destroys the socket. The promise's own failure (the reset, a
   * connection closing) is not an error to report: the 'close' it causes takes the link down.
   */
  private ping(): void {
    for (const client of [this.cmd, this.sub]) {
      if (client.status === 'ready') client.ping().catch(() => undefined);
    }
  }

  get up(): boolean {
    return this.state === 'up';
  }

  /** Resolves once the link is up, or after `timeout` ms (the node then starts degraded). */
  waitUp(timeout: number): Promise<boolean> {
    if (this.up) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        this.waiters.delete(onUp);
        resolve(ok);
      };
      const onUp = (): void => done(true);
      const timer = setTimeout(() => done(false), timeout);
      this.waiters.add(onUp);
    });
  }

  private readonly waiters = new Set<() => void>();

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.keepalive);
    await Promise.all(
      [this.cmd, this.sub].map(async (c) => {
        try {
          if (c.status === 'ready') await c.quit();
        } catch {
          // already gone
        }
        c.disconnect();
      }),
    );
  }

  private update(): void {
    if (this.closed) return;
    const up = this.cmd.status === 'ready' && this.sub.status === 'ready';
    if (up && this.state === 'down') {
      this.state = 'up';
      this.downSince = undefined;
      if (this.everUp) this.recoveries++;
      this.options.onChange('up', this.everUp ? 'Redis connection restored' : 'connected to Redis');
      this.everUp = true;
      for (const w of [...this.waiters]) w();
    } else if (!up && this.state === 'up') {
      this.state = 'down';
      this.downSince = Date.now();
      this.options.onChange('down', `Redis connection lost${this.lastError ? `: ${this.lastError}` : ''}; reconnecting with backoff`);
    }
  }
}

/** What a Redis URL says besides where the server is: credentials, database, TLS. */
function urlOptions(url: string): RedisOptions {
  if (!url) return {};
  const u = new URL(url);
  const out: RedisOptions = {};
  if (u.username) out.username = decodeURIComponent(u.username);
  if (u.password) out.password = decodeURIComponent(u.password);
  const db = Number(u.pathname.slice(1));
  if (u.pathname.length > 1 && Number.isInteger(db)) out.db = db;
  if (u.protocol === 'rediss:') out.tls = {};
  return out;
}
