import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterResource as NodeResource, ClusterService, ControlResult as ClusterOutcome } from '@fw/runtime/adapter';
import { startHarness } from './harness.js';

const API = '/api/admin';

/** A cluster double: node `b` holds `remote-1`; node `c` does not answer. */
function fakeCluster() {
  const calls: string[] = [];
  const audit: object[] = [];
  const row = (uuid: string, node: string): NodeResource => ({
    uuid,
    node,
    transport: 'websocket',
    protocol: 'fw',
    path: '/fw/chat/x',
    broadcasters: ['/fw/chat/x'],
    broadcaster: '/fw/chat/x',
    remoteAddress: '127.0.0.1',
    connectedAt: new Date(0).toISOString(),
    principal: null,
    messagesIn: 0,
    messagesOut: 0,
    dropped: 0,
  });
  const routed = (uuid: string): ClusterOutcome =>
    uuid === 'remote-1'
      ? { outcome: 'done', node: 'b', missing: [] }
      : uuid === 'maybe-on-c'
        ? { outcome: 'node_unreachable', node: null, missing: ['c'] }
        : { outcome: 'not_found', node: null, missing: [] };
  // A double: only what the admin plane calls, with the fields its answers use.
  const double = {
    nodeId: 'a',
    handle: () => () => undefined,
    nodes: async () => [
      { id: 'a', self: true },
      { id: 'b', self: false },
    ],
    overview: async () => ({ totals: { nodes: 2, connections: 5 }, nodes: [{ node: 'a' }, { node: 'b' }], missing: ['c'] }),
    listResources: async (q: { offset?: number; limit?: number }) => {
      calls.push(`resources:${q.offset}:${q.limit}`);
      return { items: [row('local-1', 'a'), row('remote-1', 'b')], total: 2, offset: q.offset ?? 0, limit: q.limit ?? 100, missing: ['c'] };
    },
    getResource: async (uuid: string) =>
      ({ ...routed(uuid), ...(uuid === 'remote-1' ? { result: row(uuid, 'b') } : {}) }) as ClusterOutcome<NodeResource>,
    listBroadcasters: async () => ({
      items: [
        {
          id: '/fw/chat/x',
          node: 'b',
          resourceCount: 1,
          createdAt: '',
          internal: false,
          messages: 0,
          replayCacheSize: 0,
          lost: 0,
          recovered: 0,
          replayWindow: null,
        },
      ],
      missing: [],
    }),
    disconnect: async (uuid: string, reason?: string) => {
      calls.push(`disconnect:${uuid}:${reason}`);
      return routed(uuid);
    },
    unicast: async (uuid: string) => routed(uuid),
    broadcast: async (id: string) => {
      calls.push(`broadcast:${id}`);
      return { bid: 7 };
    },
    // The admin plane's routed methods: `admin.permit` (the target node's rules) then `admin.control` (the action).
    route: async <T>(method: string, args: Record<string, unknown>) => {
      const target = String(args.target);
      if (method === 'admin.control')
        calls.push(`${String(args.action)}:${target}${args.reason !== undefined ? `:${String(args.reason)}` : ''}`);
      if (target === 'remote-task')
        return {
          outcome: 'done',
          node: 'b',
          missing: [],
          result: { taskId: 'remote-task', state: 'canceled' },
        } as unknown as ClusterOutcome<T>;
      return routed(target) as ClusterOutcome<T>;
    },
    gather: async <T>(method: string) =>
      method === 'admin.permit'
        ? { answers: [{ node: 'b', result: { holds: true } as T }], missing: [] }
        : {
            answers: [
              {
                node: 'b',
                result: [
                  {
                    seq: 1,
                    coordinationId: 'k',
                    kind: 'dispatch',
                    timestamp: new Date(1000).toISOString(),
                    coordinator: 'lead',
                    agent: 'x',
                  },
                ] as T,
              },
            ],
            missing: ['c'],
          },
    append: async (_name: string, entry: object) => {
      audit.unshift(entry);
      return true;
    },
    log: (name: string) => ({
      list: async () =>
        name === 'audit-refusals'
          ? []
          : name === 'journal'
            ? [
                {
                  seq: 2,
                  coordinationId: 'k',
                  kind: 'completion',
                  timestamp: new Date(2000).toISOString(),
                  coordinator: 'lead',
                  agent: 'x',
                  node: 'c',
                },
                {
                  seq: 1,
                  coordinationId: 'k',
                  kind: 'dispatch',
                  timestamp: new Date(1000).toISOString(),
                  coordinator: 'lead',
                  agent: 'x',
                  node: 'b',
                },
              ]
            : [
                ...audit,
                {
                  seq: 9,
                  timestamp: new Date().toISOString(),
                  action: 'broadcast',
                  target: '/fw/elsewhere',
                  principal: null,
                  success: true,
                  outcome: 'allowed',
                  reason: null,
                  source: 'rest',
                  node: 'b',
                },
              ],
    }),
  };
  return { cluster: double as unknown as ClusterService, calls, audit };
}

test('cluster mode: nodes, overview, resources and broadcasters answer for the whole cluster and name silent nodes', async () => {
  const h = await startHarness();
  const { cluster, calls } = fakeCluster();
  h.fw.services.provide('cluster', cluster);
  try {
    const nodes = (await (await h.get(`${API}/nodes`)).json()) as { id: string }[];
    assert.deepEqual(
      nodes.map((n) => n.id),
      ['a', 'b'],
    );
    const ov = (await (await h.get(`${API}/overview`)).json()) as {
      status: string;
      cluster: { totals: { nodes: number }; missing: string[] };
    };
    assert.equal(ov.status, 'UP');
    assert.deepEqual([ov.cluster.totals.nodes, ov.cluster.missing], [2, ['c']]);
    const res = await h.get(`${API}/resources?offset=0&limit=10`);
    assert.equal(res.headers.get('x-total-count'), '2');
    assert.equal(res.headers.get('x-missing-nodes'), 'c');
    assert.deepEqual(
      ((await res.json()) as NodeResource[]).map((r) => [r.uuid, r.node]),
      [
        ['local-1', 'a'],
        ['remote-1', 'b'],
      ],
    );
    assert.deepEqual(calls, ['resources:0:10']);
    const one = (await (await h.get(`${API}/resources/remote-1`)).json()) as NodeResource;
    assert.equal(one.node, 'b');
    assert.equal((await h.get(`${API}/resources/nowhere`)).status, 404);
    const b = (await (await h.get(`${API}/broadcasters`)).json()) as { node: string }[];
    assert.deepEqual(
      b.map((x) => x.node),
      ['b'],
    );
    // The shared journal: every node's events (even a node that is gone), oldest first, filtered like the agent layer's.
    const journal = (await (await h.get(`${API}/journal`)).json()) as { node: string; kind: string }[];
    assert.deepEqual(
      journal.map((e) => [e.node, e.kind]),
      [
        ['b', 'dispatch'],
        ['c', 'completion'],
      ],
    );
    assert.equal(((await (await h.get(`${API}/journal?agent=lead`)).json()) as unknown[]).length, 2);
    assert.equal(((await (await h.get(`${API}/journal?agent=nobody`)).json()) as unknown[]).length, 0);
    assert.equal(((await (await h.get(`${API}/journal?from=1500`)).json()) as unknown[]).length, 1);
  } finally {
    await h.close();
  }
});

test('cluster mode: control is routed to the owning node and reports the real outcome; the audit log is shared', async () => {
  const h = await startHarness();
  const { cluster, calls, audit } = fakeCluster();
  h.fw.services.provide('cluster', cluster);
  try {
    const done = await h.send('DELETE', `${API}/resources/remote-1?reason=bye`);
    assert.equal(done.status, 200);
    assert.deepEqual(await done.json(), { uuid: 'remote-1', disconnected: true, reason: 'bye', node: 'b' });
    assert.ok(calls.includes('disconnect:remote-1:bye'));
    const gone = await h.send('DELETE', `${API}/resources/nowhere`);
    assert.equal(gone.status, 404);
    const silent = await h.send('DELETE', `${API}/resources/maybe-on-c`);
    assert.equal(silent.status, 504);
    assert.deepEqual(((await silent.json()) as { code: string; missing: string[] }).code, 'node_unreachable');
    const msg = await h.send('POST', `${API}/resources/remote-1/message`, { message: 'hi' });
    assert.deepEqual(await msg.json(), { uuid: 'remote-1', delivered: true, node: 'b' });
    // A broadcaster with members on node b only.
    const bc = await h.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/fw/chat/x', message: 'to b' });
    assert.deepEqual(await bc.json(), { broadcasterId: '/fw/chat/x', delivered: 1 });
    assert.ok(calls.includes('broadcast:/fw/chat/x'));
    assert.equal((await h.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: '/fw/nowhere', message: 'x' })).status, 404);
    const cancel = await h.send('POST', `${API}/tasks/remote-task/cancel`);
    assert.equal(cancel.status, 200);
    assert.ok(calls.includes('cancel:remote-task:canceled by the administrator'));
    // Every attempt went to the shared audit log, and the audit endpoint reads it (with other nodes' entries).
    await new Promise((r) => setTimeout(r, 20));
    assert.ok(audit.length >= 4);
    const entries = (await (await h.get(`${API}/audit`)).json()) as { action: string; node?: string }[];
    assert.ok(entries.some((e) => e.node === 'b' && e.action === 'broadcast'));
    assert.ok(entries.some((e) => e.action === 'disconnect'));
  } finally {
    await h.close();
  }
});
