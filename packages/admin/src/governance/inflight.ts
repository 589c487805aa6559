import type { RunHooks, RunScope } from '@fw/agent';

/**
 * The runs in flight of each chat session, seen at the run-hooks seam, so that an operator can
 * stop one session's model call (POST sessions/{uuid}/cancel-inflight) without touching its
 * socket: the run is stopped through its scope, and the chat endpoint tells its client
 * `{type:'cancelled'}` and waits for the next prompt.
 */
export class InflightRuns implements RunHooks {
  readonly name = 'governance.inflight';
  private readonly bySession = new Map<string, Set<RunScope>>();

  runStarted(run: RunScope): void {
    if (!run.sessionId) return;
    let runs = this.bySession.get(run.sessionId);
    if (!runs) this.bySession.set(run.sessionId, (runs = new Set()));
    runs.add(run);
  }

  runEnded(run: RunScope): void {
    if (!run.sessionId) return;
    const runs = this.bySession.get(run.sessionId);
    runs?.delete(run);
    if (runs?.size === 0) this.bySession.delete(run.sessionId);
  }

  /** Stops the session's runs in flight with `reason` (an error the chat endpoint knows as a cancel); answers how many. */
  cancel(sessionId: string, reason: Error): number {
    let stopped = 0;
    for (const run of this.bySession.get(sessionId) ?? []) {
      if (run.signal.aborted) continue;
      run.abort(reason);
      stopped++;
    }
    return stopped;
  }
}
