/**
 * The run tape (issue 27): what every agent run did, as typed steps. The agent module's recorder
 * writes here in batches (one `append` per model turn and one at the run's end, through the write
 * queue), never per streamed token. Retention deletes ended runs with their steps (retention/tables.ts).
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { StoreSchema, TapeRunTable, TapeStepTable } from './schema.js';

export type TapeRunRow = Selectable<TapeRunTable>;
export type TapeStepRow = Selectable<TapeStepTable>;
export type NewTapeRun = Insertable<TapeRunTable>;

export interface TapeRunFilter {
  agent?: string;
  status?: string;
  /** The principal's id (not the `principal:` owner form). */
  principal?: string;
  /** Runs started at or after (epoch ms). */
  since?: number;
  parentRunId?: string;
}

/** How a run ended, written with its last steps. */
export interface TapeRunEnd {
  status: string;
  endedAt: number;
  durationMs: number;
  inputTokens: number;
  outputTokens: number;
  steps: number;
  error: string | null;
}

export class TapeRecords {
  constructor(private readonly db: Kysely<StoreSchema>) {}

  async open(run: NewTapeRun): Promise<void> {
    await this.db
      .insertInto('fw_tape_runs')
      .values(run)
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  /** Steps of one or more runs, in one statement (a duplicate seq is ignored: a retried batch). */
  async append(steps: readonly TapeStepRow[]): Promise<void> {
    if (steps.length === 0) return;
    await this.db
      .insertInto('fw_tape_steps')
      .values([...steps])
      .onConflict((oc) => oc.columns(['run_id', 'seq']).doNothing())
      .execute();
  }

  /**
   * What the recorder collected since its last write, in one transaction of two statements however
   * many runs it holds: the runs' rows as they are now (a new one is inserted; one on the store
   * already is updated while it is open, so a run already ended keeps its first end) and the steps.
   */
  async write(runs: readonly NewTapeRun[], steps: readonly TapeStepRow[]): Promise<void> {
    if (runs.length === 0 && steps.length === 0) return;
    const write = async (tx: Kysely<StoreSchema>): Promise<void> => {
      if (runs.length > 0)
        await tx
          .insertInto('fw_tape_runs')
          .values([...runs])
          .onConflict((oc) =>
            oc
              .column('id')
              .doUpdateSet((eb) => ({
                status: eb.ref('excluded.status'),
                ended_at: eb.ref('excluded.ended_at'),
                duration_ms: eb.ref('excluded.duration_ms'),
                input_tokens: eb.ref('excluded.input_tokens'),
                output_tokens: eb.ref('excluded.output_tokens'),
                steps: eb.ref('excluded.steps'),
                error: eb.ref('excluded.error'),
              }))
              .where('fw_tape_runs.status', '=', 'open'),
          )
          .execute();
      if (steps.length > 0)
        await tx
          .insertInto('fw_tape_steps')
          .values([...steps])
          .onConflict((oc) => oc.columns(['run_id', 'seq']).doNothing())
          .execute();
    };
    // Handed to the write queue, this repository is bound to the batch's transaction already
    // (store.writes: a second transaction on the one SQLite connection would wait for itself).
    await (this.db.isTransaction ? write(this.db) : this.db.transaction().execute(write));
  }

  /** Moves an open run to its terminal state; a run already ended keeps its first end. */
  async end(id: string, end: TapeRunEnd): Promise<void> {
    await this.db
      .updateTable('fw_tape_runs')
      .set({
        status: end.status,
        ended_at: end.endedAt,
        duration_ms: end.durationMs,
        input_tokens: end.inputTokens,
        output_tokens: end.outputTokens,
        steps: end.steps,
        error: end.error,
      })
      .where('id', '=', id)
      .where('status', '=', 'open')
      .execute();
  }

  async get(id: string): Promise<TapeRunRow | undefined> {
    return this.db.selectFrom('fw_tape_runs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Newest first. */
  async list(filter: TapeRunFilter = {}, limit = 100): Promise<TapeRunRow[]> {
    let q = this.db.selectFrom('fw_tape_runs').selectAll();
    if (filter.agent) q = q.where('agent', '=', filter.agent);
    if (filter.status) q = q.where('status', '=', filter.status);
    if (filter.principal) q = q.where('principal', '=', filter.principal);
    if (filter.since !== undefined) q = q.where('started_at', '>=', filter.since);
    if (filter.parentRunId) q = q.where('parent_run_id', '=', filter.parentRunId);
    return q.orderBy('started_at', 'desc').limit(limit).execute();
  }

  /** Steps from `fromSeq` on, in order, at most `max`. */
  async steps(runId: string, fromSeq = 0, max = 1000): Promise<TapeStepRow[]> {
    return this.db
      .selectFrom('fw_tape_steps')
      .selectAll()
      .where('run_id', '=', runId)
      .where('seq', '>=', fromSeq)
      .orderBy('seq')
      .limit(max)
      .execute();
  }

  /** Runs still `open` when a store opens were cut off by a stop: they become `interrupted`. */
  async interruptOpen(at: number): Promise<number> {
    const r = await this.db
      .updateTable('fw_tape_runs')
      .set({ status: 'interrupted', ended_at: at, error: 'interrupted: the server stopped while this was running' })
      .where('status', '=', 'open')
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }
}
