/**
 * The eval routes (docs/runs.md, "Evals"): promote a taped run to a dataset case, start an eval
 * run of a dataset against an agent (202, its progress then readable; one at a time, 409
 * `eval_running`), eval runs with their results, and baselines with pass rates. The evals are the
 * agent module's (`AgentAdminView.evals`, looked up per request). Cases hold what agents were told
 * and answered, so every route needs the content role (content.ts); the two writes are the
 * operator's `evaluate` control action, audited.
 */
import { BadRequestError, FwError, NotFoundError } from '@fw/runtime';
import type { ControlPlane } from '../control.js';
import { requireContent } from '../content.js';
import type { AdminGate } from '../gate.js';
import type { EvalsView } from '../peer-types.js';
import type { Views } from '../views.js';
import { intParam, requireString, strParam } from './params.js';
import type { AdminRequest, AdminRoute, Reply } from './router.js';

export function evalRoutes(d: { views: Views; control: ControlPlane; gate: AdminGate }): AdminRoute[] {
  const { views, control, gate } = d;
  /** The evals, once the caller may read content; 404 when the agent module keeps no tape. */
  const evalsFor = (r: AdminRequest, target: string): EvalsView => {
    requireContent(r.principal, gate.authRequired, target);
    const evals = views.agent.evals;
    if (!evals) throw new FwError('evals_unavailable', 'no evals: the agent module is absent or fw.agent.tape.enabled is false', 404);
    return evals;
  };
  const caller = (r: AdminRequest) => ({ principal: r.principal, source: r.source, address: r.address });
  const json = (body: unknown, status?: number): Reply => ({ kind: 'json', body, ...(status ? { status } : {}) });
  const optionalString = (body: Record<string, unknown>, field: string): string | undefined => {
    const v = body[field];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw new BadRequestError(`'${field}' must be a string`);
    return v;
  };

  return [
    {
      method: 'POST',
      path: '/evals/dataset/promote',
      doc: {
        tag: 'evals',
        reply: 'object',
        content: true,
        summary: "Promotes a taped run to a dataset case: its input, and its answer as the expected output unless 'expected' is given",
        body: {
          required: true,
          schema: {
            type: 'object',
            required: ['runId', 'dataset'],
            properties: {
              runId: { type: 'string' },
              dataset: { type: 'string', maxLength: 200 },
              expected: {
                type: 'string',
                description: "The output expected (default: the run's answer; needed for a run that did not complete)",
              },
            },
          },
        },
      },
      write: { action: 'evaluate', target: { body: 'runId' }, body: 'required' },
      handle: async (r) => {
        const runId = requireString(r.body, 'runId');
        const evals = evalsFor(r, runId);
        const dataset = requireString(r.body, 'dataset');
        const expected = optionalString(r.body, 'expected');
        return json(
          await control.evaluate(runId, caller(r), () =>
            evals.promote({ runId, dataset, ...(expected !== undefined ? { expected } : {}) }),
          ),
          201,
        );
      },
    },
    {
      method: 'POST',
      path: '/evals/run',
      doc: {
        tag: 'evals',
        reply: 'object',
        content: true,
        summary:
          'Starts an eval run of a dataset against an agent (202 with the run, status running; GET /evals/runs/{id} for its progress); one at a time: 409 eval_running',
        body: {
          required: true,
          schema: {
            type: 'object',
            required: ['dataset', 'agent'],
            properties: {
              dataset: { type: 'string' },
              agent: { type: 'string' },
              scorer: {
                type: 'string',
                description:
                  'exact (default), contains, json-schema (with schema), judge (with judge), or a custom scorer the application registered',
              },
              schema: { type: 'object', description: 'The JSON Schema the json-schema scorer checks each answer against' },
              judge: {
                type: 'object',
                description: "The LLM judge's options, for the judge scorer: it asks an AI runtime to grade each answer against the rubric",
                required: ['rubric'],
                properties: {
                  rubric: { type: 'string', description: 'What a good answer is' },
                  runtime: { type: 'string', description: 'The AI runtime that grades (GET /runtimes); default the active one' },
                  model: { type: 'string', description: "The runtime's model; default its first" },
                  threshold: { type: 'number', minimum: 0, maximum: 1, description: 'The lowest score that passes (default 0.7)' },
                },
              },
            },
          },
        },
      },
      write: { action: 'evaluate', target: { body: 'dataset' }, body: 'required' },
      handle: async (r) => {
        const dataset = requireString(r.body, 'dataset');
        const evals = evalsFor(r, dataset);
        const agent = requireString(r.body, 'agent');
        const scorer = optionalString(r.body, 'scorer');
        const schema = r.body.schema;
        if (schema !== undefined && (typeof schema !== 'object' || schema === null || Array.isArray(schema)))
          throw new BadRequestError("'schema' must be a JSON Schema object");
        const judge = r.body.judge;
        if (judge !== undefined && (typeof judge !== 'object' || judge === null || Array.isArray(judge)))
          throw new BadRequestError("'judge' must be an object: {rubric, runtime?, model?, threshold?}");
        const run = await control.evaluate(dataset, caller(r), () =>
          evals.start({
            dataset,
            agent,
            ...(scorer !== undefined ? { scorer } : {}),
            ...(schema !== undefined ? { schema: schema as Record<string, unknown> } : {}),
            ...(judge !== undefined ? { judge: judge as { rubric: string } } : {}),
          }),
        );
        return json(run, 202);
      },
    },
    {
      method: 'GET',
      path: '/evals/datasets',
      doc: { tag: 'evals', reply: 'list', content: true, summary: 'Every dataset with its number of cases' },
      handle: async (r) => {
        const datasets = await evalsFor(r, 'evals').datasets();
        return { kind: 'list', items: datasets, total: datasets.length };
      },
    },
    {
      method: 'GET',
      path: '/evals/datasets/{dataset}/cases',
      doc: {
        tag: 'evals',
        reply: 'list',
        content: true,
        summary: "A dataset's cases in order: input, expected output, the run it was promoted from",
      },
      handle: async (r) => {
        const dataset = r.params.dataset ?? '';
        const cases = await evalsFor(r, dataset).cases(dataset);
        return { kind: 'list', items: cases, total: cases.length };
      },
    },
    {
      method: 'GET',
      path: '/evals/runs',
      doc: {
        tag: 'evals',
        reply: 'list',
        content: true,
        summary: 'Eval runs, newest first, with their progress and pass rates',
        query: {
          dataset: { description: 'Runs of this dataset', schema: { type: 'string' } },
          agent: { description: 'Runs against this agent', schema: { type: 'string' } },
          limit: { description: 'Most runs (default 100)', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
        },
      },
      handle: async (r) => {
        const evals = evalsFor(r, 'evals');
        const dataset = strParam(r.url, 'dataset');
        const agent = strParam(r.url, 'agent');
        const limit = intParam(r.url, 'limit', { min: 1, max: 1000, default: 100 });
        const runs = await evals.runs({ ...(dataset ? { dataset } : {}), ...(agent ? { agent } : {}), limit });
        return { kind: 'list', items: runs, total: runs.length };
      },
    },
    {
      method: 'GET',
      path: '/evals/runs/{evalRunId}',
      doc: { tag: 'evals', reply: 'object', content: true, summary: 'One eval run with the result of each case (passed, the answer, why)' },
      handle: async (r) => {
        const id = r.params.evalRunId ?? '';
        const run = await evalsFor(r, id).run(id);
        if (!run) throw new NotFoundError('eval run', id);
        return json(run);
      },
    },
    {
      method: 'GET',
      path: '/evals/baselines',
      doc: {
        tag: 'evals',
        reply: 'list',
        content: true,
        summary: 'Per dataset, agent and scorer: the pass rate of the newest completed eval run, and those before it',
      },
      handle: async (r) => {
        const baselines = await evalsFor(r, 'evals').baselines();
        return { kind: 'list', items: baselines, total: baselines.length };
      },
    },
  ];
}
