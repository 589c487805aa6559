/**
 * The coordination journal: every dispatch, completion, failure, handoff and evaluation of every
 * coordination, keyed by coordination ID. Bounded (`fw.agent.journal.max-events`): the oldest
 * events go first. It answers queries, renders one coordination as a readable log and yields its
 * execution graph.
 */
import type { CoordinationGraph, JournalEvent, JournalQuery } from './admin-view.js';

export type JournalEntry = Omit<JournalEvent, 'seq' | 'timestamp'>;

export class CoordinationJournal {
  private readonly events: JournalEvent[] = [];
  private seq = 0;
  /** Events dropped because the journal was full. */
  dropped = 0;
  /** Called with every recorded event (cluster mode copies it to the shared journal). */
  onRecord: ((event: JournalEvent) => void) | undefined;

  constructor(private readonly maxEvents: number, private readonly now: () => number = Date.now) {}

  record(entry: JournalEntry): JournalEvent {
    const event: JournalEvent = { seq: ++this.seq, timestamp: new Date(this.now()).toISOString(), ...entry };
    this.events.push(event);
    while (this.events.length > this.maxEvents) {
      this.events.shift();
      this.dropped++;
    }
    this.onRecord?.(event);
    return event;
  }

  get size(): number {
    return this.events.length;
  }

  /** Matching events in order; with `limit`, the most recent `limit` of them. */
  query(q: JournalQuery = {}): JournalEvent[] {
    const from = bound(q.from);
    const to = bound(q.to);
    const out = this.events.filter((e) => {
      if (q.coordinationId && e.coordinationId !== q.coordinationId) return false;
      if (q.agent && !involves(e, q.agent)) return false;
      const t = Date.parse(e.timestamp);
      if (from !== undefined && t < from) return false;
      if (to !== undefined && t > to) return false;
      return true;
    });
    return q.limit !== undefined && q.limit >= 0 ? out.slice(Math.max(0, out.length - q.limit)) : out;
  }

  /** One line per event, e.g. `12:00:00.120Z  dispatch    lead → research  skill=search`. */
  log(coordinationId: string): string | undefined {
    const events = this.query({ coordinationId });
    if (events.length === 0) return undefined;
    const head = `coordination ${coordinationId} (coordinator ${events[0]!.coordinator}, ${events.length} events)`;
    return [head, ...events.map(line)].join('\n');
  }

  graph(coordinationId: string): CoordinationGraph | undefined {
    const events = this.query({ coordinationId });
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
}

function involves(e: JournalEvent, agent: string): boolean {
  return e.agent === agent || e.coordinator === agent || e.from === agent || e.to === agent || e.evaluator === agent;
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
      return `${t}  dispatch    ${e.coordinator} → ${e.agent}${e.skill ? `  skill=${e.skill}` : ''}`;
    case 'completion':
      return `${t}  completion  ${e.agent} → ${e.coordinator}${e.skill ? `  skill=${e.skill}` : ''}  ${e.durationMs ?? 0} ms`;
    case 'failure':
      return `${t}  failure     ${e.agent}${e.skill ? `  skill=${e.skill}` : ''}  ${e.durationMs ?? 0} ms  error: ${e.error ?? 'unknown'}`;
    case 'handoff':
      return `${t}  handoff     ${e.from} → ${e.to}  reason: ${e.reason ?? ''}`;
    case 'evaluation':
      return `${t}  evaluation  ${e.evaluator} rated ${e.agent}: score ${e.score} (${e.passed ? 'passed' : 'failed'})`;
  }
}
