import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type FwClient } from '@fw/client/node';
import type { ClusterNode, ClusterOverview, ClusterPage, ClusterResource, ControlResult } from '../dist/index.js';
import { getJson, postJson, redisAvailable, REDIS_URL, SKIP_NO_REDIS, startNode, stopNode, uniquePrefix, type FwNode } from './harness.js';
import { waitFor } from '@fw/testing';

const available = await redisAvailable();
const prefix = uniquePrefix('cluster');
let nodes: FwNode[] = [];
const clients: FwClient[] = [];

function client(node: FwNode, room: string): Promise<{ c: FwClient; got: string[] }> {
  const c = connect(`${node.url}/fw/chat/${room}`, { transports: ['websocket'] });
  clients.push(c);
  const got: string[] = [];
  c.onMessage((d) => got.push(d));
  return new Promise((resolve) => c.onStateChange((s) => s === 'open' && resolve({ c, got })));
}

before(async () => {
  if (!available) return;
  nodes = await Promise.all(['a', 'b', 'c'].map((id) => startNode(REDIS_URL, prefix, id)));
});

after(async () => {
  for (const c of clients) c.close();
  await Promise.all(nodes.map((n) => stopNode(n)));
});

test('three nodes see each other', { skip: !available && SKIP_NO_REDIS }, async () => {
  const [, b] = nodes as [FwNode, FwNode, FwNode];
  const list = await waitFor('three nodes', async () => {
    const l = await getJson<ClusterNode[]>(`${b.url}/test/nodes`);
    // The address is announced from the first heartbeat after the node listens.
    return l.length === 3 && l.every((n) => n.address) ? l : undefined;
  });
  assert.deepEqual(
    list.map((n) => n.id),
    ['a', 'b', 'c'],
  );
  assert.deepEqual(
    list.map((n) => n.self),
    [false, true, false],
  );
  for (const n of list) {
    assert.match(n.address, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(Date.parse(n.startedAt) > 0 && n.version.length > 0);
  }
});

test('a client on node A receives a broadcast published on node C, in order, exactly once', {
  skip: !available && SKIP_NO_REDIS,
}, async () => {
  const [a, b, c] = nodes as [FwNode, FwNode, FwNode];
  const onA = await client(a, 'lobby');
  const onB = await client(b, 'lobby');
  const onC = await client(c, 'lobby');
  onC.c.send('hello from C');
  await waitFor('delivery on A and B', () => (onA.got.length >= 1 && onB.got.length >= 1 && onC.got.length >= 1 ? true : undefined));
  assert.deepEqual(onA.got, ['hello from C']);
  assert.deepEqual(onB.got, ['hello from C']);
  assert.deepEqual(onC.got, ['hello from C'], 'the publishing node delivers its own broadcast once (its echo is ignored)');
  // A stream from C keeps its order on every node, and every node numbers it the same way.
  await postJson(`${c.url}/test/stream`, { broadcaster: '/fw/chat/lobby', count: 200, every: 0, tag: 's' });
  await waitFor('200 on A', () => (onA.got.length >= 201 ? true : undefined));
  const expected = Array.from({ length: 200 }, (_, i) => `s:${i}`);
  assert.deepEqual(onA.got.slice(1), expected);
  await waitFor('200 on B', () => (onB.got.length >= 201 ? true : undefined));
  assert.deepEqual(onB.got.slice(1), expected);
});

test('node B lists the resources of all three nodes, each row with its node, and pages across them', {
  skip: !available && SKIP_NO_REDIS,
}, async () => {
  const [a, b, c] = nodes as [FwNode, FwNode, FwNode];
  const extra = await client(c, 'side');
  const page = await getJson<ClusterPage<ClusterResource>>(`${b.url}/test/resources?limit=100`);
  assert.deepEqual(page.missing, []);
  const byNode = new Map<string, number>();
  for (const r of page.items) byNode.set(r.node, (byNode.get(r.node) ?? 0) + 1);
  assert.deepEqual([...byNode.entries()].sort(), [
    ['a', 1],
    ['b', 1],
    ['c', 2],
  ]);
  assert.equal(page.total, 4);
  assert.ok(page.items.some((r) => r.uuid === extra.c.uuid && r.node === 'c'));
  // A page that straddles nodes: offset 1, limit 2 → b's one and c's first.
  const mid = await getJson<ClusterPage<ClusterResource>>(`${b.url}/test/resources?offset=1&limit=2`);
  assert.deepEqual(
    mid.items.map((r) => r.node),
    ['b', 'c'],
  );
  assert.equal(mid.total, 4);
  const overview = await getJson<ClusterOverview>(`${a.url}/test/overview`);
  assert.equal(overview.totals.nodes, 3);
  assert.equal(overview.totals.connections, 4);
  assert.deepEqual(
    overview.nodes.map((n) => [n.node, n.stats.connections]),
    [
      ['a', 1],
      ['b', 1],
      ['c', 2],
    ],
  );
});

test('node B disconnects a client held by node C and learns the real outcome', { skip: !available && SKIP_NO_REDIS }, async () => {
  const [, b, c] = nodes as [FwNode, FwNode, FwNode];
  const target = await client(c, 'kick');
  const closed = new Promise<string>((resolve) => target.c.onClose(resolve));
  const done = await postJson<ControlResult>(`${b.url}/test/disconnect`, { uuid: target.c.uuid });
  assert.deepEqual({ outcome: done.outcome, node: done.node }, { outcome: 'done', node: 'c' });
  assert.equal(await closed, 'kicked by test');
  const again = await postJson<ControlResult>(`${b.url}/test/disconnect`, { uuid: target.c.uuid });
  assert.deepEqual({ outcome: again.outcome, missing: again.missing }, { outcome: 'not_found', missing: [] });
});

test('an audit entry written on node A is read on node C', { skip: !available && SKIP_NO_REDIS }, async () => {
  const [a, , c] = nodes as [FwNode, FwNode, FwNode];
  const entry = { action: 'disconnect', target: 'some-uuid', marker: prefix };
  assert.deepEqual(await postJson(`${a.url}/test/audit`, entry), { ok: true });
  const read = await getJson<{ action: string; marker: string; node: string }[]>(`${c.url}/test/audit`);
  assert.deepEqual(read[0], { ...entry, node: 'a' });
});

test('through the admin API: node B lists every node and the resources of all three, and disconnects a client held by node C; an audit entry written on A is read on C', {
  skip: !available && SKIP_NO_REDIS,
}, async () => {
  const [a, b, c] = nodes as [FwNode, FwNode, FwNode];
  const API = '/api/admin';
  const nodesRes = await getJson<{ id: string }[]>(`${b.url}${API}/nodes`);
  assert.deepEqual(
    nodesRes.map((n) => n.id),
    ['a', 'b', 'c'],
  );
  const onC = await client(c, 'admin-kick');
  const res = await fetch(`${b.url}${API}/resources?limit=1000`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-missing-nodes'), null);
  const rows = (await res.json()) as ClusterResource[];
  assert.equal(Number(res.headers.get('x-total-count')), rows.length);
  assert.deepEqual([...new Set(rows.map((r) => r.node))].sort(), ['a', 'b', 'c'], 'rows from all three nodes');
  assert.ok(rows.some((r) => r.uuid === onC.c.uuid && r.node === 'c'));
  const overview = await getJson<{ connections: number; cluster: ClusterOverview }>(`${b.url}${API}/overview`);
  assert.equal(overview.cluster.totals.nodes, 3);
  assert.equal(overview.cluster.totals.connections, rows.length);

  const closed = new Promise<string>((resolve) => onC.c.onClose(resolve));
  const del = await fetch(`${b.url}${API}/resources/${onC.c.uuid}?reason=${encodeURIComponent('kicked from B')}`, { method: 'DELETE' });
  assert.equal(del.status, 200);
  assert.deepEqual(await del.json(), { uuid: onC.c.uuid, disconnected: true, reason: 'kicked from B', node: 'c' });
  assert.equal(await closed, 'kicked from B');
  const again = await fetch(`${b.url}${API}/resources/${onC.c.uuid}`, { method: 'DELETE' });
  assert.equal(again.status, 404);

  // A broadcast from B's admin API to a room whose only member is on C.
  const lone = await client(c, 'only-on-c');
  const sent = await fetch(`${b.url}${API}/broadcasters/broadcast`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ broadcasterId: '/fw/chat/only-on-c', message: 'from B' }),
  });
  assert.deepEqual(await sent.json(), { broadcasterId: '/fw/chat/only-on-c', delivered: 1 });
  await waitFor('the broadcast on C', () => (lone.got.length > 0 ? true : undefined), 3000);
  assert.deepEqual(lone.got, ['from B']);

  // A write on A (a broadcast) is audited there and read from C.
  const marker = `/fw/chat/audit-${prefix}`;
  await client(a, `audit-${prefix}`);
  const post = await fetch(`${a.url}${API}/broadcasters/broadcast`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ broadcasterId: marker, message: 'audited' }),
  });
  assert.equal(post.status, 200);
  const entry = await waitFor(
    'the audit entry on C',
    async () => {
      const entries = await getJson<{ action: string; target: string; node: string; outcome: string }[]>(
        `${c.url}${API}/audit?action=broadcast`,
      );
      return entries.find((e) => e.target === marker);
    },
    3000,
  );
  assert.deepEqual([entry.node, entry.outcome], ['a', 'allowed']);
  const fromB = await getJson<{ target: string; node: string }[]>(`${b.url}${API}/audit?action=disconnect`);
  assert.ok(
    fromB.some((e) => e.target === onC.c.uuid && e.node === 'b'),
    "the disconnect done from B is audited as B's",
  );
});
