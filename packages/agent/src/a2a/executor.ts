/**
 * Runs an fw agent for the A2A request handler: one task per message, the answer streamed as an
 * artifact (its last chunk flagged `lastChunk`), the final text as the completed status message.
 * A message in an existing context continues that conversation: the earlier tasks of the context
 * (their messages and answers) are the run's history. Each task owns an AbortController;
 * `cancelTask` (reached by the protocol's CancelTask and by the admin plane alike) aborts it,
 * which aborts the runtime call.
 */
import { randomUUID } from 'node:crypto';
import {
  AgentEvent,
  ExecutionEventQueue,
  ResultManager,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { Role, TaskState, type Task } from '@a2a-js/sdk';
import { errorSummary, failSpan, SpanKind, traced, type Owner, type Span } from '@fw/runtime';
import type { AgentHost } from '../host.js';
import type { AiMessage } from '../runtime/port.js';
import { publicError, RunCancelledError } from '../errors.js';
import { scopeOf } from './call-scope.js';
import { agentMessage, textOf, textPart } from './messages.js';
import type { BoundedTaskStore } from './task-store.js';

export { textOf, textPart } from './messages.js';

export class FwAgentExecutor implements AgentExecutor {
  private readonly running = new Map<string, { ac: AbortController; contextId: string }>();
  /** Why a task is being cancelled (the admin plane's reason), shown as its final status message. */
  readonly reasons = new Map<string, string>();

  constructor(
    private readonly host: AgentHost,
    private readonly agentName: string,
    private readonly tasks?: BoundedTaskStore,
  ) {}

  /** One task in a server span, `a2a task {agent}`: the agent run's span is its child. */
  execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    return traced(
      `a2a task ${this.agentName}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'gen_ai.agent.name': this.agentName,
          'a2a.task.id': ctx.taskId,
          ...(ctx.contextId ? { 'a2a.context.id': ctx.contextId } : {}),
        },
      },
      (span) => this.executeTask(ctx, bus, span),
    );
  }

  private async executeTask(ctx: RequestContext, bus: ExecutionEventBus, span: Span): Promise<void> {
    const { taskId, contextId } = ctx;
    // A task continued by id keeps its owner; a new one gets the owner the endpoint decided.
    const scope = scopeOf(ctx.context);
    const owner = ctx.task ? this.tasks?.ownerOf(taskId) : scope && !scope.operator ? scope.owner : undefined;
    const ac = new AbortController();
    this.running.set(taskId, { ac, contextId });
    const status = (state: TaskState, text?: string): void => {
      span.setAttribute('a2a.task.state', TaskState[state] ?? String(state));
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          metadata: undefined,
          status: {
            state,
            message: text === undefined ? undefined : agentMessage(taskId, contextId, text),
            timestamp: new Date().toISOString(),
          },
        }),
      );
    };
    try {
      bus.publish(
        AgentEvent.task(
          ctx.task ?? {
            id: taskId,
            contextId,
            artifacts: [],
            history: [ctx.userMessage],
            metadata: undefined,
            status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          },
        ),
      );
      status(TaskState.TASK_STATE_WORKING);
      const artifactId = randomUUID();
      // One chunk is held back so that the last one can carry `lastChunk: true` (A2A 1.0,
      // TaskArtifactUpdateEvent: "the final chunk of the artifact").
      let held: string | undefined;
      let sent = 0;
      const chunk = (delta: string, last: boolean): void => {
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            append: sent > 0,
            lastChunk: last,
            metadata: undefined,
            artifact: { artifactId, name: 'response', description: '', parts: [textPart(delta)], metadata: undefined, extensions: [] },
          }),
        );
        sent++;
      };
      const text = await this.host.run(
        this.agentName,
        {
          message: textOf(ctx.userMessage.parts),
          history: this.contextHistory(taskId, contextId, owner),
          protocol: 'a2a',
          ref: taskId,
          ...(owner ? { owner } : {}),
        },
        ac.signal,
        (ev) => {
          if (ac.signal.aborted) return;
          // A tool call waiting for a human: the task is input-required until an operator decides, then working again.
          if (ev.type === 'approval') {
            if (ev.status === 'pending') {
              status(
                TaskState.TASK_STATE_INPUT_REQUIRED,
                `awaiting approval ${ev.approvalId}: the call of '${ev.toolName}' needs a human's approval${ev.reason ? ` (${ev.reason})` : ''}, until ${ev.expiresAt}`,
              );
              this.keepRecording(ctx, bus);
            } else status(TaskState.TASK_STATE_WORKING, `approval ${ev.approvalId} ${ev.status}${ev.reason ? `: ${ev.reason}` : ''}`);
            return;
          }
          if (ev.type !== 'text' || ev.subagentRunId) return;
          if (held !== undefined) chunk(held, false);
          held = ev.delta;
        },
      );
      if (ac.signal.aborted) {
        span.setAttribute('a2a.task.state', TaskState[TaskState.TASK_STATE_CANCELED]);
        return;
      }
      if (held !== undefined) chunk(held, true);
      status(TaskState.TASK_STATE_COMPLETED, text);
    } catch (err) {
      // A cancelled run was already settled by cancelTask; anything else fails the task with what
      // a client may read of the error (an FwError's message; otherwise a logged reference).
      if (ac.signal.aborted) span.setAttribute('a2a.task.state', TaskState[TaskState.TASK_STATE_CANCELED]);
      else {
        failSpan(span, err);
        status(TaskState.TASK_STATE_FAILED, publicError(err, this.host.log, { agent: this.agentName, task: taskId }).message);
      }
    } finally {
      this.running.delete(taskId);
    }
  }

  /**
   * The SDK stops reading a task's events at `input-required` (the client is to answer with its
   * next message), but an approval is answered out of band and the run goes on publishing: from
   * here to the next stop (terminal, or another approval) its events are recorded in the task
   * store by a reader of our own, so `tasks/get` sees the task go on and end.
   */
  private keepRecording(ctx: RequestContext, bus: ExecutionEventBus): void {
    if (!this.tasks) return;
    const queue = new ExecutionEventQueue(bus);
    const results = new ResultManager(this.tasks.forAgent(this.agentName), ctx.context);
    void (async () => {
      for await (const event of queue.events()) await results.processEvent(event);
    })().catch((err: unknown) =>
      this.host.log.error(
        { agent: this.agentName, task: ctx.taskId, error: errorSummary(err) },
        'recording a task after its approval failed',
      ),
    );
  }

  /** The earlier turns of the owner's context: each earlier task's user messages and final answer. */
  private contextHistory(taskId: string, contextId: string, owner: Owner | undefined): AiMessage[] {
    if (!this.tasks || !contextId) return [];
    const out: AiMessage[] = [];
    for (const task of this.tasks.inContext(this.agentName, contextId, owner)) {
      if (task.id === taskId) continue;
      out.push(...turnsOf(task));
    }
    return out;
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const run = this.running.get(taskId);
    const reason = this.reasons.get(taskId) ?? 'cancelled';
    run?.ac.abort(new RunCancelledError(reason));
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: run?.contextId ?? '',
        metadata: undefined,
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: agentMessage(taskId, run?.contextId ?? '', reason),
          timestamp: new Date().toISOString(),
        },
      }),
    );
  }

  /**
   * Stops a task's run without publishing anything: the task store has already failed the task
   * (it could not store a transition, see BoundedTaskStore.onLost).
   */
  abort(taskId: string, reason: string): void {
    this.running.get(taskId)?.ac.abort(new RunCancelledError(reason));
  }

  /** Tasks whose run is in flight. */
  get inFlight(): number {
    return this.running.size;
  }
}

/** A finished task as conversation turns: its user messages, then its answer when it completed. */
function turnsOf(task: Task): AiMessage[] {
  const out: AiMessage[] = [];
  for (const m of task.history ?? []) {
    const text = textOf(m.parts);
    if (!text) continue;
    out.push({ role: m.role === Role.ROLE_AGENT ? 'assistant' : 'user', content: text });
  }
  if (task.status?.state === TaskState.TASK_STATE_COMPLETED) {
    const answer = textOf(task.status.message?.parts) || task.artifacts.map((a) => textOf(a.parts)).join('');
    const last = out[out.length - 1];
    if (answer && !(last?.role === 'assistant' && last.content === answer)) out.push({ role: 'assistant', content: answer });
  }
  return out;
}
