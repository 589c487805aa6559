import type { RunHooks, RunScope } from '@fw/agent';
import type { KillSwitch } from './kill-switch.js';

/**
 * The kill switch at the agent host's run-hooks seam: a run of a covered agent is refused at its
 * start, at each model call and at each tool call (a run that started just before the switch was
 * armed stops at its next step), and every run in flight that the switch covers is stopped when
 * it is armed. Stopping a run through its scope ends it `cancelled` with the switch's reason, which
 * is what its client is told. `ready` is awaited before a run is admitted: a node that is still
 * reading its state (from the store, from the cluster) admits nothing it would refuse.
 */
export class KillSwitchHooks implements RunHooks {
  readonly name = 'governance.kill-switch';
  private readonly live = new Set<RunScope>();
  private pending: Promise<unknown>[] = [];

  constructor(private readonly killSwitch: KillSwitch) {}

  /** Runs wait for `load` before they are admitted (a rejected load admits them: the state stays the last one known). */
  waitFor(load: Promise<unknown>): void {
    const settled = load.catch(() => undefined);
    this.pending.push(settled);
    void settled.then(() => {
      this.pending = this.pending.filter((p) => p !== settled);
    });
  }

  async runStarted(run: RunScope): Promise<void> {
    if (this.pending.length > 0) await Promise.all(this.pending);
    this.refuseIfCovered(run);
    this.live.add(run);
  }

  beforeModelCall(run: RunScope): void {
    this.refuseIfCovered(run);
  }

  beforeToolCall(run: RunScope): void {
    this.refuseIfCovered(run);
  }

  runEnded(run: RunScope): void {
    this.live.delete(run);
  }

  /** Stops every run in flight that the switch now covers; answers how many. */
  stopCovered(): number {
    let stopped = 0;
    for (const run of this.live) {
      const refusal = this.killSwitch.refusalFor(run.agent);
      if (!refusal || run.signal.aborted) continue;
      run.abort(refusal);
      stopped++;
    }
    return stopped;
  }

  /** Runs in flight that passed the hooks (for the health report). */
  get inFlight(): number {
    return this.live.size;
  }

  /** Stopped, not merely refused: the run ends `cancelled` with the reason (a refused tool call alone would let the model go on). */
  private refuseIfCovered(run: RunScope): void {
    const refusal = this.killSwitch.refusalFor(run.agent);
    if (!refusal) return;
    run.abort(refusal);
    throw refusal;
  }
}
