import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterStatus } from '../dist/index.js';
import { getJson, redisServerInstalled, startNode, stopNode, ThrowawayRedis, uniquePrefix, type FwNode } from './harness.js';
import { waitFor } from '@fw/testing';

const installed = await redisServerInstalled();
const nodes: FwNode[] = [];
let redis: ThrowawayRedis | undefined;
after(async () => {
  await Promise.all(nodes.map((n) => stopNode(n, 'SIGKILL')));
  await redis?.stop();
});

interface Status {
  status: ClusterStatus;
  events: { change: string; detail: string }[];
}

const HEARTBEAT = 200;
const TIMEOUT = 1500;
const status = (n: FwNode): Promise<Status> => getJson<Status>(`${n.url}/test/status`);
const membership = (s: Status): string[] =>
  s.events.filter((e) => e.change === 'node-joined' || e.change === 'node-left').map((e) => e.detail);

test('a Redis restart that loses every key does not make the nodes report each other gone and back; a node that dies meanwhile is still reported', {
  skip: !installed && 'redis-server is not installed',
}, async () => {
  redis = await ThrowawayRedis.start(); // no persistence: the restart loses the presence keys
  const prefix = uniquePrefix('presence');
  const settings = [`fw.cluster.heartbeat-interval=${HEARTBEAT}`, `fw.cluster.node-timeout=${TIMEOUT}`];
  nodes.push(...(await Promise.all(['a', 'b', 'c'].map((id) => startNode(redis!.url, prefix, id, settings)))));
  const [a, b, c] = nodes as [FwNode, FwNode, FwNode];
  await waitFor('every node sees the two others', async () => {
    for (const n of nodes) if ((await status(n)).events.filter((e) => e.change === 'node-joined').length < 2) return undefined;
    return true;
  });
  const before = await Promise.all(nodes.map(async (n) => membership(await status(n)).length));

  await redis.stop();
  await waitFor('every node notices', async () => {
    for (const n of nodes) if ((await status(n)).status.redis !== 'down') return undefined;
    return true;
  });
  await redis.start();
  await waitFor('every node is back', async () => {
    for (const n of nodes) if ((await status(n)).status.redis !== 'up') return undefined;
    return true;
  });
  // c dies right after the restart, before it announces itself again: the grace must not hide it.
  await stopNode(c, 'SIGKILL');
  nodes.pop();
  // Past the grace (one node timeout) and the timeout of c's last record, plus a few heartbeats.
  await new Promise((r) => setTimeout(r, 2 * TIMEOUT + 4 * HEARTBEAT));

  for (const [i, n] of [a, b].entries()) {
    const changes = membership(await status(n)).slice(before[i]);
    assert.deepEqual(changes, [`node c left the cluster (no heartbeat within ${TIMEOUT} ms)`], `node ${n.id}: ${changes.join('; ')}`);
  }
});
