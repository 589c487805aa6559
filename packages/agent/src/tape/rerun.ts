/**
 * Live re-run (docs/runs.md, "Re-run and compare"): a taped run's recorded input (its message and
 * history) sent to its agent again, with the live model this time, as a new run on the tape whose
 * parent is the original (`ref` `rerun:<runId>:<uuid>`). What the model answers now can then be
 * compared with what it answered then, step by step (compare.ts).
 *
 * Each re-run drives the live model, so they are bounded: at most `fw.agent.tape.rerun.per-caller`
 * in flight per caller and `fw.agent.tape.rerun.max` in all on this node; one more is refused
 * 429 `rerun_busy` at once, never queued.
 */
import { randomUUID } from 'node:crypto';
import { errorSummary, FwError, NotFoundError, type Framework } from '@fw/runtime';
import type { AgentHost } from '../host.js';
import type { TapeReader } from './reader.js';
import type { TapeBodies } from './steps.js';

/** Who asks for a re-run: its owner string (`principal:<id>`), or none for the local operator. */
export interface RerunCaller {
  owner?: string | undefined;
}

/** The answer to a re-run request: the new run's id, once it has started. */
export interface RerunStarted {
  runId: string;
  originalRunId: string;
}

/** How a re-run ended (the `RunRerunEnded` event). */
export interface RerunEnded extends RerunStarted {
  agent: string;
  state: 'completed' | 'failed' | 'cancelled';
  error: string | null;
}

export class Reruns {
  /** Re-runs in flight per caller key. */
  private readonly inflight = new Map<string, number>();
  private total = 0;
  private readonly stop = new AbortController();

  constructor(
    private readonly fw: Framework,
    private readonly host: AgentHost,
    private readonly reader: TapeReader,
  ) {}

  /** Starts a re-run of `runId` and answers once the new run has its id; it goes on in the background. */
  async start(runId: string, caller: RerunCaller): Promise<RerunStarted> {
    const run = await this.reader.run(runId);
    if (!run) throw new NotFoundError('run', runId);
    if (run.status === 'open') throw new FwError('run_open', 'the run is still recording; re-run it once it has ended', 409);
    this.host.get(run.agent); // 404 for an agent no longer mounted
    const input = (await this.reader.steps(runId, 0, 1)).find((s) => s.kind === 'input')?.body as TapeBodies['input'] | undefined;
    if (!input) throw new FwError('run_not_replayable', 'the tape has no input for this run', 409);

    const key = caller.owner ?? 'local';
    const perCaller = Math.max(0, this.fw.config.get('fw.agent.tape.rerun.per-caller'));
    const max = Math.max(0, this.fw.config.get('fw.agent.tape.rerun.max'));
    const mine = this.inflight.get(key) ?? 0;
    if (mine >= perCaller)
      throw new FwError(
        'rerun_busy',
        `you have ${mine} re-run(s) in flight, the most one caller may (fw.agent.tape.rerun.per-caller)`,
        429,
      );
    if (this.total >= max)
      throw new FwError(
        'rerun_busy',
        `${this.total} re-runs are in flight on this node, the most there may be (fw.agent.tape.rerun.max)`,
        429,
      );
    this.inflight.set(key, mine + 1);
    this.total++;

    const ref = `rerun:${runId}:${randomUUID()}`;
    let newId: string | undefined;
    let started!: (id: string) => void;
    const newRunId = new Promise<string>((resolve) => (started = resolve));
    const off = this.host.hooks.add({
      name: 'rerun',
      runStarted: (scope) => {
        if (scope.ref !== ref) return;
        newId = scope.runId;
        started(scope.runId);
      },
    });
    const ended = (state: RerunEnded['state'], error: string | null, id: string | undefined): void => {
      off();
      this.total--;
      const left = (this.inflight.get(key) ?? 1) - 1;
      if (left > 0) this.inflight.set(key, left);
      else this.inflight.delete(key);
      if (id !== undefined) this.fw.events.emit('RunRerunEnded', { runId: id, originalRunId: runId, agent: run.agent, state, error });
    };
    const running = this.host
      .run(
        run.agent,
        { message: input.message, history: input.history, ref, rerunOf: runId, ...(caller.owner ? { owner: caller.owner } : {}) },
        this.stop.signal,
      )
      .then(
        () => ended('completed', null, newId),
        (err: unknown) => {
          if (newId !== undefined) this.host.log.info({ runId: newId, originalRunId: runId, error: errorSummary(err) }, 'a re-run failed');
          ended(this.stop.signal.aborted ? 'cancelled' : 'failed', (err as Error)?.message ?? String(err), newId);
          throw err;
        },
      );
    // A run refused before it started (a kill switch, the storage budget) is the caller's error.
    const id = await Promise.race([newRunId, running.then(() => newRunId)]);
    running.catch(() => undefined);
    return { runId: id, originalRunId: runId };
  }

  /** Stops the re-runs in flight (fw is closing). */
  close(): void {
    this.stop.abort(new FwError('closing', 'the framework is closing', 503));
  }
}
