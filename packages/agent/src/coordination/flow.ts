/**
 * The flow graph: who dispatches to whom across coordinations, aggregated from the journal's
 * dispatch, completion and failure events (`GET /api/admin/flow?lookbackMinutes=`, and one
 * coordination's with `GET /api/admin/flow/{coordinationId}`). An edge is a coordinator → agent
 * pair with its dispatches, successes, failures, and the average and 95th percentile duration of
 * its successful dispatches.
 */
import type { JournalEvent } from '../admin-view.js';

export interface FlowNode {
  id: string;
  label: string;
  kind: 'coordinator' | 'agent';
}

export interface FlowEdge {
  from: string;
  to: string;
  dispatches: number;
  successes: number;
  failures: number;
  averageDurationMs: number;
  p95DurationMs: number;
}

export interface FlowGraph {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

/** The graph of what the events say (any order; only dispatch, completion and failure events count). */
export function flowOf(events: Iterable<JournalEvent>): FlowGraph {
  const nodes = new Map<string, FlowNode>();
  const node = (id: string, kind: FlowNode['kind']): void => {
    const known = nodes.get(id);
    // A coordinator that is also dispatched to (a nested coordination) stays a coordinator.
    if (!known) nodes.set(id, { id, label: id, kind });
    else if (kind === 'coordinator') known.kind = kind;
  };
  const edges = new Map<string, FlowEdge & { durations: number[] }>();
  for (const e of events) {
    if (e.kind !== 'dispatch' && e.kind !== 'completion' && e.kind !== 'failure') continue;
    node(e.coordinator, 'coordinator');
    node(e.agent, 'agent');
    const key = `${e.coordinator}\u0000${e.agent}`;
    let edge = edges.get(key);
    if (!edge) {
      edge = {
        from: e.coordinator,
        to: e.agent,
        dispatches: 0,
        successes: 0,
        failures: 0,
        averageDurationMs: 0,
        p95DurationMs: 0,
        durations: [],
      };
      edges.set(key, edge);
    }
    if (e.kind === 'dispatch') edge.dispatches++;
    else if (e.kind === 'failure') edge.failures++;
    else {
      edge.successes++;
      edge.durations.push(e.durationMs ?? 0);
    }
  }
  return {
    nodes: [...nodes.values()],
    edges: [...edges.values()].map(({ durations, ...edge }) => ({
      ...edge,
      averageDurationMs: durations.length ? Math.round(durations.reduce((a, b) => a + b, 0) / durations.length) : 0,
      p95DurationMs: percentile(durations, 0.95),
    })),
  };
}

/** Nearest-rank percentile (0 for no values). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}
