/**
 * Agent sessions: one per client conversation with an agent. Counts messages, remembers the start
 * and the last activity, keeps the recent turns, and announces `AgentSessionStarted` /
 * `AgentSessionEnded` on the bus. Every session and every turn is also written to the store, in
 * order, so its history outlives the process: a turn is confirmed to the client (`remember`
 * resolves) only once it is durable, session bookkeeping (opened, touched, ended) nobody waits for.
 */
import { randomUUID } from 'node:crypto';
import { errorSummary, fallbackLogger, LimitExceededError, type EventBus, type Lease, type Logger, type Principal } from '@fw/runtime';
import type { FwStore, SessionMessageRow, SessionRow } from '@fw/store';
import type { AgentSessionInfo } from './admin-view.js';
import type { AiMessage } from './runtime/port.js';
import { RunCancelledError, StoreUnavailableError } from './errors.js';
import { ownerLabel, reachableBy } from './tenancy/ownership.js';

export interface AgentSession {
  readonly id: string;
  readonly agentName: string;
  readonly resourceUuid: string | null;
  /**
   * Who owns it: `principal:<id>` (only that principal resumes it) or `anonymous:<key>` (resumed
   * by whoever presents the session id); null for a session stored before owners existed.
   */
  readonly owner: string | null;
  readonly startedAt: number;
  lastActivityAt: number;
  messageCount: number;
  /** Earlier user/assistant turns, bounded by `fw.agent.sessions.history`. */
  readonly history: AiMessage[];
  /** Messages written to the store so far (the next one's sequence number). */
  storedMessages: number;
  /** The run in flight, if any. */
  running: AbortController | undefined;
  /** The caller's share of `fw.agent.sessions.max` (the chat endpoint's), given back when the session ends. */
  lease?: Lease;
}

export class SessionTracker {
  private readonly sessions = new Map<string, AgentSession>();
  /** Where store failures are reported (the agent module sets fw's logger). */
  log: Logger = fallbackLogger();

  constructor(
    private readonly bus: EventBus,
    private readonly max: () => number,
    private readonly store: FwStore,
    private readonly historyKeep: () => number = () => 20,
    private readonly now: () => number = Date.now,
  ) {}

  start(agentName: string, resourceUuid: string | null, owner: string | null = null): AgentSession {
    if (this.sessions.size >= this.max()) throw new LimitExceededError('fw.agent.sessions.max', this.max());
    const t = this.now();
    const s: AgentSession = {
      id: randomUUID(),
      agentName,
      resourceUuid,
      owner,
      startedAt: t,
      lastActivityAt: t,
      messageCount: 0,
      history: [],
      storedMessages: 0,
      running: undefined,
    };
    this.sessions.set(s.id, s);
    this.persist(s, null);
    this.bus.emit('AgentSessionStarted', { agentName, sessionId: s.id });
    return s;
  }

  /**
   * Continues a stored session on a new connection (a page reloaded, a server restarted): its
   * recent turns become the history again. Undefined when the store does not know the session,
   * it belongs to another agent, the caller may not reach it (another principal's; for an
   * anonymous caller, a principal's or one stored before owners existed), or it is live on
   * another connection: all answered alike, with a new session.
   */
  async resume(
    id: string,
    agentName: string,
    resourceUuid: string | null,
    principal: Principal | undefined,
  ): Promise<AgentSession | undefined> {
    if (this.sessions.has(id)) return undefined;
    let row: SessionRow | undefined;
    let messages: SessionMessageRow[];
    let lastSeq: number;
    try {
      await this.store.writes.flush();
      row = await this.store.sessions.get(id);
      if (!row || row.agent !== agentName || !reachableBy(row.owner, principal)) return undefined;
      if (this.sessions.has(id)) return undefined;
      if (this.sessions.size >= this.max()) throw new LimitExceededError('fw.agent.sessions.max', this.max());
      [messages, lastSeq] = await Promise.all([this.store.sessions.messages(id, this.historyKeep()), this.store.sessions.lastSeq(id)]);
    } catch (err) {
      if (err instanceof LimitExceededError) throw err;
      // The driver's message names internal addresses: logged here, the client reads a plain refusal.
      this.log.error({ error: errorSummary(err), session: id }, 'reading an agent session from the store failed');
      throw new StoreUnavailableError();
    }
    if (this.sessions.has(id)) return undefined;
    const t = this.now();
    const s: AgentSession = {
      id,
      agentName,
      resourceUuid,
      owner: row.owner,
      startedAt: row.started_at,
      lastActivityAt: t,
      messageCount: row.message_count,
      history: messages.map(toAiMessage),
      storedMessages: lastSeq,
      running: undefined,
    };
    this.sessions.set(id, s);
    this.persist(s, null);
    this.bus.emit('AgentSessionStarted', { agentName, sessionId: id });
    return s;
  }

  /** Counts one client message. */
  touch(s: AgentSession): void {
    s.messageCount++;
    s.lastActivityAt = this.now();
    this.persist(s, null);
  }

  /**
   * Adds turns to the session's history (bounded in memory; every turn is kept in the store).
   * Resolves once the turns and the session's row are durable, in one transaction of the store's
   * group commit; rejects with StoreUnavailableError when they could not be written (the client is
   * told, the turns stay in the in-memory history the conversation goes on with).
   */
  async remember(s: AgentSession, ...turns: AiMessage[]): Promise<void> {
    const keep = this.historyKeep();
    s.history.push(...turns);
    while (s.history.length > keep) s.history.shift();
    const at = this.now();
    const rows = turns.map((m) => ({ session_id: s.id, seq: ++s.storedMessages, role: m.role, content: m.content, at }));
    const session = this.row(s, null);
    try {
      await this.store.writes.commit(async (w) => {
        await w.sessions.put(session);
        for (const row of rows) await w.sessions.addMessage(row);
      }, s.id);
    } catch (err) {
      // The driver's message names internal addresses: logged here, the client reads a plain refusal.
      this.log.error({ error: errorSummary(err), session: s.id }, 'writing agent session turns to the store failed');
      throw new StoreUnavailableError();
    }
  }

  end(s: AgentSession): void {
    s.lease?.release();
    if (!this.sessions.delete(s.id)) return;
    // A cancel, not a failure: the run in flight (a model call, a tool waiting for approval) ends
    // cancelled, and nobody is left to tell, so nothing is logged as an error.
    s.running?.abort(new RunCancelledError('the session ended'));
    this.persist(s, 'closed');
    this.bus.emit('AgentSessionEnded', {
      agentName: s.agentName,
      sessionId: s.id,
      durationMs: this.now() - s.startedAt,
      messageCount: s.messageCount,
    });
  }

  get(id: string): AgentSession | undefined {
    return this.sessions.get(id);
  }

  count(agentName?: string): number {
    if (!agentName) return this.sessions.size;
    let n = 0;
    for (const s of this.sessions.values()) if (s.agentName === agentName) n++;
    return n;
  }

  list(agentName?: string): AgentSessionInfo[] {
    return [...this.sessions.values()]
      .filter((s) => !agentName || s.agentName === agentName)
      .map((s) => ({
        id: s.id,
        agentName: s.agentName,
        resourceUuid: s.resourceUuid,
        owner: ownerLabel(s.owner),
        startedAt: new Date(s.startedAt).toISOString(),
        lastActivityAt: new Date(s.lastActivityAt).toISOString(),
        messageCount: s.messageCount,
      }));
  }

  /** Sessions in the store, live or ended, newest activity first (ended ones outlive restarts). */
  async stored(
    query: { agentName?: string; limit?: number } = {},
  ): Promise<(AgentSessionInfo & { endedAt: string | null; endReason: string | null })[]> {
    await this.store.writes.flush();
    const rows = await this.store.sessions.list(query.agentName ? { agent: query.agentName } : {}, query.limit ?? 100);
    return rows.map(info);
  }

  /** The stored turns of a session, oldest first (undefined when the store does not know it). */
  async messages(sessionId: string, limit = 1000): Promise<AiMessage[] | undefined> {
    await this.store.writes.flush();
    if (!(await this.store.sessions.get(sessionId))) return undefined;
    return (await this.store.sessions.messages(sessionId, limit)).map(toAiMessage);
  }

  endAll(): void {
    for (const s of [...this.sessions.values()]) this.end(s);
  }

  private persist(s: AgentSession, endReason: string | null): void {
    const row = this.row(s, endReason);
    this.store.writes.defer((w) => w.sessions.put(row), s.id);
  }

  private row(s: AgentSession, endReason: string | null): SessionRow {
    return {
      id: s.id,
      agent: s.agentName,
      resource_uuid: s.resourceUuid,
      owner: s.owner,
      started_at: s.startedAt,
      last_activity_at: s.lastActivityAt,
      ended_at: endReason ? this.now() : null,
      end_reason: endReason,
      message_count: s.messageCount,
    };
  }
}

function toAiMessage(m: { role: string; content: string }): AiMessage {
  return { role: m.role === 'assistant' ? 'assistant' : m.role === 'system' ? 'system' : 'user', content: m.content };
}

function info(r: SessionRow): AgentSessionInfo & { endedAt: string | null; endReason: string | null } {
  return {
    id: r.id,
    agentName: r.agent,
    resourceUuid: r.resource_uuid,
    owner: ownerLabel(r.owner),
    startedAt: new Date(r.started_at).toISOString(),
    lastActivityAt: new Date(r.last_activity_at).toISOString(),
    messageCount: r.message_count,
    endedAt: r.ended_at === null ? null : new Date(r.ended_at).toISOString(),
    endReason: r.end_reason,
  };
}
