import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type FwClient } from '@fw/client/node';
import type { ClusterNode } from '../dist/index.js';
import { getJson, postJson, redisAvailable, REDIS_URL, SKIP_NO_REDIS, startNode, stopNode, uniquePrefix, type FwNode } from './harness.js';
import { waitFor } from '@fw/testing';

const available = await redisAvailable();
const nodes: FwNode[] = [];
const clients: FwClient[] = [];
after(async () => {
  for (const c of clients) c.close();
  await Promise.all(nodes.map((n) => stopNode(n)));
});

test('node C killed: the cluster sees it gone within the node timeout; its clients fail over to A or B and lose nothing', {
  skip: !available && SKIP_NO_REDIS,
}, async () => {
  const prefix = uniquePrefix('failover');
  // node-timeout 1500 ms, heartbeat 300 ms (fixture defaults)
  nodes.push(...(await Promise.all(['a', 'b', 'c'].map((id) => startNode(REDIS_URL, prefix, id)))));
  const [a, b, c] = nodes as [FwNode, FwNode, FwNode];
  await waitFor('three nodes', async () => ((await getJson<ClusterNode[]>(`${a.url}/test/nodes`)).length === 3 ? true : undefined));

  const room = '/fw/chat/stream';
  const open = (urls: string[], path = room): Promise<{ client: FwClient; got: string[] }> => {
    const client = connect(
      urls.map((u) => `${u}${path}`),
      { transports: ['websocket'], reconnect: { minDelay: 50, maxDelay: 200 } },
    );
    clients.push(client);
    const got: string[] = [];
    client.onMessage((d) => got.push(d));
    return new Promise((resolve) => client.onStateChange((s) => s === 'open' && resolve({ client, got })));
  };
  const watcher = await open([a.url]);
  await open([b.url]);
  const movers = await Promise.all([open([c.url, a.url, b.url]), open([c.url, b.url, a.url]), open([c.url, a.url, b.url])]);
  // A room whose only members are on C: A and B have no broadcaster for it until the movers
  // arrive, so their replay comes from the shadow cache.
  const solo = '/fw/chat/solo';
  const loners = await Promise.all([open([c.url, a.url], solo), open([c.url, b.url], solo)]);

  const count = 400;
  await postJson(`${a.url}/test/stream`, { broadcaster: room, count, every: 5, tag: 'm' });
  await postJson(`${b.url}/test/cluster-stream`, { broadcaster: solo, count, every: 5, tag: 's' });
  await waitFor('the streams under way on C', () => ([...movers, ...loners].every((m) => m.got.length >= 50) ? true : undefined));
  const killedAt = Date.now();
  await stopNode(c, 'SIGKILL');
  // Watched from now on, while the clients move.
  const goneAfter = waitFor(
    'C gone from the cluster view',
    async () => {
      const list = await getJson<ClusterNode[]>(`${b.url}/test/nodes`);
      return list.some((n) => n.id === 'c') ? undefined : { list, ms: Date.now() - killedAt };
    },
    10_000,
  );

  await waitFor(
    'every message on every client',
    () => (watcher.got.length === count && movers.every((m) => m.got.length >= count) ? true : undefined),
    20_000,
  );
  const expected = Array.from({ length: count }, (_, i) => `m:${i}`);
  for (const m of movers) {
    assert.deepEqual(m.got, expected, 'nothing lost, nothing twice, in order');
    assert.ok(!m.client.url.startsWith(c.url), `moved off C (now ${m.client.url})`);
  }
  assert.deepEqual(watcher.got, expected);
  await waitFor('the solo stream on the loners', () => (loners.every((m) => m.got.length >= count) ? true : undefined), 20_000);
  for (const m of loners) {
    assert.deepEqual(
      m.got,
      Array.from({ length: count }, (_, i) => `s:${i}`),
      'replayed from the shadow cache of a node that had no member',
    );
    assert.ok(!m.client.url.startsWith(c.url));
  }

  const gone = await goneAfter;
  assert.deepEqual(
    gone.list.map((n) => n.id),
    ['a', 'b'],
  );
  // node-timeout 1500 ms; slack for a loaded machine (the record expires in Redis, then the poll sees it).
  assert.ok(gone.ms < 1500 + 1500, `noticed within the node timeout (after ${gone.ms} ms)`);
  const status = await getJson<{ events: { change: string; detail: string }[] }>(`${a.url}/test/status`);
  assert.ok(
    status.events.some((e) => e.change === 'node-left' && e.detail.includes('node c')),
    'the node-left is reported as an event',
  );
});
