/**
 * The tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663): a tool
 * declared task-capable answers a client that declared the extension with a `CreateTaskResult`
 * and runs on; the client polls `tasks/get`, answers the task's input requests with
 * `tasks/update` and may `tasks/cancel` it (which aborts the handler's AbortSignal).
 *
 * Tasks are bound to their owner (SEP-2663 "Security Implications": auth binding): the principal
 * that created one, or for an anonymous caller a fresh 128-bit owner key that travels inside the
 * task id handed to that caller only (`<id>.<key>`), so one anonymous client never reaches
 * another's task however it learnt the `<id>` (the admin view and logs show `<id>` alone). A
 * task of another owner is answered exactly like an unknown id, so its existence does not leak.
 * Each caller holds a fair share of `fw.mcp.max-tasks` (per principal, or per client address
 * when anonymous). Tasks live in memory for their TTL (`fw.mcp.task-ttl`), then are discarded —
 * a task still running at its TTL is aborted first.
 */
import { randomUUID } from 'node:crypto';
import {
  anonymousOwner,
  type Caller,
  FairShare,
  isOwner,
  type Lease,
  newOwnerKey,
  type Owner,
  type Principal,
  principalOwner,
  shareKey,
  ShareExceededError,
} from '@fw/runtime';
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
  /** The share of `maxTasks` one principal may hold (0: no cap). */
  maxTasksPerPrincipal: number;
  /** The share of `maxTasks` anonymous callers from one address group may hold (0: no cap). */
  maxTasksPerAddress: number;
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

/** What an operator sees of a task (admin Tasks view) — no result payloads, no anonymous owner keys. */
export interface TaskSummary {
  /** The task's id without an anonymous owner's key. */
  taskId: string;
  server: string;
  tool: string;
  /** `principal:<id>`, or `anonymous`. */
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
  /** The id the endpoint keys it by (and operators see). */
  readonly id = randomUUID();
  /** The id its creator uses: `id`, or `id.key` for an anonymous owner (the key proves ownership). */
  readonly taskId: string;
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

  /** The caller's share of the endpoint's tasks, given back when the task is forgotten. */
  lease: Lease | undefined;

  constructor(
    readonly server: string,
    readonly tool: string,
    /** `principal:<id>` or `anonymous:<key>`. */
    readonly owner: Owner,
    /** The fair-share key of its creator (principal, or address group when anonymous). */
    readonly share: string,
    readonly ttlMs: number,
    readonly pollIntervalMs: number,
    anonymousKey?: string,
  ) {
    this.taskId = anonymousKey === undefined ? this.id : `${this.id}.${anonymousKey}`;
  }

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
      taskId: this.id,
      server: this.server,
      tool: this.tool,
      owner: this.owner.startsWith('anonymous:') ? 'anonymous' : this.owner,
      status: this.status,
      statusMessage: this.statusMessage,
      createdAt: new Date(this.createdAt).toISOString(),
      lastUpdatedAt: new Date(this.lastUpdatedAt).toISOString(),
      ttlMs: this.ttlMs,
    };
  }
}

/** The tasks of one MCP endpoint, with their fair shares and TTL timers. */
export class TaskManager {
  private readonly tasks = new Map<string, McpTask>();
  /** `fw.mcp.max-tasks`, shared out per principal / per address group. */
  private readonly share: FairShare;
  private closed = false;

  constructor(
    readonly server: string,
    readonly limits: TaskLimits,
  ) {
    this.share = new FairShare('fw.mcp.max-tasks', () => ({
      max: limits.maxTasks,
      perPrincipal: limits.maxTasksPerPrincipal,
      perAddress: limits.maxTasksPerAddress,
    }));
  }

  get size(): number {
    return this.tasks.size;
  }

  /**
   * Creates a task for `caller` (durably, before the CreateTaskResult is sent: SEP-2663 "strong
   * consistency"). Throws -32000 when the caller holds its share of `fw.mcp.max-tasks` (per
   * principal, or per address when anonymous) or the endpoint holds the whole of it. A task counts
   * until it is forgotten at its TTL, finished or not: finished tasks are kept for their TTL
   * (SEP-2663: never expired early), so a share of running tasks alone would let one caller fill
   * the endpoint with finished ones.
   */
  create(tool: string, caller: Caller): McpTask {
    if (this.closed) throw new McpError(RpcCode.ServerError, 'mcp_tasks_closed', 'the MCP endpoint is shutting down');
    const share = shareKey(caller).key;
    let lease: Lease;
    try {
      lease = this.share.acquire(caller);
    } catch (err) {
      if (err instanceof ShareExceededError) throw this.refusal(err, share);
      throw err;
    }
    const key = caller.principal ? undefined : newOwnerKey();
    const owner = caller.principal ? principalOwner(caller.principal.id) : anonymousOwner(key as string);
    const task = new McpTask(this.server, tool, owner, share, this.limits.ttlMs, this.limits.pollIntervalMs, key);
    task.lease = lease;
    this.tasks.set(task.id, task);
    task.expiry = setTimeout(() => this.expire(task), this.limits.ttlMs);
    task.expiry.unref();
    return task;
  }

  /** A refused task as the JSON-RPC error the caller gets: the limit to wait for or raise, and when one frees up. */
  private refusal(err: ShareExceededError, share: string): McpError {
    let oldest = Number.POSITIVE_INFINITY;
    for (const t of this.tasks.values()) if (err.share === 'total' || t.share === share) oldest = Math.min(oldest, t.createdAt);
    const retryAfter = Number.isFinite(oldest) ? Math.max(1, Math.ceil((oldest + this.limits.ttlMs - Date.now()) / 1000)) : 1;
    const data = { status: err.status, limit: (err.details as { limit: string }).limit, retryAfter };
    if (err.share === 'total')
      return new McpError(
        RpcCode.ServerError,
        'mcp_too_many_tasks',
        `the server keeps its maximum of ${err.value} tasks (fw.mcp.max-tasks); retry when older ones expire`,
        data,
      );
    const who = err.share === 'principal' ? 'principal' : 'client address';
    return new McpError(
      RpcCode.ServerError,
      err.share === 'principal' ? 'mcp_too_many_tasks_for_principal' : 'mcp_too_many_tasks_for_address',
      `this ${who} already holds ${err.value} tasks, its share (fw.mcp.max-tasks-per-${err.share}; a task counts until its TTL ends, fw.mcp.task-ttl); retry when one expires`,
      data,
    );
  }

  /**
   * The task `taskId` names if the caller owns it: the principal that created it, or the
   * anonymous caller holding the key in its id. Undefined for unknown ids and other owners' tasks
   * alike (no existence oracle).
   */
  get(taskId: string, principal: Principal | undefined): McpTask | undefined {
    const dot = taskId.indexOf('.');
    const id = dot < 0 ? taskId : taskId.slice(0, dot);
    const key = dot < 0 ? undefined : taskId.slice(dot + 1);
    const t = this.tasks.get(id);
    if (!t) return undefined;
    // A principal's task is named by its bare id; an anonymous one by id and key, by an anonymous caller.
    if (principal) return key === undefined && isOwner(t.owner, principal) ? t : undefined;
    return key !== undefined && isOwner(t.owner, undefined, key) ? t : undefined;
  }

  /** Every task, for operators (admin Tasks view). */
  all(): McpTask[] {
    return [...this.tasks.values()];
  }

  /** Operator cancel (admin), regardless of owner, by the id operators see. False when no such task. */
  cancelAny(id: string, reason: string): boolean {
    const t = this.tasks.get(id);
    if (!t) return false;
    t.cancel(reason);
    return true;
  }

  private expire(task: McpTask): void {
    task.cancel(`the task reached its TTL of ${task.ttlMs} ms (fw.mcp.task-ttl)`);
    this.forget(task);
  }

  private forget(task: McpTask): void {
    clearTimeout(task.expiry);
    task.lease?.release();
    this.tasks.delete(task.id);
  }

  /** Shutdown: cancels every unfinished task and clears the timers. */
  close(): void {
    this.closed = true;
    for (const t of [...this.tasks.values()]) {
      t.cancel('the MCP endpoint is shutting down');
      this.forget(t);
    }
  }
}
