/**
 * The run tape's routes (docs/runs.md): runs, one run's steps, its run tree, and a replay without
 * a model. The tape is the agent module's (`AgentAdminView.tape`, looked up per request like every
 * agent view, so @fw/admin does not depend on @fw/agent); every route answers content (messages,
 * tool arguments and results), so each needs the content role (content.ts) besides the gate's viewer.
 */
import { FwError, NotFoundError } from '@fw/runtime';
import type { ControlPlane } from '../control.js';
import { requireContent } from '../content.js';
import type { AdminGate } from '../gate.js';
import type { TapeView } from '../peer-types.js';
import type { Views } from '../views.js';
import { enumParam, intParam, strParam, timeParam } from './params.js';
import { outlineRun, outlineTree } from './tape-outline.js';
import { TIME_SCHEMA } from './route-doc.js';
import type { AdminRequest, AdminRoute, Reply } from './router.js';

const STATUSES = ['open', 'completed', 'failed', 'cancelled', 'interrupted'] as const;

export function tapeRoutes(d: { views: Views; control: ControlPlane; gate: AdminGate }): AdminRoute[] {
  const { views, control, gate } = d;
  /** The tape, once the caller may read content; 404 when the agent module records none. */
  const tapeFor = (r: AdminRequest, target: string): TapeView => {
    requireContent(r.principal, gate.authRequired, target);
    const tape = views.agent.tape;
    if (!tape) throw new FwError('tape_unavailable', 'no run tape: the agent module is absent or fw.agent.tape.enabled is false', 404);
    return tape;
  };
  /** The tape for its outline: the gate's viewer suffices (no content is answered). */
  const outlineTape = (): TapeView => {
    const tape = views.agent.tape;
    if (!tape) throw new FwError('tape_unavailable', 'no run tape: the agent module is absent or fw.agent.tape.enabled is false', 404);
    return tape;
  };
  const runId = (r: AdminRequest): string => r.params.runId ?? '';
  const json = (body: unknown): Reply => ({ kind: 'json', body });
  const runQuery = (r: AdminRequest) => {
    const agent = strParam(r.url, 'agent');
    const status = enumParam(r.url, 'status', STATUSES);
    const principal = strParam(r.url, 'principal');
    const since = timeParam(r.url, 'since');
    const limit = intParam(r.url, 'limit', { min: 1, max: 1000, default: 100 });
    return {
      ...(agent ? { agent } : {}),
      ...(status ? { status } : {}),
      ...(principal ? { principal } : {}),
      ...(since !== undefined ? { since } : {}),
      limit,
    };
  };
  const runQueryDoc = {
    agent: { description: 'Runs of this agent', schema: { type: 'string' } },
    status: { description: 'Runs in this status', schema: { type: 'string', enum: [...STATUSES] } },
    principal: { description: 'Runs started by this principal id', schema: { type: 'string' } },
    since: { description: 'Runs started at or after', schema: TIME_SCHEMA },
    limit: { description: 'Most runs (default 100)', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
  };

  return [
    {
      method: 'GET',
      path: '/tape/outline',
      doc: {
        tag: 'tape',
        reply: 'list',
        summary:
          "Taped runs without their content, newest first: what a role that may not read content sees (the run's metadata, timings, tokens and steps; `failed` instead of its error)",
        query: runQueryDoc,
      },
      handle: async (r) => {
        const runs = await outlineTape().runs(runQuery(r));
        return { kind: 'list', items: runs.map(outlineRun), total: runs.length };
      },
    },
    {
      method: 'GET',
      path: '/tape/outline/{runId}',
      doc: {
        tag: 'tape',
        reply: 'object',
        summary:
          'A run tree without its content: each step with its kind, time, duration, cost and structure (model turn, usage, tool names and outcomes, handoff agents, end state), no messages, output, arguments, results or errors',
      },
      handle: async (r) => {
        const id = runId(r);
        const tree = await outlineTape().tree(id);
        if (!tree) throw new NotFoundError('run', id);
        return json(outlineTree(tree));
      },
    },
    {
      method: 'GET',
      path: '/tape/runs',
      doc: {
        tag: 'tape',
        reply: 'list',
        content: true,
        summary: 'Taped agent runs, newest first (every surface: chat, A2A, AG-UI, dispatches, MCP tool calls)',
        query: runQueryDoc,
      },
      handle: async (r) => {
        const tape = tapeFor(r, 'tape');
        const runs = await tape.runs(runQuery(r));
        return { kind: 'list', items: runs, total: runs.length };
      },
    },
    {
      method: 'GET',
      path: '/tape/runs/{runId}/steps',
      doc: {
        tag: 'tape',
        reply: 'list',
        content: true,
        summary: "One run's steps in order: input, model requests and outputs, tool calls, handoffs, end",
        query: {
          fromSeq: { description: 'First step (its seq; default 0)', schema: { type: 'integer', minimum: 0 } },
          max: { description: 'Most steps (default 1000)', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
        },
      },
      handle: async (r) => {
        const id = runId(r);
        const tape = tapeFor(r, id);
        const fromSeq = intParam(r.url, 'fromSeq', { min: 0, max: Number.MAX_SAFE_INTEGER, default: 0 });
        const max = intParam(r.url, 'max', { min: 1, max: 1000, default: 1000 });
        if (!(await tape.run(id))) throw new NotFoundError('run', id);
        const steps = await tape.steps(id, fromSeq, max);
        return { kind: 'list', items: steps, total: steps.length };
      },
    },
    {
      method: 'GET',
      path: '/tape/runs/{runId}/replay',
      doc: {
        tag: 'tape',
        reply: 'object',
        content: true,
        summary: 'The run tree rebuilt from the tape: the run with its steps and its child runs (by parent), recursively',
      },
      handle: async (r) => {
        const id = runId(r);
        const tree = await tapeFor(r, id).tree(id);
        if (!tree) throw new NotFoundError('run', id);
        return json(tree);
      },
    },
    {
      method: 'POST',
      path: '/tape/runs/{runId}/replay',
      doc: {
        tag: 'tape',
        reply: 'object',
        content: true,
        summary:
          "Replays a run without a model: the agent's code runs again with the recorded model outputs; the result lists the tool calls made and where the run diverged from the tape (null: it did not)",
        body: { required: false, schema: { type: 'object' } },
      },
      write: { action: 'replay', target: { param: 'runId' }, body: 'optional' },
      handle: async (r) => {
        const id = runId(r);
        // `replay` needs operator, the content role: the control plane checks it and audits a refusal.
        return json(await control.replay(id, { principal: r.principal, source: r.source, address: r.address }));
      },
    },
  ];
}
