import type { TransportName } from '../events.js';
import type { FwResource } from './resource.js';

const TOMBSTONES = 1024;

/**
 * Every live resource by uuid, plus an index by transport, so that the admin plane can page and
 * filter 100 000 resources without sorting or copying them (the map keeps connection order).
 * It also remembers, boundedly, why recently closed fw resources were closed, so that a client
 * polling or resuming a resource the server closed learns the reason instead of a bare 404.
 */
export class ResourceRegistry {
  private readonly byUuid = new Map<string, FwResource>();
  private readonly byTransport = new Map<TransportName, Set<FwResource>>();
  private readonly closed = new Map<string, string>();

  get size(): number {
    return this.byUuid.size;
  }

  get(uuid: string): FwResource | undefined {
    return this.byUuid.get(uuid);
  }

  values(): IterableIterator<FwResource> {
    return this.byUuid.values();
  }

  ofTransport(transport: TransportName): ReadonlySet<FwResource> {
    return this.byTransport.get(transport) ?? EMPTY;
  }

  add(resource: FwResource): void {
    this.byUuid.set(resource.uuid, resource);
    this.index(resource.transport).add(resource);
  }

  remove(resource: FwResource): void {
    if (this.byUuid.get(resource.uuid) !== resource) return;
    this.byUuid.delete(resource.uuid);
    this.byTransport.get(resource.transport)?.delete(resource);
  }

  /** A resumed resource may come back over another transport. */
  retransport(resource: FwResource, transport: TransportName): void {
    this.byTransport.get(resource.transport)?.delete(resource);
    resource.transport = transport;
    if (this.byUuid.get(resource.uuid) === resource) this.index(transport).add(resource);
  }

  tombstone(uuid: string, reason: string): void {
    this.closed.set(uuid, reason);
    if (this.closed.size > TOMBSTONES) this.closed.delete(this.closed.keys().next().value!);
  }

  /** Why a recently closed resource was closed by the server, if it was. */
  closedReason(uuid: string): string | undefined {
    return this.closed.get(uuid);
  }

  private index(transport: TransportName): Set<FwResource> {
    let set = this.byTransport.get(transport);
    if (!set) this.byTransport.set(transport, (set = new Set()));
    return set;
  }
}

const EMPTY: ReadonlySet<FwResource> = new Set();
