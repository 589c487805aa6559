/**
 * Agent sessions: one per client conversation with an agent. Counts messages, remembers the start
 * and the last activity, and announces `AgentSessionStarted` / `AgentSessionEnded` on the bus.
 */
import { randomUUID } from 'node:crypto';
import { LimitExceededError, type EventBus } from '@fw/runtime';
import type { AgentSessionInfo } from './admin-view.js';
import type { AiMessage } from './runtime/port.js';

export interface AgentSession {
  readonly id: string;
  readonly agentName: string;
  readonly resourceUuid: string | null;
  readonly startedAt: number;
  lastActivityAt: number;
  messageCount: number;
  /** Earlier user/assistant turns, bounded by `fw.agent.sessions.history`. */
  readonly history: AiMessage[];
  /** The run in flight, if any. */
  running: AbortController | undefined;
}

export class SessionTracker {
  private readonly sessions = new Map<string, AgentSession>();

  constructor(private readonly bus: EventBus, private readonly max: () => number, private readonly now: () => number = Date.now) {}

  start(agentName: string, resourceUuid: string | null): AgentSession {
    if (this.sessions.size >= this.max()) throw new LimitExceededError('fw.agent.sessions.max', this.max());
    const t = this.now();
    const s: AgentSession = { id: randomUUID(), agentName, resourceUuid, startedAt: t, lastActivityAt: t, messageCount: 0, history: [], running: undefined };
    this.sessions.set(s.id, s);
    this.bus.emit('AgentSessionStarted', { agentName, sessionId: s.id });
    return s;
  }

  /** Counts one client message. */
  touch(s: AgentSession): void {
    s.messageCount++;
    s.lastActivityAt = this.now();
  }

  end(s: AgentSession): void {
    if (!this.sessions.delete(s.id)) return;
    s.running?.abort();
    this.bus.emit('AgentSessionEnded', { agentName: s.agentName, sessionId: s.id, durationMs: this.now() - s.startedAt, messageCount: s.messageCount });
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
        startedAt: new Date(s.startedAt).toISOString(),
        lastActivityAt: new Date(s.lastActivityAt).toISOString(),
        messageCount: s.messageCount,
      }));
  }

  endAll(): void {
    for (const s of [...this.sessions.values()]) this.end(s);
  }
}
