/**
 * A coordination's causal tree: each journal event under the event that caused it (its
 * `parentEventId`), so fan-outs, retries, handoffs and evaluations read as branches. An event
 * whose parent is not in the coordination (rows from before causality was recorded, a parent
 * deleted by retention) is a root: nothing is dropped.
 */
import type { JournalEvent, JournalTreeNode } from './admin-view.js';

/** The roots in time order, each with its children in time order (events given oldest first). */
export function treeOf(events: readonly JournalEvent[]): JournalTreeNode[] {
  const nodes = new Map<string, JournalTreeNode>();
  const roots: JournalTreeNode[] = [];
  for (const e of events) {
    // A parent is always journaled before its children: looking it up among the earlier events
    // only also means no row written by hand can make a cycle.
    const parent = e.parentEventId !== null ? nodes.get(e.parentEventId) : undefined;
    const node: JournalTreeNode = { ...e };
    if (parent) (parent.children ??= []).push(node);
    else roots.push(node);
    if (!nodes.has(e.eventId)) nodes.set(e.eventId, node);
  }
  return roots;
}
