/**
 * AG-UI for one agent: POST `/fw/agent/{name}/agui` with a `RunAgentInput` answers an SSE stream
 * of @ag-ui/core events in the protocol's order: RUN_STARTED; text as TEXT_MESSAGE_START/CONTENT/END;
 * tools as TOOL_CALL_START/ARGS/END then TOOL_CALL_RESULT; coordinator dispatches as
 * SUBAGENT_STARTED then SUBAGENT_FINISHED or SUBAGENT_ERROR; a tool call waiting for a human's
 * approval as CUSTOM `fw.interrupt` then `fw.interrupt.resolved` (see approvalEvent); then RUN_FINISHED (outcome `success`,
 * or `cancelled` when the run was cancelled) or RUN_ERROR. `POST …/agui/runs/{runId}/cancel`
 * cancels a run; a client that disconnects cancels its run too.
 *
 * Runs belong to their caller (runs.ts): a principal cancels its own runs only; an anonymous run's
 * RUN_STARTED carries `metadata["fw.runKey"]`, the owner key its cancel must send
 * (`{"runKey": "…"}`). Each caller holds at most its share of the concurrent runs, and a new run
 * takes one of its prompts (`fw.agent.prompts.*`).
 *
 * `state` and `forwardedProps` reach the agent's context and every runtime request. Frontend tools
 * (`RunAgentInput.tools`) are offered to the model beside the agent's own; a call of one is
 * streamed as TOOL_CALL_START/ARGS/END (no TOOL_CALL_RESULT) and the run finishes: the client
 * executes it and starts the next run with the result as a `tool` message (AG-UI "Tools": the
 * frontend defines and executes tools, the agent only requests them).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EventType, type BaseEvent, type Interrupt, type ResumeEntry, type RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import {
  BadRequestError,
  callerOf,
  NotFoundError,
  readJson,
  requireJsonContentType,
  sendError,
  sendJson,
  whenClosed,
  type Framework,
  type Principal,
} from '@fw/runtime';
import { admitAgentCaller } from '../auth.js';
import type { AgentHost, MountedAgent } from '../host.js';
import type { AiMessage, AiToolCall, AiToolSpec } from '../runtime/port.js';
import type { ApprovalEvent, RunEvent } from '../run-event.js';
import { publicError, RunCancelledError } from '../errors.js';
import { aguiRuns } from './runs.js';

/** The CUSTOM event names of a tool call waiting for a human (docs/governance.md, "Human approval"). */
export const INTERRUPT_EVENT = 'fw.interrupt';
export const INTERRUPT_RESOLVED_EVENT = 'fw.interrupt.resolved';

/**
 * A tool call waiting for approval pauses the run in place: the stream stays open and the run
 * goes on once an operator decides, so it is told as CUSTOM events whose values are @ag-ui/core's
 * own shapes: an `Interrupt` (id: the approval's id, `toolCallId`, `expiresAt`) while it waits,
 * then a `ResumeEntry` answering it (`resolved` when approved, `cancelled` when denied or expired).
 * Not RUN_FINISHED with the `interrupt` outcome: that ends the run and expects the client to
 * resume it with the answer, while here the answer comes from an operator, not from the client.
 */
function approvalEvent(ev: ApprovalEvent): BaseEvent & Record<string, unknown> {
  if (ev.status === 'pending') {
    const interrupt: Interrupt = {
      id: ev.approvalId,
      reason: 'tool_approval',
      message: `'${ev.toolName}' awaits a human's approval${ev.reason ? `: ${ev.reason}` : ''}`,
      ...(ev.toolCallId ? { toolCallId: ev.toolCallId } : {}),
      expiresAt: ev.expiresAt,
      metadata: { tool: ev.toolName },
    };
    return { type: EventType.CUSTOM, name: INTERRUPT_EVENT, value: interrupt };
  }
  const resume: ResumeEntry = {
    interruptId: ev.approvalId,
    status: ev.status === 'approved' ? 'resolved' : 'cancelled',
    payload: { approved: ev.status === 'approved', status: ev.status, reason: ev.reason },
  };
  return { type: EventType.CUSTOM, name: INTERRUPT_RESOLVED_EVENT, value: resume };
}

/** Where RUN_STARTED carries an anonymous run's owner key (`metadata` is open; the `ag-ui` key is the protocol's). */
export const RUN_KEY_METADATA = 'fw.runKey';

export function mountAgui(fw: Framework, host: AgentHost, agent: MountedAgent): (() => void)[] {
  const path = `${agent.path}/agui`;
  return [
    fw.route('POST', path, async (req, res) => {
      const admitted = await admitAgentCaller(host.auth, req, res);
      if (admitted) await run(host, agent, req, res, admitted.principal);
    }),
    fw.route('POST', `${path}/runs/{runId}/cancel`, async (req, res, ctx) => {
      const admitted = await admitAgentCaller(host.auth, req, res);
      if (!admitted) return;
      const runId = ctx.params.runId ?? '';
      const presentedKey = await cancelKey(req, host);
      const found = aguiRuns(host).find(agent.name, runId, admitted.principal, presentedKey);
      // Another owner's run is answered exactly like a run that does not exist.
      if (!found) return sendError(res, new NotFoundError('run', runId));
      found.abort.abort(new RunCancelledError('run cancelled by the client'));
      sendJson(res, 202, { runId, cancelled: true });
    }),
  ];
}

/**
 * The owner key a cancel presents: `{"runKey": "…"}` in a JSON body (optional: a principal's
 * cancel needs none, and a bodiless POST stays valid). A body of another shape is a 400.
 */
async function cancelKey(req: IncomingMessage, host: AgentHost): Promise<string | undefined> {
  requireJsonContentType(req);
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return undefined;
  const body = await readJson(req, host.fw.config.get('fw.agent.max-body-bytes'));
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestError('the cancel body must be a JSON object');
  const key = (body as { runKey?: unknown }).runKey;
  if (key === undefined || key === null) return undefined;
  if (typeof key !== 'string') throw new BadRequestError('runKey must be a string');
  return key;
}

async function run(
  host: AgentHost,
  agent: MountedAgent,
  req: IncomingMessage,
  res: ServerResponse,
  principal: Principal | undefined,
): Promise<void> {
  // JSON only (415 for a form or text/plain POST), size, and depth (400 json_too_deep) before parsing.
  const body = await readJson(req, host.fw.config.get('fw.agent.max-body-bytes'));
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    throw new BadRequestError('invalid RunAgentInput', {
      issues: parsed.error.issues.slice(0, 20).map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  const input = parsed.data as RunAgentInput;
  const { message, history, continuation } = conversation(input);
  host.store.budget.admit(); // 503 storage_budget_exceeded before the disk fills (store retention)
  // Per caller: its prompt rate, then its share of the concurrent runs (429, or 503 when all are in use).
  const caller = callerOf(req, principal);
  host.limits.prompts.take(caller);
  const lease = host.limits.runs.acquire(caller);
  const runRecord = aguiRuns(host).start(agent.name, input.runId, input.threadId, principal, lease);
  if (!runRecord) {
    lease.release();
    throw new BadRequestError(`run '${input.runId}' is already in progress`);
  }
  const ac = runRecord.abort;
  const onClose = (): void => {
    if (!res.writableFinished) ac.abort(new RunCancelledError('client disconnected'));
  };
  whenClosed(res, onClose);
  // A principal whose credential expires or is revoked mid-run loses the run with its stream.
  const stopWatching = host.fw.credentials.watch(principal, (reason) => ac.abort(new RunCancelledError(`the credential was ${reason}`)));

  const send = (event: BaseEvent & Record<string, unknown>): void => {
    if (!res.writableEnded && !res.destroyed) res.write(`data: ${JSON.stringify({ ...event, timestamp: Date.now() })}\n\n`);
  };
  const { threadId, runId } = input;
  let openMessage: string | undefined;
  const closeMessage = (): void => {
    if (openMessage) send({ type: EventType.TEXT_MESSAGE_END, messageId: openMessage });
    openMessage = undefined;
  };
  const onEvent = (ev: RunEvent): void => {
    if (ac.signal.aborted) return;
    switch (ev.type) {
      case 'text':
        if (ev.subagentRunId) return;
        if (!openMessage) {
          openMessage = randomUUID();
          send({ type: EventType.TEXT_MESSAGE_START, messageId: openMessage, role: 'assistant' });
        }
        send({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: openMessage, delta: ev.delta });
        break;
      case 'tool-call':
        closeMessage();
        send({ type: EventType.TOOL_CALL_START, toolCallId: ev.toolCallId, toolCallName: ev.toolName });
        send({ type: EventType.TOOL_CALL_ARGS, toolCallId: ev.toolCallId, delta: JSON.stringify(ev.input ?? {}) });
        send({ type: EventType.TOOL_CALL_END, toolCallId: ev.toolCallId });
        break;
      case 'tool-result':
        send({ type: EventType.TOOL_CALL_RESULT, messageId: randomUUID(), toolCallId: ev.toolCallId, content: ev.output, role: 'tool' });
        break;
      case 'subagent-started':
        closeMessage();
        send({ type: EventType.SUBAGENT_STARTED, subagentRunId: ev.subagentRunId, name: ev.agent, description: `skill ${ev.skill}` });
        break;
      case 'subagent-finished':
        send({ type: EventType.SUBAGENT_FINISHED, subagentRunId: ev.subagentRunId, result: ev.result, outcome: { type: 'success' } });
        break;
      case 'subagent-error':
        send({ type: EventType.SUBAGENT_ERROR, subagentRunId: ev.subagentRunId, message: ev.error });
        break;
      case 'approval':
        closeMessage();
        send(approvalEvent(ev));
        break;
    }
  };

  // From here on the run is registered: whatever happens, the finally below releases it.
  try {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    send({
      type: EventType.RUN_STARTED,
      threadId,
      runId,
      ...(runRecord.ownerKey ? { metadata: { [RUN_KEY_METADATA]: runRecord.ownerKey } } : {}),
    });
    const text = await host.run(
      agent.name,
      {
        message,
        history,
        continuation,
        protocol: 'agui',
        ref: runId,
        owner: runRecord.owner,
        state: input.state,
        forwardedProps: input.forwardedProps,
        clientTools: clientTools(input),
      },
      ac.signal,
      onEvent,
    );
    closeMessage();
    send({ type: EventType.RUN_FINISHED, threadId, runId, result: text, outcome: { type: 'success' } });
  } catch (err) {
    closeMessage();
    if (ac.signal.aborted) {
      send({ type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'cancelled' } });
    } else {
      // What a client may read: an FwError's message, else a reference to the logged cause.
      const { code, message: text } = publicError(err, host.log, { agent: agent.name, run: runId }, 'run_failed');
      send({ type: EventType.RUN_ERROR, message: text, code });
    }
  } finally {
    stopWatching();
    aguiRuns(host).end(runRecord);
    res.off('close', onClose);
    if (!res.writableEnded) res.end();
  }
}

/**
 * The last user message is the prompt; the user, assistant and tool messages before it are the
 * history, those after it (assistant tool calls and the client's tool results: the frontend-tool
 * round trip) the continuation the model answers next. System and developer messages are not
 * taken from the client: the agent's own system prompt stands.
 */
function conversation(input: RunAgentInput): { message: string; history: AiMessage[]; continuation: AiMessage[] } {
  const out: AiMessage[] = [];
  const toolNames = new Map<string, string>();
  let lastUser = -1;
  for (const m of input.messages) {
    if (m.role === 'user') {
      lastUser = out.length;
      out.push({ role: 'user', content: textOf(m.content) });
    } else if (m.role === 'assistant') {
      const toolCalls: AiToolCall[] = (m.toolCalls ?? []).map((c) => {
        toolNames.set(c.id, c.function.name);
        return { toolCallId: c.id, toolName: c.function.name, input: parseArguments(c.function.arguments) };
      });
      out.push({ role: 'assistant', content: typeof m.content === 'string' ? m.content : '', ...(toolCalls.length ? { toolCalls } : {}) });
    } else if (m.role === 'tool') {
      const toolName = toolNames.get(m.toolCallId);
      if (!toolName) throw new BadRequestError(`tool message answers no tool call of an earlier assistant message: '${m.toolCallId}'`);
      out.push({ role: 'tool', toolCallId: m.toolCallId, toolName, content: m.error ? `error: ${m.error}` : textOf(m.content) });
    }
  }
  if (lastUser < 0) throw new BadRequestError('RunAgentInput has no user message');
  return {
    message: (out[lastUser] as { content: string }).content,
    history: out.slice(0, lastUser),
    continuation: out.slice(lastUser + 1),
  };
}

function textOf(content: unknown): string {
  return typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p) => ((p as { type?: string; text?: string }).type === 'text' ? (p as { text: string }).text : '')).join('')
      : '';
}

/** Tool-call arguments arrive as JSON text; text that is not JSON is kept as it came. */
function parseArguments(text: string): unknown {
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    return text;
  }
}

/** `RunAgentInput.tools`: the frontend tools the client runs itself (AG-UI "Tools" concept). */
function clientTools(input: RunAgentInput): AiToolSpec[] {
  return (input.tools ?? []).map((t) => ({
    name: t.name,
    description: t.description ?? '',
    parameters:
      t.parameters && typeof t.parameters === 'object' ? (t.parameters as Record<string, unknown>) : { type: 'object', properties: {} },
  }));
}
