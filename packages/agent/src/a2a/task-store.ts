/**
 * The A2A task store of one framework, shared by every agent: the tasks live in the store (so
 * they outlive the process) with a bounded cache in front for the synchronous admin reads.
 * Bounded (`fw.agent.tasks.max`: the oldest terminal tasks are evicted first; a store full of live
 * tasks refuses new ones) and terminal tasks expire after `fw.agent.tasks.terminal-ttl`. Every save
 * is written to the store before the request handler goes on, and every save that changes a
 * task's state announces `TaskStateChanged`: the request handler saves on every transition, so
 * this is the one place that sees them all.
 *
 * Every task records its owner, and the SDK-facing store of an agent (`forAgent`) answers each
 * call for the caller the call is made for (call-scope.ts): a principal loads, lists and cancels
 * its own tasks only; an anonymous caller reaches an anonymous task by its id (server-generated,
 * handed to that caller only) and lists only the tasks of a context it names. A task the caller
 * may not reach is answered exactly like a task that does not exist (the SDK's TaskNotFound), so
 * its existence does not leak. Contexts are per owner: a message naming another owner's context
 * starts the sender's own conversation under that id, and sees none of the other's.
 */
import { TaskState, type ListTasksRequest, type ListTasksResponse, type Task } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { errorSummary, fallbackLogger, LimitExceededError, type EventBus, type Lease, type Logger, type Owner } from '@fw/runtime';
import type { TaskRecords, TaskRow } from '@fw/store';
import type { TaskInfo } from '../admin-view.js';
import { StoreUnavailableError } from '../errors.js';
import { isAnonymousOwner, ownerLabel, reachableBy } from '../tenancy/ownership.js';
import { scopeOf, takeLease, type CallScope } from './call-scope.js';
import { agentMessage } from './messages.js';
import { isTerminal, stateName } from './task-state.js';

interface Entry {
  task: Task;
  agentName: string;
  /** Who created it; undefined for a task stored before owners existed (no caller reaches it). */
  owner: Owner | undefined;
  /** The creator's share of the live tasks (`fw.agent.tasks.max-per-*`), released when the task ends. */
  lease: Lease | undefined;
  createdAt: number;
  updatedAt: number;
  /** When a terminal task stops being readable. */
  expiresAt: number | undefined;
}

export class BoundedTaskStore {
  private readonly entries = new Map<string, Entry>();
  /** After close: saves still arriving from runs being torn down change nothing. */
  private closed = false;
  /**
   * The write in progress per task: writes of one task go to the store in the order of the saves
   * (on PostgreSQL two saves could otherwise commit on two pooled connections in either order).
   */
  private readonly writing = new Map<string, Promise<void>>();

  constructor(
    private readonly bus: EventBus,
    private readonly limits: () => { max: number; terminalTtlMs: number },
    private readonly records: TaskRecords,
    private readonly now: () => number = Date.now,
  ) {}

  /** Where failed deletions of expired tasks are reported (the agent module sets fw's logger). */
  log: Logger = fallbackLogger();

  /**
   * How a task's row is written; resolves once it is durable. The agent module sets the store's
   * group commit (`store.writes.commit`): concurrent tasks share a transaction, a store fault is
   * retried within its budget and refused fast while the store is down.
   */
  write: (row: TaskRow) => Promise<void> = (row) => this.records.put(row);

  /**
   * Loads the tasks of the store at start. A task that is not finished was cut off when the
   * process stopped without closing: it fails with `reason` (A2A has no "interrupted" state;
   * failed with a message is what the spec offers), and its ids are returned.
   */
  async restore(reason: string): Promise<string[]> {
    const t = this.now();
    await this.records.deleteExpired(t);
    const rows = await this.records.list({}, this.limits().max);
    const interrupted: string[] = [];
    for (const row of rows.reverse()) {
      let task: Task;
      try {
        task = JSON.parse(row.body) as Task;
      } catch {
        continue;
      }
      this.entries.set(row.id, {
        task,
        agentName: row.agent,
        owner: row.owner ?? undefined,
        lease: undefined,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        expiresAt: row.expires_at ?? undefined,
      });
      if (!isTerminal(task.status?.state)) {
        interrupted.push(row.id);
        await this.save(row.agent, {
          ...task,
          status: {
            state: TaskState.TASK_STATE_FAILED,
            message: agentMessage(task.id, task.contextId, reason),
            timestamp: new Date(t).toISOString(),
          },
        });
      }
    }
    return interrupted;
  }

  /** Fails every task still live with `reason` (a graceful shutdown), then ignores later saves. */
  async close(reason: string): Promise<void> {
    const t = new Date(this.now()).toISOString();
    for (const e of [...this.entries.values()]) {
      if (isTerminal(e.task.status?.state)) continue;
      // A store that is gone must not stop the close: the failure is logged by save, and the
      // task is failed in memory (its share given back) all the same.
      await this.save(e.agentName, {
        ...e.task,
        status: { state: TaskState.TASK_STATE_FAILED, message: agentMessage(e.task.id, e.task.contextId, reason), timestamp: t },
      }).catch(() => undefined);
    }
    this.closed = true;
    await Promise.allSettled([...this.writing.values()]);
  }

  /**
   * The SDK-facing store of one agent: saves are tagged with the agent and, for a new task, with
   * the owner and the lease of the call's scope; loads and lists see only the agent's tasks that
   * the call's caller may reach.
   */
  forAgent(agentName: string): TaskStore {
    return {
      save: async (task: Task, ctx: ServerCallContext) => this.save(agentName, task, scopeOf(ctx)),
      load: async (id: string, ctx: ServerCallContext) => {
        const e = this.entry(id);
        return e && e.agentName === agentName && visible(e, scopeOf(ctx)) ? structuredClone(e.task) : undefined;
      },
      list: async (params: ListTasksRequest, ctx: ServerCallContext) => this.list(agentName, params, scopeOf(ctx)),
    };
  }

  /**
   * Saves a task. A new task gets the owner the scope decided and takes the scope's lease of the
   * live tasks; a known task keeps its owner. A task that ends gives its lease back.
   */
  async save(agentName: string, task: Task, scope?: CallScope): Promise<void> {
    if (this.closed) return;
    this.sweep();
    const t = this.now();
    const prev = this.entries.get(task.id);
    if (!prev) this.makeRoom();
    const oldState = prev ? stateName(prev.task.status?.state) : null;
    const newState = stateName(task.status?.state);
    const ttl = this.limits().terminalTtlMs;
    const terminal = isTerminal(task.status?.state);
    const entry: Entry = {
      task: structuredClone(task),
      agentName,
      owner: prev ? prev.owner : scope && !scope.operator ? scope.owner : undefined,
      lease: prev ? prev.lease : takeLease(scope),
      createdAt: prev?.createdAt ?? t,
      updatedAt: t,
      expiresAt: terminal ? t + ttl : undefined,
    };
    if (terminal && entry.lease) {
      entry.lease.release();
      entry.lease = undefined;
    }
    this.entries.set(task.id, entry);
    const row = toRow(task.id, entry);
    const write = (this.writing.get(task.id) ?? Promise.resolve()).catch(() => undefined).then(() => this.write(row));
    this.writing.set(task.id, write);
    try {
      await write;
    } catch (err) {
      // The driver's message names internal addresses: logged here, the caller gets a plain refusal.
      this.log.error({ error: errorSummary(err), task: task.id }, 'writing an A2A task to the store failed');
      this.lose(task.id);
      throw new StoreUnavailableError();
    } finally {
      if (this.writing.get(task.id) === write) this.writing.delete(task.id);
    }
    if (oldState !== newState) this.bus.emit('TaskStateChanged', { taskId: task.id, agentName, oldState, newState });
  }

  /** Told the id of a task whose run must stop because the task was lost (see `lose`); the agent module aborts the run. */
  onLost: ((taskId: string, agentName: string) => void) | undefined;

  /**
   * A task whose transition could not be stored is lost to the protocol: the SDK stops processing
   * its events and the client got the store's refusal. Left as it was, it would stay live in the
   * cache forever, holding its caller's share, while its run went on for nobody. It is failed
   * here, in memory (the store may be back for the next save), its share given back, its run stopped.
   */
  private lose(id: string): void {
    const e = this.entries.get(id);
    if (!e || isTerminal(e.task.status?.state)) return;
    const t = this.now();
    const oldState = stateName(e.task.status?.state);
    e.task = {
      ...e.task,
      status: {
        state: TaskState.TASK_STATE_FAILED,
        message: agentMessage(id, e.task.contextId, new StoreUnavailableError().message),
        timestamp: new Date(t).toISOString(),
      },
    };
    e.updatedAt = t;
    e.expiresAt = t + this.limits().terminalTtlMs;
    e.lease?.release();
    e.lease = undefined;
    this.bus.emit('TaskStateChanged', { taskId: id, agentName: e.agentName, oldState, newState: 'failed' });
    this.onLost?.(id, e.agentName);
  }

  /** The owner of a task (undefined when unknown or stored before owners existed). */
  ownerOf(id: string): Owner | undefined {
    return this.entry(id)?.owner;
  }

  /**
   * The anonymous owner of an agent's context, if anonymous tasks live in it: an anonymous caller
   * that names the context (its capability) continues that owner's conversation.
   */
  anonymousOwnerOf(agentName: string, contextId: string): Owner | undefined {
    if (!contextId) return undefined;
    this.sweep();
    for (const e of this.entries.values()) {
      if (e.agentName === agentName && e.task.contextId === contextId && isAnonymousOwner(e.owner)) return e.owner;
    }
    return undefined;
  }

  agentOf(id: string): string | undefined {
    return this.entry(id)?.agentName;
  }

  task(id: string): Task | undefined {
    const e = this.entry(id);
    return e ? structuredClone(e.task) : undefined;
  }

  /**
   * Tasks of one owner's context of an agent, oldest first (the conversation a new message
   * continues). Another owner's tasks under the same context id are another conversation.
   */
  inContext(agentName: string, contextId: string, owner: Owner | undefined): Task[] {
    if (owner === undefined) return [];
    this.sweep();
    return [...this.entries.values()]
      .filter((e) => e.agentName === agentName && e.task.contextId === contextId && e.owner === owner)
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((e) => e.task);
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

  /**
   * ListTasks (A2A 1.0 §"List Tasks"): newest status first; `contextId`, `status` and
   * `statusTimestampAfter` filters; artifacts only with `includeArtifacts`; `historyLength` is
   * applied by the SDK's request handler. The page token is opaque and checked: one this store did
   * not issue is InvalidParams, never silently page one. Only the tasks the caller may reach: its
   * own for a principal; for an anonymous caller, the anonymous tasks of the context it names
   * (none without a context: it has no identity that could list "its" tasks).
   */
  private list(agentName: string, params: ListTasksRequest, scope: CallScope | undefined): ListTasksResponse {
    this.sweep();
    const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
    const anonymous = scope !== undefined && !scope.operator && scope.principal === undefined;
    const all = [...this.entries.values()]
      .filter((e) => e.agentName === agentName)
      .filter((e) => visible(e, scope) && (!anonymous || (params.contextId !== '' && e.task.contextId === params.contextId)))
      .filter((e) => !params.contextId || e.task.contextId === params.contextId)
      .filter((e) => !params.status || e.task.status?.state === params.status)
      .filter((e) => after === undefined || (e.task.status?.timestamp !== undefined && Date.parse(e.task.status.timestamp) >= after))
      .reverse();
    const pageSize = Math.min(Math.max(params.pageSize ?? 50, 1), 100);
    const offset = params.pageToken ? decodePageToken(params.pageToken) : 0;
    const page = all.slice(offset, offset + pageSize).map((e) => {
      const task = structuredClone(e.task);
      if (!params.includeArtifacts) task.artifacts = [];
      return task;
    });
    return {
      tasks: page,
      nextPageToken: offset + pageSize < all.length ? encodePageToken(offset + pageSize) : '',
      pageSize,
      totalSize: all.length,
    };
  }

  private entry(id: string): Entry | undefined {
    const e = this.entries.get(id);
    if (e?.expiresAt !== undefined && e.expiresAt <= this.now()) {
      this.forget([id]);
      return undefined;
    }
    return e;
  }

  private sweep(): void {
    const t = this.now();
    const gone: string[] = [];
    for (const [id, e] of this.entries) if (e.expiresAt !== undefined && e.expiresAt <= t) gone.push(id);
    if (gone.length) this.forget(gone);
  }

  private forget(ids: string[]): void {
    for (const id of ids) this.entries.delete(id);
    void this.records
      .delete(ids)
      .catch((err: unknown) => this.log.error({ error: errorSummary(err), tasks: ids.length }, 'deleting expired tasks failed'));
  }

  /** Evicts the oldest terminal task when full; refuses when every task is still live. */
  private makeRoom(): void {
    const { max } = this.limits();
    if (this.entries.size < max) return;
    for (const [id, e] of this.entries) {
      if (e.expiresAt !== undefined) {
        this.forget([id]);
        return;
      }
    }
    throw new LimitExceededError('fw.agent.tasks.max', max, `the task store is full (${max} live tasks)`);
  }
}

const TOKEN_PREFIX = 'fw-tasks:';

function encodePageToken(offset: number): string {
  return Buffer.from(`${TOKEN_PREFIX}${offset}`).toString('base64url');
}

function decodePageToken(token: string): number {
  const text = Buffer.from(token, 'base64url').toString('utf8');
  const m = /^fw-tasks:(\d{1,9})$/.exec(text);
  if (!m || Buffer.from(text).toString('base64url') !== token) throw new RequestMalformedError(`invalid pageToken '${token.slice(0, 40)}'`);
  return Number(m[1]);
}

/** May the call's caller reach this task? An operator reaches all; a context fw did not make, none. */
function visible(e: Entry, scope: CallScope | undefined): boolean {
  if (!scope) return false;
  return scope.operator || reachableBy(e.owner, scope.principal);
}

function toRow(id: string, e: Entry): TaskRow {
  return {
    owner: e.owner ?? null,
    id,
    agent: e.agentName,
    context_id: e.task.contextId,
    state: stateName(e.task.status?.state),
    created_at: e.createdAt,
    updated_at: e.updatedAt,
    expires_at: e.expiresAt ?? null,
    body: JSON.stringify(e.task),
  };
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
    owner: ownerLabel(e.owner),
    ...(text ? { message: text } : {}),
  };
}
