/**
 * Evals (issue 27): dataset cases, eval runs and their per-case results. The agent module's eval
 * runner writes here (a case at promotion, a run when it starts, each result as its case ends, so
 * a reader sees the progress) and the admin API reads it; a baseline is the pass rate of a
 * dataset's completed runs against an agent, newest first.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { EvalCaseTable, EvalResultTable, EvalRunTable, StoreSchema } from './schema.js';

export type EvalCaseRow = Selectable<EvalCaseTable>;
export type EvalRunRow = Selectable<EvalRunTable>;
export type EvalResultRow = Selectable<EvalResultTable>;
export type NewEvalRun = Insertable<EvalRunTable>;

export class EvalRecords {
  constructor(private readonly db: Kysely<StoreSchema>) {}

  async addCase(row: EvalCaseRow): Promise<void> {
    await this.db.insertInto('fw_eval_cases').values(row).execute();
  }

  /** A dataset's cases, oldest first, at most `max`. */
  async cases(dataset: string, max = 1000): Promise<EvalCaseRow[]> {
    return this.db
      .selectFrom('fw_eval_cases')
      .selectAll()
      .where('dataset', '=', dataset)
      .orderBy('created_at')
      .orderBy('id')
      .limit(max)
      .execute();
  }

  /** Every dataset with its number of cases, by name. */
  async datasets(): Promise<{ dataset: string; cases: number }[]> {
    const rows = await this.db
      .selectFrom('fw_eval_cases')
      .select(['dataset', (eb) => eb.fn.countAll<number | string>().as('cases')])
      .groupBy('dataset')
      .orderBy('dataset')
      .execute();
    return rows.map((r) => ({ dataset: r.dataset, cases: Number(r.cases) }));
  }

  async startRun(row: NewEvalRun): Promise<void> {
    await this.db.insertInto('fw_eval_runs').values(row).execute();
  }

  /** One case's result, and the run's progress with it, in one transaction. */
  async addResult(row: EvalResultRow): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto('fw_eval_results').values(row).execute();
      await tx
        .updateTable('fw_eval_runs')
        .set((eb) => ({ done: eb('done', '+', 1), passed: eb('passed', '+', row.passed ? 1 : 0) }))
        .where('id', '=', row.eval_run_id)
        .execute();
    });
  }

  /** Moves a running eval run to its terminal state; one already ended keeps its first end. */
  async endRun(id: string, status: 'completed' | 'failed', endedAt: number, error: string | null): Promise<void> {
    await this.db
      .updateTable('fw_eval_runs')
      .set({ status, ended_at: endedAt, error })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .execute();
  }

  async run(id: string): Promise<EvalRunRow | undefined> {
    return this.db.selectFrom('fw_eval_runs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Newest first. */
  async runs(filter: { dataset?: string; agent?: string } = {}, limit = 100): Promise<EvalRunRow[]> {
    let q = this.db.selectFrom('fw_eval_runs').selectAll();
    if (filter.dataset) q = q.where('dataset', '=', filter.dataset);
    if (filter.agent) q = q.where('agent', '=', filter.agent);
    return q.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /** An eval run's results, in case order. */
  async results(evalRunId: string): Promise<EvalResultRow[]> {
    return this.db.selectFrom('fw_eval_results').selectAll().where('eval_run_id', '=', evalRunId).orderBy('case_id').execute();
  }

  /** Completed eval runs, newest first, at most `limit`: what baselines are computed from. */
  async completed(limit = 1000): Promise<EvalRunRow[]> {
    return this.db
      .selectFrom('fw_eval_runs')
      .selectAll()
      .where('status', '=', 'completed')
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Eval runs still `running` when a store opens were cut off by a stop: they become `interrupted`. */
  async interruptRunning(at: number): Promise<number> {
    const r = await this.db
      .updateTable('fw_eval_runs')
      .set({ status: 'interrupted', ended_at: at, error: 'interrupted: the server stopped while this was running' })
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }
}
