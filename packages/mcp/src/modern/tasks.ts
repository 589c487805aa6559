/**
 * The tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663): a tool
 * declared task-capable answers a client that declared the extension with a `CreateTaskResult`
 * and runs on; the client polls `tasks/get`, answers the task's input requests with
 * `tasks/update` and may `tasks/cancel` it (which aborts the handler's AbortSignal).
 *
 * Tasks are bound to the principal that created them (SEP-2663 "Security Implications": auth
 * binding): another principal's `tasks/get` is answered exactly like an unknown id, so a task's
 * existence does not leak. Ids are random UUIDs (122 bits: unguessable). Tasks live in memory
 * for their TTL (`fw.mcp.task-ttl`), then are discarded — a task still running at its TTL is
 * aborted first.
 */
import { randomUUID } from 'node:crypto';
import { McpError, RpcCode } from '../errors.js';
import type { InputRequest } from './input.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** `optional`: a task when the client declared the extension, else a synchronous result; `required`: -32021 without it. */
export type TaskSupport = 'optional' | 'required';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

export interface TaskLimits {
  /** Most tasks one endpoint keeps (running or finished within their TTL). */
  maxTasks: number;
  /** Most unfinished tasks one principal (or all anonymous callers together) may have. */
  maxTasksPerPrincipal: number;
  /** How long a task is kept after creation; null: until the process ends (not recommended). */
  ttlMs: number;
  pollIntervalMs: number;
}

/** A JSON-RPC error a task failed with (SEP-2663 FailedTask.error). */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** What an operator sees of a task (admin Tasks view) — no result payloads. */
export interface TaskSummary {
  taskId: string;
  server: string;
  tool: string;
  owner: string;
  status: TaskStatus;
  statusMessage: string | undefined;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
}

interface PendingInput {
  request: InputRequest;
  resolve: (answer: Record<string, unknown>) => void;
  reject: (err: Error) => void;
}

/** One task: its wire state, the handler's abort controller and the input requests it waits on. */
export class McpTask {
  readonly taskId = randomUUID();
  readonly createdAt = Date.now();
  lastUpdatedAt = this.createdAt;
  status: TaskStatus = 'working';
  statusMessage: string | undefined;
  result: Record<string, unknown> | undefined;
  error: TaskError | undefined;
  /** Aborted by tasks/cancel, an operator's cancel, the TTL or shutdown: the handler's `ctx.signal`. */
  readonly controller = new AbortController();
  private readonly pending = new Map<string, PendingInput>();
  /** Keys used over the task's lifetime: SEP-2663 forbids reusing one. */
  private readonly usedKeys = new Set<string>();
  expiry: NodeJS.Timeout | undefined;

  constructor(
    readonly server: string,
    readonly tool: string,
    readonly owner: string,
    readonly ttlMs: number,
    readonly pollIntervalMs: number,
  ) {}

  get terminal(): boolean {
    return TERMINAL.has(this.status);
  }

  private touch(status: TaskStatus, message?: string): void {
    this.status = status;
    this.statusMessage = message;
    this.lastUpdatedAt = Date.now();
  }

  /**
   * The handler asks the client for input: the task turns `input_required` until every pending
   * key is answered by tasks/update. Rejects when the task is cancelled meanwhile.
   */
  ask(key: string, request: InputRequest): Promise<Record<string, unknown>> {
    if (this.terminal || this.controller.signal.aborted)
      return Promise.reject(new McpError(RpcCode.ServerError, 'mcp_task_ended', `task ${this.taskId} has ended`));
    if (this.usedKeys.has(key))
      return Promise.reject(
        new McpError(
          RpcCode.InternalError,
          'mcp_task_input_key_reused',
          `input key '${key}' was already used by this task (SEP-2663: keys are unique over a task's lifetime)`,
        ),
      );
    this.usedKeys.add(key);
    return new Promise((resolve, reject) => {
      this.pending.set(key, { request, resolve, reject });
      this.touch('input_required', `waiting for the client to answer ${this.pending.size} input request(s)`);
    });
  }

  /** tasks/update: answers for pending keys resume the handler; unknown or answered keys are ignored (SEP-2663). */
  answer(responses: Record<string, Record<string, unknown>>): void {
    for (const [key, value] of Object.entries(responses)) {
      const p = this.pending.get(key);
      if (!p) continue;
      this.pending.delete(key);
      p.resolve(value);
    }
    if (this.status === 'input_required' && this.pending.size === 0) this.touch('working');
  }

  complete(result: Record<string, unknown>): void {
    if (this.terminal) return;
    this.result = result;
    this.touch('completed');
  }

  fail(error: TaskError): void {
    if (this.terminal) return;
    this.error = error;
    this.touch('failed', error.message);
  }

  /** Cancels (idempotent on terminal tasks): aborts the handler and rejects its pending inputs. */
  cancel(reason: string): void {
    if (this.terminal) return;
    this.touch('cancelled', reason);
    const err = new McpError(RpcCode.ServerError, 'mcp_task_cancelled', reason);
    this.controller.abort(err);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  /** The DetailedTask of tasks/get (SEP-2663 "Task Status"): result or error inlined when terminal. */
  detailed(): Record<string, unknown> {
    return {
      taskId: this.taskId,
      status: this.status,
      ...(this.statusMessage !== undefined ? { statusMessage: this.statusMessage } : {}),
      createdAt: new Date(this.createdAt).toISOString(),
      lastUpdatedAt: new Date(this.lastUpdatedAt).toISOString(),
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      ...(this.status === 'input_required' ? { inputRequests: Object.fromEntries([...this.pending].map(([k, p]) => [k, p.request])) } : {}),
      ...(this.status === 'completed' && this.result ? { result: this.result } : {}),
      ...(this.status === 'failed' && this.error ? { error: this.error } : {}),
    };
  }

  /** The CreateTaskResult (flat `Result & Task`, `resultType: "task"`). */
  created(): Record<string, unknown> {
    return {
      resultType: 'task',
      taskId: this.taskId,
      status: this.status,
      createdAt: new Date(this.createdAt).toISOString(),
      lastUpdatedAt: new Date(this.lastUpdatedAt).toISOString(),
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
    };
  }

  summary(): TaskSummary {
    return {
      taskId: this.taskId,
      server: this.server,
      tool: this.tool,
      owner: this.owner,
      status: this.status,
      statusMessage: this.statusMessage,
      createdAt: new Date(this.createdAt).toISOString(),
      lastUpdatedAt: new Date(this.lastUpdatedAt).toISOString(),
      ttlMs: this.ttlMs,
    };
  }
}

/** The owner key of a principal: its id, or one shared key for unauthenticated callers. */
export function taskOwner(principal: { id: string } | undefined): string {
  return principal ? `principal:${principal.id}` : 'anonymous';
}

/** The tasks of one MCP endpoint, with their limits and TTL timers. */
export class TaskManager {
  private readonly tasks = new Map<string, McpTask>();
  private closed = false;

  constructor(
    readonly server: string,
    readonly limits: TaskLimits,
  ) {}

  get size(): number {
    return this.tasks.size;
  }

  /**
   * Creates a task (durably, before the CreateTaskResult is sent: SEP-2663 "strong
   * consistency"). Throws -32000 at `fw.mcp.max-tasks` or `fw.mcp.max-tasks-per-principal`.
   */
  create(tool: string, owner: string): McpTask {
    if (this.closed) throw new McpError(RpcCode.ServerError, 'mcp_tasks_closed', 'the MCP endpoint is shutting down');
    if (this.tasks.size >= this.limits.maxTasks) {
      throw new McpError(
        RpcCode.ServerError,
        'mcp_too_many_tasks',
        `the server keeps its maximum of ${this.limits.maxTasks} tasks (fw.mcp.max-tasks); retry when older ones expire`,
      );
    }
    let running = 0;
    for (const t of this.tasks.values()) if (t.owner === owner && !t.terminal) running++;
    if (running >= this.limits.maxTasksPerPrincipal) {
      throw new McpError(
        RpcCode.ServerError,
        'mcp_too_many_tasks_for_principal',
        `this caller already has ${running} unfinished tasks, the maximum (fw.mcp.max-tasks-per-principal); wait for one to finish or cancel one`,
      );
    }
    const task = new McpTask(this.server, tool, owner, this.limits.ttlMs, this.limits.pollIntervalMs);
    this.tasks.set(task.taskId, task);
    task.expiry = setTimeout(() => this.expire(task), this.limits.ttlMs);
    task.expiry.unref();
    return task;
  }

  /** The task if `owner` may see it; undefined for unknown ids and other owners' tasks alike. */
  get(taskId: string, owner: string): McpTask | undefined {
    const t = this.tasks.get(taskId);
    return t && t.owner === owner ? t : undefined;
  }

  /** Every task, for operators (admin Tasks view). */
  all(): McpTask[] {
    return [...this.tasks.values()];
  }

  /** Operator cancel (admin), regardless of owner. False when no such task. */
  cancelAny(taskId: string, reason: string): boolean {
    const t = this.tasks.get(taskId);
    if (!t) return false;
    t.cancel(reason);
    return true;
  }

  private expire(task: McpTask): void {
    task.cancel(`the task reached its TTL of ${task.ttlMs} ms (fw.mcp.task-ttl)`);
    this.tasks.delete(task.taskId);
  }

  /** Shutdown: cancels every unfinished task and clears the timers. */
  close(): void {
    this.closed = true;
    for (const t of this.tasks.values()) {
      clearTimeout(t.expiry);
      t.cancel('the MCP endpoint is shutting down');
    }
    this.tasks.clear();
  }
}
