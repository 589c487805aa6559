import { randomUUID } from 'node:crypto';
import { FairShare, type Framework, FwError, type Lease, type Resource, ShareExceededError } from '@fw/runtime';
import { MCP_CONFIG } from './config.js';

/** A `tool-call` that was not answered within the bridge timeout. */
export class BridgeTimeoutError extends FwError {
  constructor(
    readonly callId: string,
    toolName: string,
    timeoutMs: number,
  ) {
    super('bridge_timeout', `client tool '${toolName}' did not answer within ${timeoutMs} ms`, 504, { callId, toolName, timeoutMs });
  }
}

/** The connection went away (or could not be written to) while the call was pending. */
export class BridgeDisconnectedError extends FwError {
  constructor(
    readonly callId: string,
    toolName: string,
    reason: string,
  ) {
    super('bridge_disconnected', `client tool '${toolName}' cannot answer: ${reason}`, 502, { callId, toolName, reason });
  }
}

/** The client answered with `{type:'tool-response', id, error}` (no handler, or its handler failed). */
export class BridgeClientError extends FwError {
  constructor(
    readonly callId: string,
    toolName: string,
    message: string,
  ) {
    super('bridge_client_error', `client tool '${toolName}' failed: ${message}`, 502, { callId, toolName });
  }
}

/**
 * Too many calls pending: on the whole bridge (`maxPending`, `fw.mcp.bridge.max-pending`), or to
 * the clients of one principal / one anonymous address, whose share of it is used up
 * (`fw.mcp.bridge.max-pending-per-principal` / `-per-address`).
 */
export class BridgeLimitError extends FwError {
  constructor(
    limit: number,
    readonly share: 'total' | 'principal' | 'address' = 'total',
  ) {
    super(
      'bridge_pending_limit',
      share === 'total'
        ? `the bridge already has ${limit} pending calls (fw.mcp.bridge.max-pending)`
        : `the clients of this ${share === 'principal' ? 'principal' : 'client address'} already have ${limit} pending calls, their share (fw.mcp.bridge.max-pending-per-${share})`,
      429,
      { limit, share, key: share === 'total' ? 'fw.mcp.bridge.max-pending' : `fw.mcp.bridge.max-pending-per-${share}` },
    );
  }
}

export interface PendingCall {
  id: string;
  resourceUuid: string;
  toolName: string;
  startedAt: number;
  timeoutMs: number;
}

export interface BridgeOptions {
  /** Milliseconds a call waits for its `tool-response`; default 30 000. */
  timeout?: number;
  /** Most calls pending at once on this bridge; default `fw.mcp.bridge.max-pending` (10 000). */
  maxPending?: number;
  /** The share of them the clients of one principal may hold; default `fw.mcp.bridge.max-pending-per-principal` (1000); 0: none. */
  maxPendingPerPrincipal?: number;
  /** The share of them the anonymous clients of one address (IPv6: its /64) may hold; default `fw.mcp.bridge.max-pending-per-address` (1000); 0: none. */
  maxPendingPerAddress?: number;
  /**
   * The framework whose admin plane lists this bridge's pending calls
   * (`/api/admin/mcp/bridge/pending`) and whose configuration gives the defaults above.
   */
  framework?: Framework;
}

export interface BridgeStats {
  pending: number;
  completed: number;
  timedOut: number;
  disconnected: number;
  /** `tool-response`s that were malformed or named no pending call. */
  ignoredResponses: number;
}

interface Pending extends PendingCall {
  resource: Resource;
  /** The called client's share of the pending calls, given back when the call settles. */
  lease: Lease;
  resolve(result: string): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

interface Watch {
  calls: Set<string>;
  off: () => void;
}

/** The live bridges of a framework, kept on the framework (its service `'mcp.bridges'`), weakly. */
function bridgesOf(fw: Framework): Set<WeakRef<BiDirectionalToolBridge>> {
  let set = fw.services.get('mcp.bridges');
  if (!set) {
    set = new Set();
    fw.services.provide('mcp.bridges', set);
  }
  return set;
}

/** Pending calls of every live bridge created for `fw` (the admin view). */
export function pendingBridgeCalls(fw: Framework): PendingCall[] {
  const out: PendingCall[] = [];
  const bridges = bridgesOf(fw);
  for (const ref of bridges) {
    const b = ref.deref();
    if (b) out.push(...b.pendingCalls());
    else bridges.delete(ref);
  }
  return out;
}

/**
 * Calls tools that live on a connected client (spec §2.4/§4.4): sends
 * `{type:'tool-call', id, toolName, arguments}` over the runtime transport (a `tool-call` frame
 * for fw clients, docs/protocol.md) and resolves with the `result` of the `tool-response`
 * carrying the same id. Answers reach only the pending call: never the handler, never a
 * broadcaster. Each call settles exactly once: answer,
 * timeout (BridgeTimeoutError) or disconnect (BridgeDisconnectedError, at once). Node runs this
 * on one thread, so the bookkeeping is a map keyed by id and needs no locks; what "thread-safe"
 * means here is that concurrent calls and late, duplicate or foreign answers can never settle the
 * wrong call or leak one.
 */
export class BiDirectionalToolBridge {
  readonly timeoutMs: number;
  readonly maxPending: number;
  readonly maxPendingPerPrincipal: number;
  readonly maxPendingPerAddress: number;
  /**
   * Pending calls, shared out per called client: a client that never answers holds its calls
   * until they time out, so without shares the clients of one principal (or one address) could
   * hold every pending slot and every other client's tools would be refused.
   */
  private readonly share: FairShare;
  private readonly pending = new Map<string, Pending>();
  private readonly watches = new Map<Resource, Watch>();
  private readonly counters = { completed: 0, timedOut: 0, disconnected: 0, ignoredResponses: 0 };

  constructor(options: number | BridgeOptions = {}) {
    const o = typeof options === 'number' ? { timeout: options } : options;
    const config = o.framework?.config;
    config?.declare(MCP_CONFIG);
    this.timeoutMs = o.timeout ?? 30_000;
    this.maxPending = o.maxPending ?? config?.get('fw.mcp.bridge.max-pending') ?? 10_000;
    this.maxPendingPerPrincipal = Math.max(0, o.maxPendingPerPrincipal ?? config?.get('fw.mcp.bridge.max-pending-per-principal') ?? 1000);
    this.maxPendingPerAddress = Math.max(0, o.maxPendingPerAddress ?? config?.get('fw.mcp.bridge.max-pending-per-address') ?? 1000);
    if (!(this.timeoutMs > 0)) throw new RangeError('the bridge timeout must be a positive number of milliseconds');
    this.share = new FairShare('fw.mcp.bridge.max-pending', () => ({
      max: this.maxPending,
      perPrincipal: this.maxPendingPerPrincipal,
      perAddress: this.maxPendingPerAddress,
    }));
    if (o.framework) bridgesOf(o.framework).add(new WeakRef(this));
  }

  callClientTool(resource: Resource, toolName: string, args: Record<string, unknown> = {}): Promise<string> {
    const id = randomUUID();
    if (resource.closed) return Promise.reject(new BridgeDisconnectedError(id, toolName, 'the connection is closed'));
    let lease: Lease;
    try {
      // The called client's principal, or its address when anonymous (IPv6 by /64).
      lease = this.share.acquire({ principal: resource.principal, address: resource.remoteAddress });
    } catch (err) {
      if (err instanceof ShareExceededError) return Promise.reject(new BridgeLimitError(err.value, err.share));
      throw err;
    }
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.settle(id)) {
          this.counters.timedOut++;
          reject(new BridgeTimeoutError(id, toolName, this.timeoutMs));
        }
      }, this.timeoutMs);
      const call: Pending = {
        id,
        resourceUuid: resource.uuid,
        toolName,
        startedAt: Date.now(),
        timeoutMs: this.timeoutMs,
        resource,
        lease,
        resolve,
        reject,
        timer,
      };
      this.pending.set(id, call);
      this.watch(resource).calls.add(id);
      // Its own frame type for fw clients, so the answer comes back as a `tool-response` frame
      // that only this bridge sees; raw clients get the §2.4 JSON as a message.
      const written = resource.writeToolCall(JSON.stringify({ type: 'tool-call', id, toolName, arguments: args }));
      if (!written && this.settle(id)) {
        this.counters.disconnected++;
        reject(new BridgeDisconnectedError(id, toolName, 'the message could not be delivered'));
      }
    });
  }

  pendingCount(): number {
    return this.pending.size;
  }

  pendingCalls(): PendingCall[] {
    return [...this.pending.values()].map(({ id, resourceUuid, toolName, startedAt, timeoutMs }) => ({
      id,
      resourceUuid,
      toolName,
      startedAt,
      timeoutMs,
    }));
  }

  stats(): BridgeStats {
    return { pending: this.pending.size, ...this.counters };
  }

  /** Rejects every pending call and stops listening (the bridge stays usable). */
  close(reason = 'bridge closed'): void {
    for (const call of [...this.pending.values()]) {
      if (this.settle(call.id)) {
        this.counters.disconnected++;
        call.reject(new BridgeDisconnectedError(call.id, call.toolName, reason));
      }
    }
  }

  /** One message listener and one close listener per resource, however many calls are pending. */
  private watch(resource: Resource): Watch {
    let w = this.watches.get(resource);
    if (w) return w;
    const offMessage = resource.onToolResponse((data) => this.onToolResponse(data));
    const offClose = resource.onClose((reason) => {
      const ids = [...(this.watches.get(resource)?.calls ?? [])];
      for (const id of ids) {
        const call = this.pending.get(id);
        if (call && this.settle(id)) {
          this.counters.disconnected++;
          call.reject(new BridgeDisconnectedError(id, call.toolName, `the client disconnected (${reason})`));
        }
      }
      this.unwatch(resource);
    });
    w = {
      calls: new Set(),
      off: () => {
        offMessage();
        offClose();
      },
    };
    this.watches.set(resource, w);
    return w;
  }

  private unwatch(resource: Resource): void {
    const w = this.watches.get(resource);
    if (!w) return;
    this.watches.delete(resource);
    w.off();
  }

  /** True when `data` answered one of this bridge's pending calls (a raw client's message is then not the app's). */
  private onToolResponse(data: string): boolean {
    let msg: unknown;
    try {
      msg = JSON.parse(data);
    } catch {
      return false;
    }
    if (!msg || typeof msg !== 'object' || (msg as { type?: unknown }).type !== 'tool-response') return false;
    const { id, result, error } = msg as { id?: unknown; result?: unknown; error?: unknown };
    const call = typeof id === 'string' ? this.pending.get(id) : undefined;
    const hasResult = 'result' in (msg as object);
    if (!call || (!hasResult && typeof error !== 'string')) {
      this.counters.ignoredResponses++;
      return false;
    }
    this.settle(call.id);
    this.counters.completed++;
    if (!hasResult) {
      call.reject(new BridgeClientError(call.id, call.toolName, error as string));
      return true;
    }
    // A result nested too deep for JSON.stringify (a stack overflow) fails the call; it must not
    // leave it pending forever (it is already settled, so no timeout would end it).
    let text: string;
    try {
      text = typeof result === 'string' ? result : (JSON.stringify(result) ?? '');
    } catch {
      call.reject(new BridgeClientError(call.id, call.toolName, 'the answer nests too deep to serialize'));
      return true;
    }
    call.resolve(text);
    return true;
  }

  /** Removes a call from the books; true only the first time (each call settles once). */
  private settle(id: string): boolean {
    const call = this.pending.get(id);
    if (!call) return false;
    this.pending.delete(id);
    clearTimeout(call.timer);
    call.lease.release();
    const w = this.watches.get(call.resource);
    if (w) {
      w.calls.delete(id);
      if (w.calls.size === 0) this.unwatch(call.resource);
    }
    return true;
  }
}
