/**
 * The AG-UI runs in flight of one framework (all agents): who owns each, how to stop it, and its
 * share of `fw.agent.agui.max-runs`.
 *
 * AG-UI lets the client choose `threadId` and `runId`, so a run id proves nothing: runs are kept
 * per owner (two callers may use the same run id without meeting), and cancelling one needs its
 * owner. A principal owns its runs. An anonymous run gets an owner key from the server (128
 * random bits, sent to that client only, in RUN_STARTED's `metadata`) that its cancel must
 * present. A cancel that names a run the caller does not own is answered like an unknown run.
 *
 * The admin plane sees every run under a key of its own: `{agent}:{runId}`, or, when another
 * owner's run of that agent already has the run id, `{agent}:{runId}~{n}`.
 */
import { anonymousOwner, newOwnerKey, principalOwner, type Lease, type Owner, type Principal } from '@fw/runtime';
import type { AgentHost } from '../host.js';
import { reachableBy } from '../tenancy/ownership.js';

export interface AguiRun {
  /** The admin plane's key (unique among the runs in flight). */
  readonly key: string;
  readonly agentName: string;
  readonly runId: string;
  readonly threadId: string;
  readonly startedAt: number;
  readonly owner: Owner;
  /** The key an anonymous owner's cancel must present; undefined for a principal's run. */
  readonly ownerKey: string | undefined;
  readonly abort: AbortController;
  readonly lease: Lease;
}

export class AguiRuns {
  /** By admin key. */
  private readonly byKey = new Map<string, AguiRun>();
  /** By agent, owner and run id: what a client can name. */
  private readonly byOwner = new Map<string, AguiRun>();
  private serial = 0;

  /**
   * Registers a run for `principal` (anonymous: a fresh owner key). Returns undefined when the same
   * owner already runs this run id on this agent.
   */
  start(agentName: string, runId: string, threadId: string, principal: Principal | undefined, lease: Lease): AguiRun | undefined {
    const ownerKey = principal ? undefined : newOwnerKey();
    const owner = principal ? principalOwner(principal.id) : anonymousOwner(ownerKey!);
    // An anonymous owner is new for every run, so only a principal can collide with itself.
    const id = ownerIndex(agentName, owner, runId);
    if (this.byOwner.has(id)) return undefined;
    let key = `${agentName}:${runId}`;
    if (this.byKey.has(key)) key = `${agentName}:${runId}~${++this.serial}`;
    const run: AguiRun = { key, agentName, runId, threadId, startedAt: Date.now(), owner, ownerKey, abort: new AbortController(), lease };
    this.byKey.set(key, run);
    this.byOwner.set(id, run);
    return run;
  }

  /**
   * The caller's run of this agent with this run id: a principal's own run, or an anonymous run
   * whose owner key the caller presents. Anything else (unknown, another owner's) is undefined,
   * the same answer for both.
   */
  find(agentName: string, runId: string, principal: Principal | undefined, presentedKey: string | undefined): AguiRun | undefined {
    if (principal) {
      const run = this.byOwner.get(ownerIndex(agentName, principalOwner(principal.id), runId));
      return run && reachableBy(run.owner, principal) ? run : undefined;
    }
    if (presentedKey === undefined) return undefined;
    const run = this.byOwner.get(ownerIndex(agentName, anonymousOwner(presentedKey), runId));
    return run && reachableBy(run.owner, undefined, presentedKey) ? run : undefined;
  }

  /** A run by its admin key (the admin plane: every owner). */
  get(key: string): AguiRun | undefined {
    return this.byKey.get(key);
  }

  /** Every run in flight, oldest first (the admin plane). */
  all(): AguiRun[] {
    return [...this.byKey.values()];
  }

  get size(): number {
    return this.byKey.size;
  }

  /** Forgets a run that ended and gives its share back. */
  end(run: AguiRun): void {
    if (this.byKey.get(run.key) !== run) return;
    this.byKey.delete(run.key);
    this.byOwner.delete(ownerIndex(run.agentName, run.owner, run.runId));
    run.lease.release();
  }
}

function ownerIndex(agentName: string, owner: Owner, runId: string): string {
  return `${agentName}\u0000${owner}\u0000${runId}`;
}

const registries = new WeakMap<AgentHost, AguiRuns>();

/** The runs in flight of a host (one registry per framework). */
export function aguiRuns(host: AgentHost): AguiRuns {
  let r = registries.get(host);
  if (!r) registries.set(host, (r = new AguiRuns()));
  return r;
}
