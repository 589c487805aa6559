/**
 * The coordination journal: every dispatch, completion, failure, handoff, evaluation and
 * interruption of every coordination, keyed by coordination ID, kept in the store (no fixed cap:
 * retention by age `fw.agent.journal.max-age` and by count `fw.agent.journal.max-events`). Recording
 * is synchronous for the caller: events are numbered here and written in batches through the
 * store's write queue; every read first waits for the writes before it. Reads are pages by cursor,
 * a readable log of one coordination, and its execution graph.
 */
import { randomUUID } from 'node:crypto';
import { BadRequestError, errorSummary, fallbackLogger, type Logger } from '@fw/runtime';
import type { FwStore, JournalRow } from '@fw/store';
import type {
  CoordinationGraph,
  JournalEvent,
  JournalEventKind,
  JournalPage,
  JournalPageQuery,
  JournalQuery,
  JournalTreeNode,
} from './admin-view.js';
import { treeOf } from './journal-tree.js';

/** What a caller records: the journal numbers it, stamps it and gives it its `eventId`. */
export type JournalEntry = Omit<JournalEvent, 'seq' | 'timestamp' | 'eventId' | 'parentEventId'> & { parentEventId?: string | null };

/** Events of one coordination read for its log and graph. */
const COORDINATION_MAX_EVENTS = 10_000;
/** `query()` without a limit: the newest this many. */
const QUERY_DEFAULT_LIMIT = 1000;

export interface JournalRetention {
  maxEvents: number;
  maxAgeMs: number;
}

export class CoordinationJournal {
  private seq = 0;
  /** The latest timestamp given: an event never gets an earlier one (time ranges become id ranges). */
  private lastAt = 0;
  private pending: JournalRow[] = [];
  private flushQueued = false;
  /** The last append asked of the store (see `durable`). */
  private appended: Promise<void> = Promise.resolve();
  /** Where failed appends are reported (the agent module sets fw's logger). */
  logger: Logger = fallbackLogger();
  /** Called with every recorded event (cluster mode copies it to the shared journal). */
  onRecord: ((event: JournalEvent) => void) | undefined;

  constructor(
    private readonly store: FwStore,
    private readonly retention: () => JournalRetention,
    private readonly now: () => number = Date.now,
  ) {}

  /** Continues the numbering of the events already in the store and applies retention. */
  async open(): Promise<void> {
    this.seq = Math.max(this.seq, await this.store.journal.maxId());
    this.lastAt = Math.max(this.lastAt, await this.store.journal.maxAt());
    await this.prune();
  }

  record(entry: JournalEntry): JournalEvent {
    const at = Math.max(this.now(), this.lastAt);
    this.lastAt = at;
    const event: JournalEvent = {
      seq: ++this.seq,
      timestamp: new Date(at).toISOString(),
      eventId: randomUUID(),
      ...entry,
      parentEventId: entry.parentEventId ?? null,
    };
    this.pending.push(toRow(event, at));
    if (!this.flushQueued) {
      this.flushQueued = true;
      // Every event recorded until this write runs goes into its one INSERT. Taken once: a batch
      // that met a store fault runs again with the same rows.
      let rows: JournalRow[] | undefined;
      const appended = this.store.writes.commit((w) => {
        if (!rows) {
          this.flushQueued = false;
          rows = this.pending.splice(0);
        }
        return w.journal.append(rows);
      }, 'journal');
      appended.catch((err: unknown) => {
        // Refused before it ran (the store is down): the events it would have taken are lost with it.
        if (!rows) {
          this.flushQueued = false;
          rows = this.pending.splice(0);
        }
        this.logger.error({ error: errorSummary(err), events: rows.length }, 'journal events could not be stored');
      });
      this.appended = appended;
    }
    this.onRecord?.(event);
    return event;
  }

  /**
   * Resolves once the events recorded so far are durable; rejects when the last append failed (a
   * run ending confirms its coordination's events with it).
   */
  durable(): Promise<void> {
    return this.appended;
  }

  /** Resolves once every recorded event is in the store (or failed to be). */
  flush(): Promise<void> {
    return this.store.writes.flush();
  }

  /** Deletes what retention no longer keeps; returns how many events went. */
  async prune(): Promise<number> {
    await this.flush();
    const { maxEvents, maxAgeMs } = this.retention();
    return this.store.journal.prune(maxAgeMs > 0 ? this.now() - maxAgeMs : undefined, maxEvents > 0 ? maxEvents : undefined);
  }

  /** Events in the store (after retention). */
  async size(): Promise<number> {
    await this.flush();
    return this.store.journal.count();
  }

  /**
   * One page of matching events, newest first by cursor; the events of a page are in time order
   * (oldest first). `nextCursor` continues with older events.
   */
  async page(q: JournalPageQuery): Promise<JournalPage> {
    await this.flush();
    const filter = filterOf(q);
    const before = q.cursor === undefined || q.cursor === '' ? undefined : parseCursor(q.cursor);
    const [page, total] = await Promise.all([
      this.store.journal.page({
        ...filter,
        limit: q.limit,
        ...(before !== undefined ? { before } : {}),
        ...(q.offset ? { offset: q.offset } : {}),
      }),
      q.withTotal === false ? Promise.resolve(undefined) : this.store.journal.count(filter),
    ]);
    return {
      events: page.rows.map(fromRow).reverse(),
      ...(page.next !== undefined ? { nextCursor: String(page.next) } : {}),
      ...(total !== undefined ? { total } : {}),
    };
  }

  /** Matching events in time order: the newest `limit` (default 1000). */
  async query(q: JournalQuery = {}): Promise<JournalEvent[]> {
    const limit = q.limit !== undefined && q.limit >= 0 ? q.limit : QUERY_DEFAULT_LIMIT;
    if (limit === 0) return [];
    return (await this.page({ ...q, limit, withTotal: false })).events;
  }

  /** One coordination as its causal tree: the roots, each with the events it caused; undefined when unknown. */
  async tree(coordinationId: string): Promise<JournalTreeNode[] | undefined> {
    const events = await this.coordination(coordinationId);
    return events.length === 0 ? undefined : treeOf(events);
  }

  /** Every event of one coordination, oldest first (at most 10,000). */
  async coordination(coordinationId: string): Promise<JournalEvent[]> {
    await this.flush();
    const page = await this.store.journal.page({ coordinationId, limit: COORDINATION_MAX_EVENTS, order: 'asc' });
    return page.rows.map(fromRow);
  }

  /** One line per event, e.g. `12:00:00.120Z  dispatch    lead → research  skill=search`. */
  async log(coordinationId: string): Promise<string | undefined> {
    const events = await this.coordination(coordinationId);
    if (events.length === 0) return undefined;
    const head = `coordination ${coordinationId} (coordinator ${events[0]!.coordinator}, ${events.length} events)`;
    return [head, ...events.map(line)].join('\n');
  }

  async graph(coordinationId: string): Promise<CoordinationGraph | undefined> {
    return graphOf(coordinationId, await this.coordination(coordinationId));
  }
}

function filterOf(q: JournalQuery): { coordinationId?: string; agent?: string; kinds?: JournalEventKind[]; from?: number; to?: number } {
  const from = bound(q.from);
  const to = bound(q.to);
  const kinds = q.kind === undefined ? [] : Array.isArray(q.kind) ? q.kind : [q.kind];
  return {
    ...(q.coordinationId ? { coordinationId: q.coordinationId } : {}),
    ...(q.agent ? { agent: q.agent } : {}),
    ...(kinds.length ? { kinds } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
  };
}

function parseCursor(cursor: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(cursor)) throw new BadRequestError(`invalid journal cursor '${cursor.slice(0, 40)}'`);
  return Number(cursor);
}

const KINDS: readonly JournalEventKind[] = ['dispatch', 'completion', 'failure', 'handoff', 'evaluation', 'interrupted'];

/** The journal's event kinds (the status of a step). */
export function isJournalKind(v: string): v is JournalEventKind {
  return (KINDS as readonly string[]).includes(v);
}

function toRow(e: JournalEvent, at: number): JournalRow {
  const { seq, kind, coordinationId, coordinator, agent, timestamp: _t, eventId, parentEventId, ...rest } = e;
  return {
    id: seq,
    at,
    kind,
    coordination_id: coordinationId,
    coordinator,
    agent,
    other: e.from ?? e.evaluator ?? null,
    body: JSON.stringify(rest),
    event_id: eventId,
    parent_event_id: parentEventId,
  };
}

function fromRow(r: JournalRow): JournalEvent {
  let rest: Partial<JournalEvent> = {};
  try {
    rest = JSON.parse(r.body) as Partial<JournalEvent>;
  } catch {
    // A row written by hand: its columns are still an event.
  }
  return {
    seq: r.id,
    kind: r.kind as JournalEventKind,
    coordinationId: r.coordination_id,
    coordinator: r.coordinator,
    agent: r.agent,
    timestamp: new Date(r.at).toISOString(),
    ...rest,
    // Rows from before causality was recorded (migration 0013): an id of their own, no parent.
    eventId: r.event_id ?? `seq-${r.id}`,
    parentEventId: r.parent_event_id ?? null,
  };
}

function graphOf(coordinationId: string, events: readonly JournalEvent[]): CoordinationGraph | undefined {
  if (events.length === 0) return undefined;

  const nodes = new Map<string, CoordinationGraph['nodes'][number]>();
  const node = (id: string, kind: 'coordinator' | 'agent' | 'evaluator'): void => {
    if (!nodes.has(id)) nodes.set(id, { id, kind });
  };
  type Edge = CoordinationGraph['edges'][number] & { done: number };
  const edges = new Map<string, Edge>();
  const edge = (from: string, to: string, kind: Edge['kind']): Edge => {
    const key = `${kind}:${from}->${to}`;
    let e = edges.get(key);
    if (!e) edges.set(key, (e = { from, to, kind, count: 0, failures: 0, totalDurationMs: 0, outcome: 'pending', done: 0 }));
    return e;
  };
  for (const ev of events) {
    node(ev.coordinator, 'coordinator');
    switch (ev.kind) {
      case 'dispatch':
        node(ev.agent, 'agent');
        edge(ev.coordinator, ev.agent, 'dispatch').count++;
        break;
      case 'completion':
      case 'failure': {
        const e = edge(ev.coordinator, ev.agent, 'dispatch');
        e.done++;
        e.totalDurationMs += ev.durationMs ?? 0;
        if (ev.kind === 'failure') e.failures++;
        break;
      }
      case 'handoff': {
        node(ev.from ?? ev.agent, 'agent');
        node(ev.to ?? ev.agent, 'agent');
        const e = edge(ev.from ?? ev.agent, ev.to ?? ev.agent, 'handoff');
        e.count++;
        e.done++;
        break;
      }
      case 'evaluation': {
        node(ev.evaluator ?? 'evaluator', 'evaluator');
        node(ev.agent, 'agent');
        const e = edge(ev.evaluator ?? 'evaluator', ev.agent, 'evaluation');
        e.count++;
        e.done++;
        if (ev.passed === false) e.failures++;
        break;
      }
      case 'interrupted':
        // The process stopped mid-coordination: what was still pending failed with it.
        for (const e of edges.values()) {
          if (e.done < e.count) {
            e.failures += e.count - e.done;
            e.done = e.count;
          }
        }
        break;
    }
  }
  return {
    coordinationId,
    nodes: [...nodes.values()],
    edges: [...edges.values()].map(({ done, ...e }) => ({
      ...e,
      outcome: done === 0 ? 'pending' : e.failures === 0 ? 'success' : e.failures >= done ? 'failure' : 'mixed',
    })),
  };
}

function bound(v: string | number | undefined): number | undefined {
  if (v === undefined || v === '') return undefined;
  if (typeof v === 'number') return v;
  const n = Number(v);
  if (Number.isFinite(n)) return n;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

function line(e: JournalEvent): string {
  const t = e.timestamp;
  switch (e.kind) {
    case 'dispatch':
      return `${t}  dispatch    ${e.coordinator} → ${e.agent}${e.skill ? `  skill=${e.skill}` : ''}${e.attempt && e.attempt > 1 ? `  attempt=${e.attempt}` : ''}`;
    case 'completion':
      return `${t}  completion  ${e.agent} → ${e.coordinator}${e.skill ? `  skill=${e.skill}` : ''}  ${e.durationMs ?? 0} ms`;
    case 'failure':
      return `${t}  failure     ${e.agent}${e.skill ? `  skill=${e.skill}` : ''}  ${e.durationMs ?? 0} ms  error: ${e.error ?? 'unknown'}`;
    case 'handoff':
      return `${t}  handoff     ${e.from} → ${e.to}  reason: ${e.reason ?? ''}`;
    case 'evaluation':
      return `${t}  evaluation  ${e.evaluator} rated ${e.agent}: score ${e.score} (${e.passed ? 'passed' : 'failed'})`;
    case 'interrupted':
      return `${t}  interrupted ${e.agent}  error: ${e.error ?? 'interrupted'}`;
  }
}
