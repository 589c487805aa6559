/**
 * Live re-run and compare (docs/runs.md, "Re-run and compare"): a taped run's input sent to its
 * agent again with the live model, as a new run whose tape parent is the original (202, the new
 * run's id), and two ended runs side by side step by step. Both answer content, so both need the
 * content role (content.ts); the re-run is the operator's audited `rerun` control action, bounded
 * per caller by the agent module (`fw.agent.tape.rerun.*`, 429 `rerun_busy`).
 */
import { BadRequestError, FwError } from '@fw/runtime';
import type { ControlPlane } from '../control.js';
import { requireContent } from '../content.js';
import type { AdminGate } from '../gate.js';
import type { TapeView } from '../peer-types.js';
import type { Views } from '../views.js';
import { strParam } from './params.js';
import type { AdminRequest, AdminRoute } from './router.js';

export function rerunRoutes(d: { views: Views; control: ControlPlane; gate: AdminGate }): AdminRoute[] {
  const { views, control, gate } = d;
  const tapeFor = (r: AdminRequest, target: string): TapeView => {
    requireContent(r.principal, gate.authRequired, target);
    const tape = views.agent.tape;
    if (!tape) throw new FwError('tape_unavailable', 'no run tape: the agent module is absent or fw.agent.tape.enabled is false', 404);
    return tape;
  };
  const runId = (r: AdminRequest): string => r.params.runId ?? '';

  return [
    {
      method: 'POST',
      path: '/tape/runs/{runId}/rerun',
      doc: {
        tag: 'tape',
        reply: 'object',
        content: true,
        summary:
          "Re-runs a taped run's recorded input against the live model as a new run (its tape parent: the original); 202 {runId, originalRunId} once it has started, RunRerunEnded on the event stream when it ends; 429 rerun_busy past fw.agent.tape.rerun.per-caller / .max",
        body: { required: false, schema: { type: 'object' } },
      },
      write: { action: 'rerun', target: { param: 'runId' }, body: 'optional' },
      handle: async (r) => {
        const id = runId(r);
        // `rerun` needs operator, the content role: the control plane checks it and audits a refusal.
        return {
          kind: 'json',
          status: 202,
          body: await control.rerun(id, { principal: r.principal, source: r.source, address: r.address }),
        };
      },
    },
    {
      method: 'GET',
      path: '/tape/runs/{runId}/compare',
      doc: {
        tag: 'tape',
        reply: 'object',
        content: true,
        summary:
          'Two ended runs side by side, step by step: {same, steps: [{seq, kind, left, right, differs}], summary}; tool call ids, usage, provider and model are not compared',
        query: { with: { description: 'The other run (its id), on the right', schema: { type: 'string' } } },
      },
      handle: async (r) => {
        const id = runId(r);
        const tape = tapeFor(r, id);
        const other = strParam(r.url, 'with');
        if (!other) throw new BadRequestError("'with' must name the run to compare with (?with=<runId>)");
        return { kind: 'json', body: await tape.compare(id, other) };
      },
    },
  ];
}
