/**
 * Issue 26 item 1 in a cluster: three nodes on a Redis of this test. Arming on node A refuses a
 * new run on node C within a second and stops C's streaming run in flight; every node
 * acknowledges; a node started while the cluster is armed starts armed; disarming on B lets runs
 * through on C again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { cluster } from '@fw/redis';
import { waitFor } from '@fw/testing';
import type { KillSwitchReport } from '../../dist/index.js';
import { API, chat, startGovApp, TOKENS, type GovApp } from './apps.js';
import { redisServerMissing, ThrowawayRedis } from '../security/cluster-nodes.js';

/** The governance tests keep their throwaway Redis to their own port range. */
const GOVERNANCE_PORTS = { from: 22_000, count: 1000 };

const ARM = `${API}/governance/kill-switch/arm`;
const DISARM = `${API}/governance/kill-switch/disarm`;
const HEALTH = `${API}/governance/health`;

function startNode(redis: ThrowawayRedis, prefix: string, id: string): Promise<GovApp> {
  return startGovApp(
    {
      'fw.cluster.redis-url': redis.url,
      'fw.cluster.prefix': prefix,
      'fw.cluster.node-id': id,
      'fw.cluster.heartbeat-interval': 300,
      'fw.cluster.node-timeout': 3000,
      'fw.cluster.request-timeout': 2000,
    },
    [cluster()],
  );
}

async function a2aSend(app: GovApp, agent: string, text: string): Promise<string> {
  const res = await app.send('POST', `/fw/agent/${agent}/a2a`, {
    jsonrpc: '2.0',
    id: 1,
    method: 'message/send',
    params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }] } },
  });
  return res.text();
}

async function seesNodes(node: GovApp, count: number): Promise<void> {
  await waitFor(
    `a node sees ${count} nodes`,
    async () => {
      const res = await node.get(`${API}/nodes`);
      return res.status === 200 && ((await res.json()) as unknown[]).length === count ? true : undefined;
    },
    15_000,
  );
}

test('arming on A refuses a new run on C within 1 s and stops C’s run in flight; every node acknowledges; a node started while armed is armed', {
  skip: redisServerMissing,
}, async () => {
  const redis = await ThrowawayRedis.start(GOVERNANCE_PORTS);
  const prefix = `fwtest-gov-${randomBytes(4).toString('hex')}`;
  const nodes: GovApp[] = [];
  try {
    for (const id of ['node-a', 'node-b', 'node-c']) nodes.push(await startNode(redis, prefix, id));
    for (const n of nodes) await seesNodes(n, 3);
    const [a, b, c] = nodes as [GovApp, GovApp, GovApp];

    // A streaming run in flight on C.
    const client = await chat(c, 'writer');
    const from = client.frames.length;
    client.prompt('write forever');
    await client.next('token', from);

    const started = Date.now();
    const res = await a.send('POST', ARM, { reason: 'fleet-wide incident' });
    assert.equal(res.status, 200);
    const report = (await res.json()) as KillSwitchReport;
    assert.equal(report.armed, true);
    assert.deepEqual(report.nodes.map((n) => n.node).sort(), ['node-a', 'node-b', 'node-c'], 'every node acknowledged');
    assert.ok(report.nodes.every((n) => Date.parse(n.ackAt) >= started - 1000));
    assert.equal(report.missing, undefined);

    // C refuses a new run within a second of the arm on A (waited for, never longer).
    await waitFor(
      'C refuses a new run',
      async () => ((await a2aSend(c, 'helper', 'hi')).includes('kill switch is armed (fleet-wide incident)') ? true : undefined),
      { timeout: Math.max(1, 1000 - (Date.now() - started)), interval: 20 },
    );
    // C's run in flight stopped with the reason.
    const stopped = await client.next('error', from);
    assert.equal(stopped.code, 'kill_switch_armed');
    await client.close();

    // Every node reports itself armed.
    const health = (await (await b.get(HEALTH)).json()) as KillSwitchReport;
    assert.deepEqual(health.nodes.map((n) => [n.node, n.armed]).sort(), [
      ['node-a', true],
      ['node-b', true],
      ['node-c', true],
    ]);

    // A node that joins now starts armed (it reads the cluster's state before it admits a run).
    const d = await startNode(redis, prefix, 'node-d');
    nodes.push(d);
    assert.match(await a2aSend(d, 'writer', 'hi'), /kill switch is armed \(fleet-wide incident\)/);
    assert.equal(d.model.requests, 0);

    // Disarmed on B: C runs again.
    const off = await b.send('POST', DISARM, { reason: 'resolved' }, TOKENS.operator);
    assert.equal(off.status, 200);
    assert.equal(((await off.json()) as KillSwitchReport).armed, false);
    assert.match(await a2aSend(c, 'writer', 'hi'), /"state":"completed"/);
    assert.match(await a2aSend(d, 'writer', 'hi'), /"state":"completed"/);
  } finally {
    for (const n of nodes.reverse()) await n.close().catch(() => undefined);
    await redis.stop();
  }
});

test('cancel-inflight on node A stops the model call of a chat session held by node B; B’s socket goes on', {
  skip: redisServerMissing,
}, async () => {
  const redis = await ThrowawayRedis.start(GOVERNANCE_PORTS);
  const prefix = `fwtest-gov-${randomBytes(4).toString('hex')}`;
  const nodes: GovApp[] = [];
  try {
    for (const id of ['node-a', 'node-b']) nodes.push(await startNode(redis, prefix, id));
    for (const n of nodes) await seesNodes(n, 2);
    const [a, b] = nodes as [GovApp, GovApp];
    const client = await chat(b, 'writer');
    const session = String(client.frames.find((f) => f.type === 'session')?.id);
    let from = client.frames.length;
    client.prompt('write forever');
    await client.next('token', from);

    const res = await a.send('POST', `${API}/sessions/${session}/cancel-inflight`, { reason: 'from node a' });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { session, cancelled: true, node: 'node-b' });
    assert.equal((await client.next('cancelled', from)).reason, 'from node a');

    from = client.frames.length;
    client.prompt('hello');
    assert.equal((await client.next('done', from)).text, 'ok');
    await client.close();
    assert.equal((await a.send('POST', `${API}/sessions/${randomUUID()}/cancel-inflight`)).status, 404);
  } finally {
    for (const n of nodes.reverse()) await n.close().catch(() => undefined);
    await redis.stop();
  }
});
