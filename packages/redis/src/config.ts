import { defineConfig, type ConfigTypes } from '@fw/runtime';

/** Cluster mode's configuration keys; documented in docs/cluster.md. */
export const CLUSTER_CONFIG = defineConfig({
  'fw.cluster.redis-url': {
    type: 'string',
    default: '',
    description: 'Redis URL (`redis://host:port/db`, `rediss://` for TLS); cluster mode is on when set',
  },
  'fw.cluster.sentinels': {
    type: 'string',
    default: '',
    description:
      'Redis Sentinel: comma-separated `host:port` of the sentinels; when set, the master is the one they name for fw.cluster.sentinel-name (fw.cluster.redis-url then gives only the password, db and TLS; its host and port are not used) and ioredis follows failovers',
  },
  'fw.cluster.sentinel-name': {
    type: 'string',
    default: 'mymaster',
    description: 'Redis Sentinel: the monitored master group name (`sentinel monitor <name> …`)',
  },
  'fw.cluster.redis-cluster-nodes': {
    type: 'string',
    default: '',
    description:
      "Redis Cluster: comma-separated `host:port` seed nodes; when set, fw connects with ioredis's Cluster client (fw.cluster.redis-url then gives only the password and TLS) and every key and channel of fw carries the hash tag `{prefix}`, so its scripts and multi-key commands run on one shard",
  },
  'fw.cluster.node-id': {
    type: 'string',
    default: '',
    shownDefault: '<hostname>-<pid>-<random>',
    description: "This node's id in the cluster (letters, digits, `.` `_` `-`, at most 64)",
  },
  'fw.cluster.address': {
    type: 'string',
    default: '',
    description: 'Address announced to the other nodes; default `http://<host>:<port>` of the server fw listens on',
  },
  'fw.cluster.prefix': {
    type: 'string',
    default: 'fw',
    description: 'Prefix of every Redis key and channel: clusters sharing one Redis need different prefixes',
  },
  'fw.cluster.heartbeat-interval': {
    type: 'duration',
    default: 3000,
    description: 'How often a node refreshes its presence record and checks the others',
  },
  'fw.cluster.node-timeout': {
    type: 'duration',
    default: 10000,
    description: 'A node whose presence was not refreshed for this long counts as gone',
  },
  'fw.cluster.request-timeout': {
    type: 'duration',
    default: 2000,
    description: 'How long a cross-node request (lists, control) waits for a node before naming it missing',
  },
  'fw.cluster.gap-timeout': {
    type: 'duration',
    default: 1000,
    description: 'How long a node holds back later broadcasts while waiting for a missing sequence before counting it lost',
  },
  'fw.cluster.reconnect-max-delay': {
    type: 'duration',
    default: 5000,
    description: 'Upper bound of the exponential backoff between Redis reconnect attempts',
  },
  'fw.cluster.keepalive-interval': {
    type: 'duration',
    default: 1000,
    description:
      'How often each Redis connection (the subscriber too) is sent a PING, so a Redis that stops answering without closing the connection (paused, a silent network cut) is noticed',
  },
  'fw.cluster.keepalive-timeout': {
    type: 'duration',
    default: 2000,
    description:
      'How long a Redis connection may leave a command (a keepalive PING, its handshake, any command) unanswered before it is reset: the link is down, /fw/ready answers 503, and it reconnects with backoff',
  },
  'fw.cluster.move-clients-after': {
    type: 'duration',
    default: 2000,
    description:
      "How long a node cut from Redis keeps its clients: then it drops the connections that subscribe to a broadcaster (WebSocket 1012, a `reconnect` frame) and refuses new ones (503 `cluster_unavailable`) until the link is back, so clients move to a node that reaches Redis and catch up there; 0: never (clients stay, and the other nodes' broadcasts reach them only once the link is back)",
  },
  'fw.cluster.shadow-broadcasters': {
    type: 'number',
    default: 1000,
    description:
      'Broadcasters without local members whose recent cluster broadcasts (fw.broadcaster.replay-cache each) a node keeps, so clients failing over to it replay what they missed; 0 turns this off',
  },
  'fw.cluster.replay-retention': {
    type: 'number',
    default: 10000,
    description:
      'Broadcasts kept per broadcaster in its Redis Stream (XADD MAXLEN ~), read back by clients that resume on a restarted process or another node and by nodes recovering from a Redis outage; 0: no streams',
  },
  'fw.cluster.outbox': {
    type: 'number',
    default: 10000,
    description:
      'Local broadcasts a node holds while Redis is away and publishes, in order, once it is back (with replay streams); beyond it they reach only local members (counted unpublished); 0: off',
  },
  'fw.cluster.max-pending-requests': {
    type: 'number',
    default: 1000,
    description: 'Cross-node requests this node may have waiting for answers; more are refused',
  },
  'fw.cluster.shared-log.max-entries': {
    type: 'number',
    default: 10000,
    description: 'Entries kept in each shared log in Redis (audit log, coordination journal)',
  },
});

declare module '@fw/runtime' {
  interface FwConfigKeys extends ConfigTypes<typeof CLUSTER_CONFIG> {}
}
export interface ClusterSettings {
  redisUrl: string;
  sentinels: { host: string; port: number }[];
  sentinelName: string;
  /** Redis Cluster seed nodes (empty: not a Redis Cluster). */
  clusterNodes: { host: string; port: number }[];
  nodeId: string;
  address: string;
  prefix: string;
  heartbeatInterval: number;
  nodeTimeout: number;
  requestTimeout: number;
  gapTimeout: number;
  reconnectMaxDelay: number;
  keepaliveInterval: number;
  keepaliveTimeout: number;
  moveClientsAfter: number;
  maxPendingRequests: number;
  shadowBroadcasters: number;
  sharedLogMaxEntries: number;
  replayRetention: number;
  outbox: number;
}
