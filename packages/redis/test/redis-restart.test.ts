import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type FwClient } from '@fw/client/node';
import type { ClusterOverview, ClusterStatus } from '../dist/index.js';
import { getJson, postJson, redisServerInstalled, startNode, stopNode, ThrowawayRedis, uniquePrefix, type FwNode } from './harness.js';
import { waitFor } from '@fw/testing';

const installed = await redisServerInstalled();
const nodes: FwNode[] = [];
const clients: FwClient[] = [];
let redis: ThrowawayRedis | undefined;
after(async () => {
  for (const c of clients) c.close();
  await Promise.all(nodes.map((n) => stopNode(n)));
  await redis?.stop();
});

interface Status {
  status: ClusterStatus;
  events: { change: string; detail: string; lost?: number }[];
}

test('Redis restarted during a broadcast stream, no replay streams: nodes recover by themselves; the loss is counted and reported', {
  skip: !installed && 'redis-server is not installed',
}, async () => {
  redis = await ThrowawayRedis.start();
  const prefix = uniquePrefix('restart');
  // The admin plane's ring of recent events must outlast the stream's MessageBroadcast events.
  nodes.push(
    ...(await Promise.all(
      ['a', 'b'].map((id) => startNode(redis!.url, prefix, id, ['fw.admin.events.recent=5000', 'fw.cluster.replay-retention=0'])),
    )),
  );
  const [a, b] = nodes as [FwNode, FwNode];
  const room = '/fw/chat/stream';
  const listen = (node: FwNode): Promise<string[]> => {
    const client = connect(`${node.url}${room}`, { transports: ['websocket'] });
    clients.push(client);
    const got: string[] = [];
    client.onMessage((d) => got.push(d));
    return new Promise((resolve) => client.onStateChange((s) => s === 'open' && resolve(got)));
  };
  const onA = await listen(a);
  const onB = await listen(b);
  await waitFor('both nodes up', async () => {
    const ov = await getJson<ClusterOverview>(`${a.url}/test/overview`);
    return ov.totals.nodes === 2 ? true : undefined;
  });

  const count = 300;
  await postJson(`${a.url}/test/stream`, { broadcaster: room, count, every: 10, tag: 'm' });
  await waitFor('the stream under way on B', () => (onB.length >= 30 ? true : undefined));
  await redis.stop();
  await waitFor('A notices', async () => ((await getJson<Status>(`${a.url}/test/status`)).status.redis === 'down' ? true : undefined));
  await new Promise((r) => setTimeout(r, 500));
  await redis.start();

  // Local delivery never stopped on A; B gets the stream again once both are back.
  await waitFor('the whole stream on A', () => (onA.length === count ? true : undefined), 15_000);
  assert.deepEqual(
    onA,
    Array.from({ length: count }, (_, i) => `m:${i}`),
  );
  await waitFor('the end of the stream on B', () => (onB.at(-1) === `m:${count - 1}` ? true : undefined), 15_000);

  const numbers = onB.map((m) => Number(m.slice(2)));
  assert.ok(
    numbers.every((n, i) => i === 0 || n > numbers[i - 1]!),
    'in order, nothing twice',
  );
  const missed = count - onB.length;
  assert.ok(missed > 0, 'the outage cost B some messages (Redis was down for 500 ms of a 10 ms stream)');

  const sa = await getJson<Status>(`${a.url}/test/status`);
  const sb = await getJson<Status>(`${b.url}/test/status`);
  assert.equal(sa.status.redis, 'up');
  assert.equal(sb.status.redis, 'up');
  assert.ok(sa.status.recoveries >= 1 && sb.status.recoveries >= 1, 'both reconnected by themselves');
  assert.equal(sb.status.lost, missed, 'B counts exactly what it missed');
  // A counts what it broadcast while it could not publish; B may miss a few more (published while
  // its own subscription was not back yet): B counts every one it missed.
  assert.ok(sa.status.unpublished > 0 && sa.status.unpublished <= missed, 'A counts what it could not publish');
  for (const s of [sa, sb]) {
    assert.ok(s.events.some((e) => e.change === 'redis-down'));
    assert.ok(s.events.some((e) => e.change === 'redis-up'));
  }
  const lostEvents = sb.events.filter((e) => e.change === 'messages-lost').reduce((n, e) => n + (e.lost ?? 0), 0);
  assert.equal(lostEvents, missed, 'the loss is reported as events, never silent');
  // The admin plane's event stream carries them too (its ring of recent events).
  const recent = await getJson<{ type: string; change?: string; lost?: number }[]>(`${b.url}/api/admin/events/recent?limit=1000`);
  const changes = recent.filter((e) => e.type === 'ClusterChanged').map((e) => e.change);
  assert.ok(
    changes.includes('redis-down') && changes.includes('redis-up') && changes.includes('messages-lost'),
    `admin event stream: ${changes.join(', ')}`,
  );
  const ov = await getJson<ClusterOverview>(`${b.url}/test/overview`);
  assert.equal(ov.totals.lost, missed);
  assert.equal(ov.totals.unpublished, sa.status.unpublished);
  assert.equal(ov.totals.nodes, 2);
});
