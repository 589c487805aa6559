/**
 * The audit every cluster chaos scenario ends with (issue 13): each client has every published
 * message exactly once, in order, or gap signals that account exactly for the ones it lacks.
 */
import assert from 'node:assert/strict';
import { connect, type FwClient, type Gap, type Recovery } from '@fw/client/node';

export interface Listener {
  client: FwClient;
  got: string[];
  gaps: Gap[];
  recoveries: Recovery[];
}

/** A client on `urls` (tried in order), recording messages, gaps and recoveries; resolves once open. */
export function listen(urls: string[], path: string, clients: FwClient[]): Promise<Listener> {
  const client = connect(urls.map((u) => `${u}${path}`), { transports: ['websocket'], reconnect: { minDelay: 50, maxDelay: 200 } });
  clients.push(client);
  const l: Listener = { client, got: [], gaps: [], recoveries: [] };
  client.onMessage((d) => l.got.push(d));
  client.onGap((g) => l.gaps.push(g));
  client.onRecovery((r) => l.recoveries.push(r));
  return new Promise((resolve) => client.onStateChange((s) => s === 'open' && resolve(l)));
}

export interface AuditResult {
  received: number;
  duplicates: number;
  outOfOrder: number;
  missing: number;
  signalled: number;
  silent: number;
}

export function audit(published: readonly string[], l: Pick<Listener, 'got' | 'gaps'>): AuditResult {
  const index = new Map(published.map((p, i) => [p, i]));
  const seen = new Set<string>();
  let duplicates = 0;
  let outOfOrder = 0;
  let previous = -1;
  for (const d of l.got) {
    const i = index.get(d);
    if (i === undefined) continue;
    if (seen.has(d)) duplicates++;
    seen.add(d);
    if (i < previous) outOfOrder++;
    previous = i;
  }
  const missing = published.length - seen.size;
  const signalled = l.gaps.reduce((n, g) => n + (g.lost ?? 0), 0);
  return { received: seen.size, duplicates, outOfOrder, missing, signalled, silent: Math.max(0, missing - signalled) };
}

export function assertAudit(published: readonly string[], l: Pick<Listener, 'got' | 'gaps'>, what: string): AuditResult {
  const a = audit(published, l);
  assert.equal(a.duplicates, 0, `${what}: duplicates ${JSON.stringify(a)}`);
  assert.equal(a.outOfOrder, 0, `${what}: out of order ${JSON.stringify(a)}`);
  assert.equal(a.silent, 0, `${what}: silent losses ${JSON.stringify(a)}`);
  assert.equal(a.missing, a.signalled, `${what}: the gaps account exactly for what is missing ${JSON.stringify(a)}`);
  return a;
}
