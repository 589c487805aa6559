import {
  FwError,
  LimitExceededError,
  NotFoundError,
  type BroadcasterInfo,
  type Page,
  type ResourceInfo,
  type ResourceQuery,
  type RuntimeView,
} from '@fw/runtime';
import type {
  ClusterBroadcaster,
  ClusterList,
  ClusterNode,
  ClusterOverview,
  ClusterPage,
  ClusterResource,
  ClusterService,
  ClusterStatus,
  ClusterTotals,
  ControlResult,
  NodeOverview,
  Stamped,
} from '@fw/runtime/adapter';
import type { ClusterBroadcast } from './cluster-broadcast.js';
import { NodeUnreachableError } from './errors.js';
import type { RedisLink } from './link.js';
import type { Presence } from './presence.js';
import type { Rpc, RpcHandler } from './rpc.js';
import type { SharedLog } from './shared-log.js';

export interface ClusterParts {
  nodeId: string;
  runtime: RuntimeView;
  link: RedisLink;
  rpc: Rpc;
  presence: Presence;
  broadcast: ClusterBroadcast;
  /** Node ids seen at the last heartbeat (used when Redis is down). */
  knownNodes(): string[];
  /** Connections dropped because the link was down (ClientMover). */
  moved(): number;
  log<T extends object>(name: string): SharedLog<Stamped<T>>;
}

/** The service over the parts; also registers the per-node methods the others call. */
export class Cluster implements ClusterService {
  readonly nodeId: string;

  constructor(private readonly p: ClusterParts) {
    this.nodeId = p.nodeId;
    const rt = p.runtime;
    p.rpc.handle('node.overview', () => ({ node: this.nodeId, stats: rt.stats(), cluster: this.status() }));
    p.rpc.handle('node.resources', (a) => rt.listResources(a as ResourceQuery));
    p.rpc.handle('node.resource', (a) => {
      const r = rt.getResource(String(a.uuid));
      if (!r) throw new NotFoundError('resource', String(a.uuid));
      return { ...r, node: this.nodeId };
    });
    p.rpc.handle('node.broadcasters', () => rt.listBroadcasters().filter((b) => !b.internal));
    p.rpc.handle('node.disconnect', (a) => {
      rt.disconnect(String(a.uuid), typeof a.reason === 'string' ? a.reason : undefined);
      return true;
    });
    p.rpc.handle('node.unicast', (a) => {
      const uuid = String(a.uuid);
      // This node's own rule, whoever routed the call here: the members of an internal
      // broadcaster (the admin event stream) take no message from outside.
      const resource = rt.getResource(uuid);
      if (resource?.broadcasters.some((id) => rt.getBroadcaster(id)?.internal === true))
        throw new FwError('internal_broadcaster', 'internal broadcasters are read-only', 403);
      rt.unicast(uuid, a.message as string | object);
      return true;
    });
  }

  status(): ClusterStatus {
    const { link, broadcast, rpc } = this.p;
    const c = broadcast.counters;
    return {
      nodeId: this.nodeId,
      redis: link.state,
      redisDownSince: link.downSince === undefined ? null : new Date(link.downSince).toISOString(),
      recoveries: link.recoveries,
      lastError: link.lastError || null,
      published: c.published,
      received: c.received,
      unpublished: c.unpublished,
      lost: c.lost,
      recovered: c.recovered,
      queued: c.queued,
      moved: this.p.moved(),
      pendingRequests: rpc.pendingCount,
    };
  }

  async nodes(): Promise<ClusterNode[]> {
    const records = this.p.link.up ? await this.p.presence.nodes().catch(() => undefined) : undefined;
    return (records ?? []).map((r) => ({ ...r, self: r.id === this.nodeId }));
  }

  async gather<T = unknown>(
    method: string,
    args: Record<string, unknown> = {},
  ): Promise<{ answers: { node: string; result: T }[]; missing: string[] }> {
    const ids = await this.liveIds();
    const settled = await Promise.allSettled(ids.map((id) => this.p.rpc.call<T>(id, method, args)));
    const answers: { node: string; result: T }[] = [];
    const missing: string[] = [];
    settled.forEach((s, i) => {
      if (s.status === 'fulfilled') answers.push({ node: ids[i]!, result: s.value });
      else missing.push(ids[i]!);
    });
    if (!this.p.link.up) for (const id of this.p.knownNodes()) if (id !== this.nodeId && !missing.includes(id)) missing.push(id);
    return { answers, missing };
  }

  async overview(): Promise<ClusterOverview> {
    const { answers, missing } = await this.gather<NodeOverview>('node.overview');
    const nodes = answers.map((a) => a.result);
    const totals: ClusterTotals = {
      nodes: nodes.length,
      connections: 0,
      broadcasters: 0,
      messagesIn: 0,
      messagesOut: 0,
      broadcasts: 0,
      dropped: 0,
      unpublished: 0,
      lost: 0,
    };
    for (const n of nodes) {
      totals.connections += n.stats.connections;
      totals.broadcasters += n.stats.broadcasters;
      totals.messagesIn += n.stats.messagesIn;
      totals.messagesOut += n.stats.messagesOut;
      totals.broadcasts += n.stats.broadcasts;
      totals.dropped += n.stats.dropped;
      totals.unpublished += n.cluster.unpublished;
      totals.lost += n.cluster.lost;
    }
    return { self: this.nodeId, redis: this.p.link.state, totals, nodes, missing };
  }

  /**
   * One page over all nodes, in node order then each node's own order. Two rounds: every node's
   * total for the filter, then only the nodes the page falls on are asked for their slice, so a
   * deep page costs the same as the first.
   */
  async listResources(query: ResourceQuery = {}): Promise<ClusterPage<ClusterResource>> {
    const offset = Math.max(0, Math.floor(query.offset ?? 0));
    const limit = Math.min(1000, Math.max(1, Math.floor(query.limit ?? 100)));
    const filter: ResourceQuery = { ...query, offset: 0, limit: 1 };
    const counted = await this.gather<Page<ResourceInfo>>('node.resources', { ...filter });
    const missing = [...counted.missing];
    const totals = counted.answers.map((a) => ({ node: a.node, total: a.result.total }));
    const total = totals.reduce((s, t) => s + t.total, 0);
    const slices: Promise<{ node: string; items: ResourceInfo[] } | undefined>[] = [];
    let start = 0;
    for (const t of totals) {
      const from = Math.max(offset, start);
      const to = Math.min(offset + limit, start + t.total);
      if (to > from) {
        slices.push(
          this.p.rpc.call<Page<ResourceInfo>>(t.node, 'node.resources', { ...query, offset: from - start, limit: to - from }).then(
            (page) => ({ node: t.node, items: page.items }),
            () => {
              missing.push(t.node);
              return undefined;
            },
          ),
        );
      }
      start += t.total;
    }
    const items: ClusterResource[] = [];
    for (const s of await Promise.all(slices)) if (s) for (const r of s.items) items.push({ ...r, node: s.node });
    return { items, total, offset, limit, missing };
  }

  getResource(uuid: string): Promise<ControlResult<ClusterResource>> {
    return this.route<ClusterResource>('node.resource', { uuid });
  }

  async listBroadcasters(): Promise<ClusterList<ClusterBroadcaster>> {
    const { answers, missing } = await this.gather<BroadcasterInfo[]>('node.broadcasters');
    const items: ClusterBroadcaster[] = [];
    for (const a of answers) for (const b of a.result) items.push({ ...b, node: a.node });
    return { items, missing };
  }

  disconnect(uuid: string, reason?: string): Promise<ControlResult> {
    return this.route('node.disconnect', reason === undefined ? { uuid } : { uuid, reason });
  }

  unicast(uuid: string, message: string | object): Promise<ControlResult> {
    return this.route('node.unicast', { uuid, message });
  }

  async broadcast(broadcasterId: string, message: string | object): Promise<{ bid: number }> {
    const payload = typeof message === 'string' ? message : JSON.stringify(message);
    return { bid: await this.p.broadcast.publishTo(broadcasterId, payload) };
  }

  handle(method: string, handler: RpcHandler): () => void {
    return this.p.rpc.handle(method, handler);
  }

  async route<T = unknown>(method: string, args: Record<string, unknown>): Promise<ControlResult<T>> {
    try {
      const result = await this.p.rpc.call<T>(this.nodeId, method, args);
      return { outcome: 'done', node: this.nodeId, missing: [], result };
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const others = (await this.liveIds()).filter((id) => id !== this.nodeId);
    const missing: string[] = [];
    // The first node that holds the target wins; the others answer not_found.
    const found = await new Promise<ControlResult<T> | { refused: FwError } | undefined>((resolve) => {
      let open = others.length;
      if (open === 0) resolve(undefined);
      for (const id of others) {
        this.p.rpc.call<T>(id, method, args).then(
          (result) => resolve({ outcome: 'done', node: id, missing: [], result }),
          (err: unknown) => {
            // The node holds the target and refused (403) or could not do it (409, 400…): that is
            // the answer, as it would be from that node directly, not a node that did not answer.
            if (isTargetAnswer(err)) resolve({ refused: err });
            else if (!isNotFound(err)) missing.push(id);
            if (--open === 0) resolve(undefined);
          },
        );
      }
    });
    if (found && 'refused' in found) throw found.refused;
    if (found) return found;
    if (!this.p.link.up) for (const id of this.p.knownNodes()) if (id !== this.nodeId && !missing.includes(id)) missing.push(id);
    return { outcome: missing.length > 0 ? 'node_unreachable' : 'not_found', node: null, missing };
  }

  log<T extends object>(name: string): SharedLog<Stamped<T>> {
    return this.p.log<T>(name);
  }

  append<T extends object>(name: string, entry: T): Promise<boolean> {
    return this.p.log<T>(name).append({ ...entry, node: this.nodeId });
  }

  /** Live node ids; only this node when Redis is down (the others cannot be reached anyway). */
  private async liveIds(): Promise<string[]> {
    const nodes = await this.nodes();
    const ids = nodes.map((n) => n.id);
    if (!ids.includes(this.nodeId)) ids.unshift(this.nodeId);
    return ids;
  }
}

function isNotFound(err: unknown): boolean {
  return err instanceof FwError && (err.code === 'not_found' || err.status === 404);
}

/** A node's own answer about a target it holds (a 4xx other than 404), as opposed to no answer (a timeout, a limit of this node). */
function isTargetAnswer(err: unknown): err is FwError {
  return (
    err instanceof FwError &&
    !(err instanceof NodeUnreachableError) &&
    !(err instanceof LimitExceededError) &&
    err.status >= 400 &&
    err.status < 500 &&
    !isNotFound(err)
  );
}
