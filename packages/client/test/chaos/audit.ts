/**
 * The audit every chaos scenario ends with (issue 13): a client has every published message
 * exactly once, in order, or gap signals that account exactly for the ones it lacks.
 */
import assert from 'node:assert/strict';
import type { FwClient, Gap, Recovery } from '../../src/node.js';

export interface Record {
  got: string[];
  gaps: Gap[];
  recoveries: Recovery[];
}

/** Records what a client delivers: messages, gaps, recoveries. */
export function record(client: FwClient): Record {
  const r: Record = { got: [], gaps: [], recoveries: [] };
  client.onMessage((d) => r.got.push(d));
  client.onGap((g) => r.gaps.push(g));
  client.onRecovery((x) => r.recoveries.push(x));
  return r;
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
export function audit(published: readonly string[], r: Pick<Record, 'got' | 'gaps'>): AuditResult {
  const index = new Map(published.map((p, i) => [p, i]));
  const seen = new Set<string>();
  let duplicates = 0;
  let outOfOrder = 0;
  let previous = -1;
  for (const d of r.got) {
    const i = index.get(d);
    if (i === undefined) continue;
    if (seen.has(d)) duplicates++;
    seen.add(d);
    if (i < previous) outOfOrder++;
    previous = i;
  }
  const missing = published.length - seen.size;
  const signalled = r.gaps.reduce((n, g) => n + (g.lost ?? 0), 0);
  return { published: published.length, received: seen.size, duplicates, outOfOrder, missing, signalled, silent: Math.max(0, missing - signalled) };
}

/** Exactly once, in order, and every missing message accounted for by a gap (exactly). */
export function assertAudit(published: readonly string[], r: Pick<Record, 'got' | 'gaps'>, what: string): AuditResult {
  const a = audit(published, r);
  assert.equal(a.duplicates, 0, `${what}: duplicates ${JSON.stringify(a)}`);
  assert.equal(a.outOfOrder, 0, `${what}: out of order ${JSON.stringify(a)}`);
  assert.equal(a.silent, 0, `${what}: silent losses ${JSON.stringify(a)}`);
  assert.equal(a.missing, a.signalled, `${what}: the gaps account exactly for what is missing ${JSON.stringify(a)}`);
  return a;
}
