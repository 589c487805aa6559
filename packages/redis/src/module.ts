import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Framework, FrameworkModule, Logger } from '@fw/runtime';
import { ClientMover } from './client-mover.js';
import { ClusterBroadcast } from './cluster-broadcast.js';
import { scalingOf, type ClusterService, type NodeRecord, type ScalingHost, type Stamped } from '@fw/runtime/adapter';
import { Cluster } from './cluster-service.js';
import { CLUSTER_CONFIG, type ClusterSettings } from './config.js';
import { countClusterEvents, type ClusterChange } from './seams.js';
import { ClusterConfigError } from './errors.js';
import { RedisLink, type LinkState } from './link.js';
import { LossReporter } from './loss-reporter.js';
import { Presence } from './presence.js';
import { ClusterRoomPresence } from './room-presence.js';
import { Rpc } from './rpc.js';
import { SharedLog } from './shared-log.js';

const VERSION = (createRequire(import.meta.url)('@fw/runtime/package.json') as { version: string }).version;
const NODE_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Broadcaster ids a node lists in its presence record (the full lists come over requests). */
const PRESENCE_BROADCASTER_IDS = 100;

export function readClusterSettings(fw: Framework): ClusterSettings {
  const c = fw.config;
  const nodeId =
    c.get('fw.cluster.node-id') ||
    `${hostname()
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .slice(0, 40)}-${process.pid}-${randomBytes(3).toString('hex')}`;
  if (!NODE_ID.test(nodeId)) throw new ClusterConfigError(`fw.cluster.node-id must be 1–64 letters, digits, '.', '_' or '-': '${nodeId}'`);
  const given = c.get('fw.cluster.prefix');
  if (!given || /[\s{}]/.test(given))
    throw new ClusterConfigError(`fw.cluster.prefix must be non-empty without spaces or braces: '${given}'`);
  const clusterNodes = parseHostPorts(c.get('fw.cluster.redis-cluster-nodes'), 'fw.cluster.redis-cluster-nodes');
  if (clusterNodes.length > 0 && c.get('fw.cluster.sentinels'))
    throw new ClusterConfigError('fw.cluster.redis-cluster-nodes and fw.cluster.sentinels cannot both be set');
  // On a Redis Cluster every key and channel shares the hash tag `{prefix}`: the publish script
  // touches a broadcaster's sequence, its stream and the channel at once, and presence and the
  // shared logs use MGET/MULTI, which a cluster only runs on keys of one slot (Redis Cluster
  // specification, "Hash tags"). fw's keys then live on one shard.
  const prefix = clusterNodes.length > 0 ? `{${given}}` : given;
  const settings: ClusterSettings = {
    redisUrl: c.get('fw.cluster.redis-url'),
    sentinels: parseSentinels(c.get('fw.cluster.sentinels')),
    sentinelName: c.get('fw.cluster.sentinel-name'),
    clusterNodes,
    nodeId,
    address: c.get('fw.cluster.address'),
    prefix,
    heartbeatInterval: c.get('fw.cluster.heartbeat-interval'),
    nodeTimeout: c.get('fw.cluster.node-timeout'),
    requestTimeout: c.get('fw.cluster.request-timeout'),
    gapTimeout: c.get('fw.cluster.gap-timeout'),
    reconnectMaxDelay: c.get('fw.cluster.reconnect-max-delay'),
    keepaliveInterval: c.get('fw.cluster.keepalive-interval'),
    keepaliveTimeout: c.get('fw.cluster.keepalive-timeout'),
    moveClientsAfter: c.get('fw.cluster.move-clients-after'),
    maxPendingRequests: c.get('fw.cluster.max-pending-requests'),
    shadowBroadcasters: c.get('fw.cluster.shadow-broadcasters'),
    sharedLogMaxEntries: c.get('fw.cluster.shared-log.max-entries'),
    replayRetention: c.get('fw.cluster.replay-retention'),
    outbox: c.get('fw.cluster.outbox'),
  };
  for (const key of ['replayRetention', 'outbox'] as const) {
    if (!Number.isInteger(settings[key]) || settings[key] < 0)
      throw new ClusterConfigError(`fw.cluster: ${key} must be a non-negative integer, got ${settings[key]}`);
  }
  if (!Number.isInteger(settings.shadowBroadcasters) || settings.shadowBroadcasters < 0) {
    throw new ClusterConfigError(`fw.cluster.shadow-broadcasters must be a non-negative integer, got ${settings.shadowBroadcasters}`);
  }
  for (const key of [
    'heartbeatInterval',
    'nodeTimeout',
    'requestTimeout',
    'gapTimeout',
    'reconnectMaxDelay',
    'keepaliveInterval',
    'keepaliveTimeout',
    'maxPendingRequests',
    'sharedLogMaxEntries',
  ] as const) {
    if (!Number.isFinite(settings[key]) || settings[key] <= 0)
      throw new ClusterConfigError(`fw.cluster: ${key} must be positive, got ${settings[key]}`);
  }
  if (settings.nodeTimeout <= settings.heartbeatInterval) {
    throw new ClusterConfigError('fw.cluster.node-timeout must be longer than fw.cluster.heartbeat-interval');
  }
  return settings;
}

/**
 * Cluster mode: installs the Redis broadcast adapter into the runtime, announces this node,
 * answers the other nodes' requests and publishes the `cluster` service.
 */
export class ClusterModule implements FrameworkModule {
  readonly name = '@fw/redis';
  private link: RedisLink | undefined;
  private broadcast: ClusterBroadcast | undefined;
  private rpc: Rpc | undefined;
  private presence: Presence | undefined;
  private roomPresence: ClusterRoomPresence | undefined;
  private reporter: LossReporter | undefined;
  private mover: ClientMover | undefined;
  private readonly logs = new Map<string, SharedLog<object>>();
  private known: string[] = [];
  service: ClusterService | undefined;
  private runtime: ScalingHost | undefined;
  private epochKey: string | undefined;
  private unregisterReadiness: (() => void) | undefined;
  private unregisterMetrics: (() => void)[] = [];
  private logger: Logger | undefined;

  async install(fw: Framework): Promise<void> {
    fw.config.declare(CLUSTER_CONFIG);
    if (
      !fw.config.get('fw.cluster.redis-url') &&
      !fw.config.get('fw.cluster.sentinels') &&
      !fw.config.get('fw.cluster.redis-cluster-nodes')
    )
      return; // a single node
    const s = readClusterSettings(fw);
    const runtime = (this.runtime = scalingOf(fw));
    const logger = (this.logger = fw.logger.child({ module: 'cluster', node: s.nodeId }));
    this.epochKey = `${s.prefix}:epoch`;
    countClusterEvents(fw);
    const emit = (change: ClusterChange, detail: string, count?: number): void => {
      const n =
        count === undefined
          ? {}
          : change === 'messages-recovered'
            ? { recovered: count }
            : change === 'clients-moved'
              ? { moved: count }
              : { lost: count };
      fw.events.emit('ClusterChanged', { node: s.nodeId, change, detail, ...n });
    };
    const reporter = (this.reporter = new LossReporter(
      (detail, lost) => {
        logger.warn({ lost }, detail);
        emit('messages-lost', detail, lost);
      },
      1000,
      (detail, recovered) => emit('messages-recovered', detail, recovered),
    ));
    const mover = (this.mover = new ClientMover(runtime, {
      after: s.moveClientsAfter,
      retryAfterSeconds: Math.max(1, Math.ceil(s.reconnectMaxDelay / 1000)),
      onMoved: (dropped, detail) => {
        logger.warn({ dropped }, detail);
        emit('clients-moved', detail, dropped);
      },
    }));
    const link = (this.link = new RedisLink({
      url: s.redisUrl,
      ...(s.sentinels.length > 0 ? { sentinel: { sentinels: s.sentinels, name: s.sentinelName } } : {}),
      ...(s.clusterNodes.length > 0 ? { cluster: s.clusterNodes } : {}),
      requestTimeout: s.requestTimeout,
      reconnectMaxDelay: s.reconnectMaxDelay,
      keepaliveInterval: s.keepaliveInterval,
      keepaliveTimeout: s.keepaliveTimeout,
      onChange: (state, detail) => this.onLink(state, detail, emit),
    }));
    const broadcast = (this.broadcast = new ClusterBroadcast(runtime, link, {
      nodeId: s.nodeId,
      prefix: s.prefix,
      gapTimeout: s.gapTimeout,
      shadowSize: fw.config.get('fw.broadcaster.replay-cache'),
      shadowBroadcasters: s.shadowBroadcasters,
      retention: s.replayRetention,
      outboxLimit: s.outbox,
      // About one reconnect: a backoff at its cap, then a request's time to answer.
      readRetryWithin: s.reconnectMaxDelay + s.requestTimeout,
      onLoss: (kind, id, n) => reporter.add(kind, id, n),
      onRecovered: (id, n) => reporter.add('recovered', id, n),
    }));
    const rpc = (this.rpc = new Rpc(link, {
      prefix: s.prefix,
      nodeId: s.nodeId,
      timeout: s.requestTimeout,
      maxPending: s.maxPendingRequests,
    }));
    const startedAt = new Date().toISOString();
    const record = (): NodeRecord => {
      const stats = runtime.view.stats();
      const ids: string[] = [];
      for (const b of runtime.broadcasters()) {
        if (ids.length >= PRESENCE_BROADCASTER_IDS) break;
        if (!b.internal) ids.push(b.id);
      }
      return {
        id: s.nodeId,
        address: s.address || addressOf(fw),
        version: VERSION,
        startedAt,
        pid: process.pid,
        heartbeatAt: new Date().toISOString(),
        connections: stats.connections,
        broadcasters: stats.broadcasters,
        broadcasterIds: ids,
      };
    };
    const presence = (this.presence = new Presence(link, {
      prefix: s.prefix,
      nodeId: s.nodeId,
      interval: s.heartbeatInterval,
      timeout: s.nodeTimeout,
      record,
      onJoin: (id) => {
        if (!this.known.includes(id)) this.known.push(id);
        emit('node-joined', `node ${id} joined the cluster`);
      },
      onLeave: (id) => {
        this.known = this.known.filter((k) => k !== id);
        this.roomPresence?.nodeLeft(id);
        emit('node-left', `node ${id} left the cluster (no heartbeat within ${s.nodeTimeout} ms)`);
      },
    }));
    // Room members of every node (docs/rooms.md): the rooms layer takes it in place of its own.
    this.roomPresence = new ClusterRoomPresence(link, s.prefix, s.nodeId, async () => (await presence.nodes()).map((n) => n.id));
    fw.services.provide('rooms.presence', this.roomPresence);
    this.service = new Cluster({
      nodeId: s.nodeId,
      runtime: runtime.view,
      link,
      rpc,
      presence,
      broadcast,
      knownNodes: () => this.known,
      moved: () => this.mover?.moved ?? 0,
      log: <T extends object>(name: string) => this.log(s, name) as SharedLog<Stamped<T>>,
    });
    // Clients that come back with `since` (a restarted process, another node) read the streams.
    runtime.install({ adapter: broadcast, replayStore: broadcast.store });
    fw.services.provide('cluster', this.service);
    // Not ready while Redis is away: a balancer then sends new clients to a node that can reach
    // the rest of the cluster (this one goes on delivering locally meanwhile).
    this.unregisterReadiness = fw.readiness.register('redis', () =>
      link.state === 'up' ? { ready: true } : { ready: false, detail: 'Redis is unreachable' },
    );
    const cluster = this.service;
    this.unregisterMetrics = [
      fw.metrics.gauge('fw_cluster_redis_up', 'Whether this node reaches Redis (1) or not (0)', () => (link.state === 'up' ? 1 : 0)),
      fw.metrics.counter(
        'fw_cluster_broadcasts_published_total',
        'Broadcasts this node published to the cluster',
        () => cluster.status().published,
      ),
      fw.metrics.counter(
        'fw_cluster_broadcasts_received_total',
        'Broadcasts of other nodes this node received',
        () => cluster.status().received,
      ),
      fw.metrics.counter(
        'fw_cluster_clients_moved_total',
        'Connections this node dropped after losing Redis (fw.cluster.move-clients-after), so their clients reconnect to a node that reaches it',
        () => cluster.status().moved,
      ),
      fw.metrics.counter(
        'fw_cluster_broadcasts_unpublished_total',
        'Local broadcasts the other nodes never got (published while Redis was down)',
        () => cluster.status().unpublished,
      ),
    ];
    // Start degraded rather than not at all when Redis is away: local delivery goes on.
    if (await link.waitUp(s.requestTimeout)) await this.subscribe();
    else {
      logger.warn({ redis: redact(s.redisUrl) }, 'Redis is unreachable; running alone until it is back');
      // Not in the cluster from the start: its clients would miss the other nodes' broadcasts too.
      if (!link.up) mover.linkDown();
    }
    presence.start();
  }

  private log(s: ClusterSettings, name: string): SharedLog<object> {
    let log = this.logs.get(name);
    if (!log) this.logs.set(name, (log = new SharedLog(this.link!, `${s.prefix}:log:${name}`, s.sharedLogMaxEntries)));
    return log;
  }

  private async subscribe(): Promise<void> {
    try {
      await Promise.all([this.broadcast!.start(), this.rpc!.start(), this.syncEpoch(), this.roomPresence!.start()]);
    } catch {
      // Lost again already: the next 'up' subscribes.
    }
  }

  /**
   * Broadcast sequences are cluster-wide, so the epoch that names them must be too: otherwise a
   * client failing over to another node would have its cursors treated as foreign and get the
   * whole replay cache again. The first node to reach Redis names the epoch; after a Redis restart
   * the nodes put back the one they had (the sequences continue above their floors as well).
   */
  private async syncEpoch(): Promise<void> {
    const { cmd } = this.link!;
    await cmd.set(this.epochKey!, this.runtime!.epoch, 'NX');
    const epoch = await cmd.get(this.epochKey!);
    if (epoch) this.runtime!.adoptEpoch(epoch);
  }

  private onLink(state: LinkState, detail: string, emit: (change: ClusterChange, detail: string) => void): void {
    if (state === 'down') {
      this.mover?.linkDown();
      this.broadcast?.linkDown();
      this.rpc?.failAll('Redis is unreachable');
      this.logger?.warn({}, detail);
      emit('redis-down', detail);
      return;
    }
    emit('redis-up', detail);
    this.mover?.linkUp();
    this.presence?.reconnected();
    void (async () => {
      await this.subscribe();
      await this.broadcast?.linkUp();
      await this.presence?.tick();
    })();
  }

  async close(): Promise<void> {
    this.unregisterReadiness?.();
    for (const remove of this.unregisterMetrics.splice(0)) remove();
    await this.presence?.leave();
    this.roomPresence?.close();
    this.rpc?.close();
    this.mover?.close();
    this.broadcast?.close();
    this.reporter?.close();
    await this.link?.close();
  }
}

/**
 * Cluster mode, to install with `await fw.use(cluster())`. It is on when `fw.cluster.redis-url` is
 * set; without it the node runs alone and the module installs nothing, so one app runs either way.
 */
export function cluster(): ClusterModule {
  return new ClusterModule();
}

function addressOf(fw: Framework): string {
  const server = fw.listeningServers[0];
  const a = server?.address() as AddressInfo | null | undefined;
  if (!a) return '';
  const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return `http://${host}:${a.port}`;
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/** `host:port,host:port` → sentinel addresses; a malformed entry is a configuration error at start. */
export function parseSentinels(value: string): { host: string; port: number }[] {
  return parseHostPorts(value, 'fw.cluster.sentinels');
}

function parseHostPorts(value: string, key: string): { host: string; port: number }[] {
  if (!value.trim()) return [];
  return value.split(',').map((entry) => {
    const m = /^\s*(\[[^\]]+\]|[^:\s]+):(\d{1,5})\s*$/.exec(entry);
    const port = m ? Number(m[2]) : NaN;
    if (!m || port < 1 || port > 65535) throw new ClusterConfigError(`${key} must be comma-separated host:port entries: '${entry.trim()}'`);
    return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
  });
}
