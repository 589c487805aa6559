/**
 * Runs an fw agent for the A2A request handler: one task per message, the answer streamed as an
 * artifact, the final text as the completed status message. Each task owns an AbortController;
 * `cancelTask` (reached by the protocol's CancelTask and by the admin plane alike) aborts it, which
 * aborts the runtime call.
 */
import { randomUUID } from 'node:crypto';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { Role, TaskState, type Message, type Part } from '@a2a-js/sdk';
import type { AgentHost } from '../host.js';
import { RunCancelledError } from '../errors.js';

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

export function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : p.content?.$case === 'data' ? JSON.stringify(p.content.value) : '')).join('');
}

function agentMessage(taskId: string, contextId: string, text: string): Message {
  return { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts: [textPart(text)], metadata: undefined, extensions: [], referenceTaskIds: [] };
}

export class FwAgentExecutor implements AgentExecutor {
  private readonly running = new Map<string, { ac: AbortController; contextId: string }>();
  /** Why a task is being cancelled (the admin plane's reason), shown as its final status message. */
  readonly reasons = new Map<string, string>();

  constructor(private readonly host: AgentHost, private readonly agentName: string) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    const ac = new AbortController();
    this.running.set(taskId, { ac, contextId });
    const status = (state: TaskState, text?: string): void => {
      bus.publish(AgentEvent.statusUpdate({
        taskId, contextId, metadata: undefined,
        status: { state, message: text === undefined ? undefined : agentMessage(taskId, contextId, text), timestamp: new Date().toISOString() },
      }));
    };
    try {
      bus.publish(AgentEvent.task(ctx.task ?? {
        id: taskId, contextId, artifacts: [], history: [ctx.userMessage], metadata: undefined,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      }));
      status(TaskState.TASK_STATE_WORKING);
      const artifactId = randomUUID();
      let first = true;
      const text = await this.host.run(this.agentName, { message: textOf(ctx.userMessage.parts) }, ac.signal, (ev) => {
        if (ev.type !== 'text' || ac.signal.aborted) return;
        bus.publish(AgentEvent.artifactUpdate({
          taskId, contextId, append: !first, lastChunk: false, metadata: undefined,
          artifact: { artifactId, name: 'response', description: '', parts: [textPart(ev.delta)], metadata: undefined, extensions: [] },
        }));
        first = false;
      });
      if (!ac.signal.aborted) status(TaskState.TASK_STATE_COMPLETED, text);
    } catch (err) {
      // A cancelled run was already settled by cancelTask; anything else fails the task with its message.
      if (!ac.signal.aborted) status(TaskState.TASK_STATE_FAILED, (err as Error)?.message ?? String(err));
    } finally {
      this.running.delete(taskId);
    }
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const run = this.running.get(taskId);
    const reason = this.reasons.get(taskId) ?? 'cancelled';
    run?.ac.abort(new RunCancelledError(reason));
    bus.publish(AgentEvent.statusUpdate({
      taskId, contextId: run?.contextId ?? '', metadata: undefined,
      status: { state: TaskState.TASK_STATE_CANCELED, message: agentMessage(taskId, run?.contextId ?? '', reason), timestamp: new Date().toISOString() },
    }));
  }

  /** Tasks whose run is in flight. */
  get inFlight(): number {
    return this.running.size;
  }
}
