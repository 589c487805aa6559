/**
 * The audit every chaos scenario ends with: a client has every published message exactly once,
 * in order, or gap signals that account exactly for the ones it lacks (fw's "no silent loss").
 */
import assert from 'node:assert/strict';
import type { Gap } from '@fw/protocol';

/** What a client delivered: messages, gaps, recoveries. */
export interface Delivery<R = unknown> {
  got: string[];
  gaps: Gap[];
  recoveries: R[];
}

/** The part of an fw client the recorder listens to (`@fw/client`'s FwClient has it). */
export interface RecordableClient<R> {
  onMessage(listener: (data: string) => void): unknown;
  onGap(listener: (gap: Gap) => void): unknown;
  onRecovery(listener: (recovery: R) => void): unknown;
}

/** Records what `client` delivers from now on. */
export function record<R>(client: RecordableClient<R>): Delivery<R> {
  const d: Delivery<R> = { got: [], gaps: [], recoveries: [] };
  client.onMessage((m) => d.got.push(m));
  client.onGap((g) => d.gaps.push(g));
  client.onRecovery((r) => d.recoveries.push(r));
  return d;
}

export interface AuditResult {
  published: number;
  received: number;
  duplicates: number;
  outOfOrder: number;
  missing: number;
  /** Messages the gap signals say are missing. */
  signalled: number;
  /** Missing without a gap signal saying so: must be 0. */
  silent: number;
}

/**
 * `published` in the order the server sequenced them. A client may lack messages only as many as
 * its gaps (with counts) name; anything else is a silent loss.
 */
export function audit(published: readonly string[], d: Pick<Delivery, 'got' | 'gaps'>): AuditResult {
  const index = new Map(published.map((p, i) => [p, i]));
  const seen = new Set<string>();
  let duplicates = 0;
  let outOfOrder = 0;
  let previous = -1;
  for (const m of d.got) {
    const i = index.get(m);
    if (i === undefined) continue;
    if (seen.has(m)) duplicates++;
    seen.add(m);
    if (i < previous) outOfOrder++;
    previous = i;
  }
  const missing = published.length - seen.size;
  const signalled = d.gaps.reduce((n, g) => n + (g.lost ?? 0), 0);
  return {
    published: published.length,
    received: seen.size,
    duplicates,
    outOfOrder,
    missing,
    signalled,
    silent: Math.max(0, missing - signalled),
  };
}

/** Exactly once, in order, and every missing message accounted for by a gap (exactly). */
export function assertAudit(published: readonly string[], d: Pick<Delivery, 'got' | 'gaps'>, what: string): AuditResult {
  const a = audit(published, d);
  assert.equal(a.duplicates, 0, `${what}: duplicates ${JSON.stringify(a)}`);
  assert.equal(a.outOfOrder, 0, `${what}: out of order ${JSON.stringify(a)}`);
  assert.equal(a.silent, 0, `${what}: silent losses ${JSON.stringify(a)}`);
  assert.equal(a.missing, a.signalled, `${what}: the gaps account exactly for what is missing ${JSON.stringify(a)}`);
  return a;
}
