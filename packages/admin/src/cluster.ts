import { FwError, NotFoundError, type BroadcasterInfo, type Page, type ResourceInfo, type ResourceQuery } from '@fw/runtime';

/** What a routed control action came to. */
export interface ClusterOutcome<T = unknown> {
  outcome: 'done' | 'not_found' | 'node_unreachable';
  /** The node that did it. */
  node: string | null;
  /** Nodes that did not answer in time. */
  missing: string[];
  result?: T;
}

export type NodeResource = ResourceInfo & { node: string };
export type NodeBroadcaster = BroadcasterInfo & { node: string };

/**
 * The parts of the `cluster` service (`@fw/redis`, cluster mode) the admin plane uses. Structural,
 * so admin does not depend on @fw/redis; absent on a single node, where every answer is local.
 * Lists never fail whole: they name the nodes that did not answer in `missing`.
 */
export interface AdminCluster {
  readonly nodeId: string;
  nodes(): Promise<object[]>;
  overview(): Promise<{ totals: object; nodes: object[]; missing: string[] }>;
  listResources(query: ResourceQuery): Promise<Page<NodeResource> & { missing: string[] }>;
  getResource(uuid: string): Promise<ClusterOutcome<NodeResource>>;
  listBroadcasters(): Promise<{ items: NodeBroadcaster[]; missing: string[] }>;
  disconnect(uuid: string, reason?: string): Promise<ClusterOutcome>;
  unicast(uuid: string, message: string | object): Promise<ClusterOutcome>;
  broadcast(broadcasterId: string, message: string | object): Promise<{ bid: number }>;
  route<T = unknown>(method: string, args: Record<string, unknown>): Promise<ClusterOutcome<T>>;
  gather<T = unknown>(method: string, args?: Record<string, unknown>): Promise<{ answers: { node: string; result: T }[]; missing: string[] }>;
  append(name: string, entry: object): Promise<boolean>;
  log(name: string): { list(limit?: number, offset?: number): Promise<object[]> };
}

/** A routed action's result, or the error the admin API answers with (404, or 504 naming the silent nodes). */
export function settled<T>(r: ClusterOutcome<T>, what: string, id: string): ClusterOutcome<T> {
  if (r.outcome === 'done') return r;
  if (r.outcome === 'not_found') throw new NotFoundError(what, id);
  throw new FwError('node_unreachable', `${what} '${id}' is on no node that answered; ${r.missing.join(', ')} did not answer in time`, 504, { missing: r.missing });
}

/** The cluster service when cluster mode is on (looked up at call time, like every service). */
export function clusterOf(views: { service<T>(name: string): T | undefined }): AdminCluster | undefined {
  return views.service<AdminCluster>('cluster');
}
