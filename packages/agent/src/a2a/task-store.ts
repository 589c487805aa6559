/**
 * The A2A task store of one framework, shared by every agent. Bounded (`fw.agent.tasks.max`: the
 * oldest terminal tasks are evicted first; a store full of live tasks refuses new ones) and
 * terminal tasks expire after `fw.agent.tasks.terminal-ttl`. Every save that changes a task's
 * state announces `TaskStateChanged`: the request handler saves on every transition, so this is
 * the one place that sees them all.
 */
import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { LimitExceededError, type EventBus } from '@fw/runtime';
import type { TaskInfo } from '../admin-view.js';
import { isTerminal, stateName } from './task-state.js';

interface Entry {
  task: Task;
  agentName: string;
  createdAt: number;
  updatedAt: number;
  /** When a terminal task stops being readable. */
  expiresAt: number | undefined;
}

export class BoundedTaskStore {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly bus: EventBus,
    private readonly limits: () => { max: number; terminalTtlMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  /** The SDK-facing store of one agent: saves are tagged with the agent, reads see only its tasks. */
  forAgent(agentName: string): TaskStore {
    return {
      save: async (task: Task, _ctx: ServerCallContext) => this.save(agentName, task),
      load: async (id: string, _ctx: ServerCallContext) => {
        const e = this.entry(id);
        return e && e.agentName === agentName ? structuredClone(e.task) : undefined;
      },
      list: async (params: ListTasksRequest, _ctx: ServerCallContext) => this.list(agentName, params),
    };
  }

  save(agentName: string, task: Task): void {
    this.sweep();
    const t = this.now();
    const prev = this.entries.get(task.id);
    if (!prev) this.makeRoom();
    const oldState = prev ? stateName(prev.task.status?.state) : null;
    const newState = stateName(task.status?.state);
    const ttl = this.limits().terminalTtlMs;
    this.entries.set(task.id, {
      task: structuredClone(task),
      agentName,
      createdAt: prev?.createdAt ?? t,
      updatedAt: t,
      expiresAt: isTerminal(task.status?.state) ? t + ttl : undefined,
    });
    if (oldState !== newState) this.bus.emit('TaskStateChanged', { taskId: task.id, agentName, oldState, newState });
  }

  agentOf(id: string): string | undefined {
    return this.entry(id)?.agentName;
  }

  info(id: string): TaskInfo | undefined {
    const e = this.entry(id);
    return e ? toInfo(e) : undefined;
  }

  infos(query: { agentName?: string; state?: string; limit?: number } = {}): TaskInfo[] {
    this.sweep();
    const out: TaskInfo[] = [];
    for (const e of [...this.entries.values()].reverse()) {
      if (query.agentName && e.agentName !== query.agentName) continue;
      if (query.state && stateName(e.task.status?.state) !== query.state) continue;
      out.push(toInfo(e));
      if (query.limit !== undefined && out.length >= query.limit) break;
    }
    return out;
  }

  /** True when a new task would be refused: at capacity and no finished task to evict. */
  isFull(): boolean {
    this.sweep();
    if (this.entries.size < this.limits().max) return false;
    for (const e of this.entries.values()) if (e.expiresAt !== undefined) return false;
    return true;
  }

  get size(): number {
    this.sweep();
    return this.entries.size;
  }

  private list(agentName: string, params: ListTasksRequest): ListTasksResponse {
    this.sweep();
    const all = [...this.entries.values()]
      .filter((e) => e.agentName === agentName)
      .filter((e) => !params.contextId || e.task.contextId === params.contextId)
      .filter((e) => !params.status || e.task.status?.state === params.status)
      .reverse();
    const pageSize = Math.min(Math.max(params.pageSize ?? 50, 1), 100);
    const offset = Number(params.pageToken || 0) || 0;
    const page = all.slice(offset, offset + pageSize).map((e) => structuredClone(e.task));
    return {
      tasks: page,
      nextPageToken: offset + pageSize < all.length ? String(offset + pageSize) : '',
      pageSize,
      totalSize: all.length,
    };
  }

  private entry(id: string): Entry | undefined {
    const e = this.entries.get(id);
    if (e?.expiresAt !== undefined && e.expiresAt <= this.now()) {
      this.entries.delete(id);
      return undefined;
    }
    return e;
  }

  private sweep(): void {
    const t = this.now();
    for (const [id, e] of this.entries) if (e.expiresAt !== undefined && e.expiresAt <= t) this.entries.delete(id);
  }

  /** Evicts the oldest terminal task when full; refuses when every task is still live. */
  private makeRoom(): void {
    const { max } = this.limits();
    if (this.entries.size < max) return;
    for (const [id, e] of this.entries) {
      if (e.expiresAt !== undefined) {
        this.entries.delete(id);
        return;
      }
    }
    throw new LimitExceededError('fw.agent.tasks.max', max, `the task store is full (${max} live tasks)`);
  }
}

function toInfo(e: Entry): TaskInfo {
  const text = e.task.status?.message?.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .join('')
    .slice(0, 200);
  return {
    id: e.task.id,
    contextId: e.task.contextId,
    agentName: e.agentName,
    state: stateName(e.task.status?.state),
    createdAt: new Date(e.createdAt).toISOString(),
    updatedAt: new Date(e.updatedAt).toISOString(),
    ...(text ? { message: text } : {}),
  };
}
