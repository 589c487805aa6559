import type { BroadcasterInfo, Page, ResourceInfo, ResourceQuery, RuntimeStats } from './model.js';

/**
 * The cluster contract: what a scaling module (the Redis cluster package) publishes as the service `'cluster'`
 * and what the admin plane and the agent layer program against. It lives in the kernel, next to
 * the broadcast adapter, because every side of it depends on the runtime and none on the others.
 * Answers never fail whole because a node is slow or gone: they name it in `missing`. Control
 * actions are routed to the node holding the target and report the outcome.
 */
export interface ClusterService {
  readonly nodeId: string;
  status(): ClusterStatus;
  nodes(): Promise<ClusterNode[]>;
  overview(): Promise<ClusterOverview>;
  listResources(query?: ResourceQuery): Promise<ClusterPage<ClusterResource>>;
  getResource(uuid: string): Promise<ControlResult<ClusterResource>>;
  listBroadcasters(): Promise<ClusterList<ClusterBroadcaster>>;
  disconnect(uuid: string, reason?: string): Promise<ControlResult>;
  unicast(uuid: string, message: string | object): Promise<ControlResult>;
  /** Broadcasts to every member on every node, even when this node has none. */
  broadcast(broadcasterId: string, message: string | object): Promise<{ bid: number }>;
  /**
   * Registers a routable control method (e.g. the agent layer's `agent.cancel-task`): it returns
   * its result, or throws NotFoundError when this node does not hold the target.
   */
  handle(method: string, handler: ClusterMethod): () => void;
  /**
   * Runs `method` on whichever node holds the target: this one first, then all others at once.
   * A node that holds it and answers with an error of its own (a 4xx other than 404: a refusal,
   * a conflict) makes the call reject with that error, as a call on that node would.
   */
  route<T = unknown>(method: string, args: Record<string, unknown>): Promise<ControlResult<T>>;
  /** Calls `method` on every live node; answers per node plus the ones that did not answer. */
  gather<T = unknown>(
    method: string,
    args?: Record<string, unknown>,
  ): Promise<{ answers: { node: string; result: T }[]; missing: string[] }>;
  /** Shared logs (audit, journal, or any name). */
  log<T extends object>(name: string): ClusterLog<Stamped<T>>;
  /** Appends to a shared log, stamping the entry with this node. False when the cluster link is down. */
  append<T extends object>(name: string, entry: T): Promise<boolean>;
}

/** A control method other nodes may call through `route` / `gather`. */
export type ClusterMethod = (args: Record<string, unknown>) => unknown;

/** An append-only log shared by every node; `list` is newest first and throws when the link is down. */
export interface ClusterLog<T extends object> {
  append(entry: T): Promise<boolean>;
  list(limit?: number, offset?: number): Promise<T[]>;
  size(): Promise<number>;
}

/** An entry of a shared log, stamped with the node that wrote it. */
export type Stamped<T> = T & { node: string };

/** The real outcome of a routed control action. */
export type ControlOutcome = 'done' | 'not_found' | 'node_unreachable';

export interface ControlResult<T = unknown> {
  outcome: ControlOutcome;
  /** The node that holds the target (when done). */
  node: string | null;
  /** Nodes that did not answer in time (the target may be on one of them). */
  missing: string[];
  result?: T;
}

/** This node's view of its cluster link: what the overview and the nodes list show. */
export interface ClusterStatus {
  nodeId: string;
  redis: 'up' | 'down';
  redisDownSince: string | null;
  /** Times the Redis link came back after being lost. */
  recoveries: number;
  lastError: string | null;
  published: number;
  received: number;
  /** Local broadcasts the other nodes never got (published while Redis was down). */
  unpublished: number;
  /** Broadcasts of other nodes that never reached this node. */
  lost: number;
  /** Broadcasts missed while Redis was away and read back from the replay streams. */
  recovered: number;
  /** Local broadcasts waiting in the outbox for Redis. */
  queued: number;
  /** Connections this node dropped after losing Redis, so their clients moved to a node that reaches it. */
  moved: number;
  pendingRequests: number;
}

/** A node's presence record, rewritten at every heartbeat. */
export interface NodeRecord {
  id: string;
  address: string;
  version: string;
  startedAt: string;
  pid: number;
  /** When this record was written (ISO-8601). */
  heartbeatAt: string;
  connections: number;
  broadcasters: number;
  /** Broadcaster ids with members on this node (capped), so lists can be answered for the cluster. */
  broadcasterIds: string[];
}

export interface ClusterNode extends NodeRecord {
  self: boolean;
}

export interface NodeOverview {
  node: string;
  stats: RuntimeStats;
  cluster: ClusterStatus;
}

export interface ClusterTotals {
  nodes: number;
  connections: number;
  broadcasters: number;
  messagesIn: number;
  messagesOut: number;
  broadcasts: number;
  dropped: number;
  unpublished: number;
  lost: number;
}

export interface ClusterOverview {
  self: string;
  redis: 'up' | 'down';
  totals: ClusterTotals;
  nodes: NodeOverview[];
  /** Nodes that did not answer in time: the totals leave them out. */
  missing: string[];
}

export type ClusterResource = ResourceInfo & { node: string };
export type ClusterBroadcaster = BroadcasterInfo & { node: string };

export interface ClusterPage<T> extends Page<T> {
  missing: string[];
}

export interface ClusterList<T> {
  items: T[];
  missing: string[];
}
