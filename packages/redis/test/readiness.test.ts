import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework, MemoryLogger } from '@fw/runtime';
import { cluster } from '../dist/index.js';
import { redisServerInstalled, TcpProxy, ThrowawayRedis, uniquePrefix } from './harness.js';
import { waitFor } from '@fw/testing';

const installed = await redisServerInstalled();
let redis: ThrowawayRedis | undefined;
let fw: Framework | undefined;
after(async () => {
  await fw?.close();
  await redis?.stop();
});

interface Ready {
  status: string;
  checks: Record<string, { ready: boolean; detail?: string }>;
}

test('cluster mode: /fw/ready is not ready (and fw_cluster_redis_up is 0) while Redis is down, and ready again once it is back', {
  skip: !installed && 'redis-server is not installed',
}, async () => {
  redis = await ThrowawayRedis.start();
  fw = new Framework({
    configFile: false,
    env: {},
    'fw.cluster.redis-url': redis.url,
    'fw.cluster.prefix': uniquePrefix('ready'),
    'fw.cluster.reconnect-max-delay': 200,
    'fw.cluster.request-timeout': 500,
    logger: new MemoryLogger(), // Redis is stopped on purpose: its warnings are expected
  });
  await fw.use(cluster());
  const { port } = await fw.listen(0, '127.0.0.1');
  const ready = async (): Promise<{ code: number; body: Ready }> => {
    const res = await fetch(`http://127.0.0.1:${port}/fw/ready`);
    return { code: res.status, body: (await res.json()) as Ready };
  };

  const redisUp = async (): Promise<number> => {
    const text = await (await fetch(`http://127.0.0.1:${port}/fw/metrics`)).text();
    const m = /^fw_cluster_redis_up (\d+)$/m.exec(text);
    assert.ok(m, 'fw_cluster_redis_up is exported');
    assert.match(text, /^fw_cluster_broadcasts_unpublished_total \d+$/m);
    return Number(m[1]);
  };

  const up = await ready();
  assert.equal(up.code, 200);
  assert.deepEqual(up.body.checks, { redis: { ready: true } });
  assert.equal(await redisUp(), 1);

  await redis.stop();
  const down = await waitFor('not ready', async () => {
    const r = await ready();
    return r.code === 503 ? r : undefined;
  });
  assert.deepEqual(down.body, {
    status: 'not_ready',
    phase: 'running',
    checks: { redis: { ready: false, detail: 'Redis is unreachable' } },
  });
  assert.ok(!JSON.stringify(down.body).includes(String(redis.port)), 'the Redis address is not exposed');
  assert.equal(await redisUp(), 0, 'the metric says so too');
  // Liveness stays up: the node still delivers locally and reconnects by itself.
  assert.equal((await fetch(`http://127.0.0.1:${port}/fw/health`)).status, 200);

  await redis.start();
  await waitFor('ready again', async () => ((await ready()).code === 200 ? true : undefined), 15_000);
  assert.equal(await redisUp(), 1);
});

/**
 * Issue 25: a Redis that stops answering without closing its connections (paused, or a network
 * path that drops packets) left the node "ready" for 30-57 s: no keepalive on the link. Each test
 * starts its own Redis (and, for a partial cut, its own proxy), at the keepalive's defaults.
 */
async function readyNode(
  url: string,
  name: string,
  options: Record<string, unknown> = {},
): Promise<{ fw: Framework; port: number; ready: () => Promise<number> }> {
  const node = new Framework({
    ...options,
    configFile: false,
    env: {},
    'fw.cluster.redis-url': url,
    'fw.cluster.prefix': uniquePrefix(name),
    'fw.cluster.reconnect-max-delay': 300,
    logger: new MemoryLogger(), // the link is cut on purpose: its warnings are expected
  });
  await node.use(cluster());
  const { port } = await node.listen(0, '127.0.0.1');
  return { fw: node, port, ready: async () => (await fetch(`http://127.0.0.1:${port}/fw/ready`)).status };
}

test('Redis paused (SIGSTOP, its sockets stay open): /fw/ready turns 503 within 5 s, and 200 again once it runs on', {
  skip: !installed && 'redis-server is not installed',
}, async (t) => {
  const paused = await ThrowawayRedis.start();
  const node = await readyNode(paused.url, 'paused');
  try {
    assert.equal(await node.ready(), 200);
    const since = Date.now();
    paused.pause();
    await waitFor('not ready', async () => ((await node.ready()) === 503 ? true : undefined), 10_000);
    const took = Date.now() - since;
    assert.ok(took < 5000, `noticed within 5 s (keepalive-interval 1000 + keepalive-timeout 2000): ${took} ms`);
    t.diagnostic(`not ready ${took} ms after the pause`);
    const status = node.fw.services.get('cluster')!.status();
    assert.equal(status.redis, 'down');
    assert.match(status.lastError ?? '', /Socket timeout/, 'the status says why');
    paused.resume();
    await waitFor('ready again', async () => ((await node.ready()) === 200 ? true : undefined), 15_000);
  } finally {
    paused.resume();
    await node.fw.close();
    await paused.dispose();
  }
});

test('only the subscriber connection goes silent (commands still answered): the keepalive on it takes the node out within 5 s', {
  skip: !installed && 'redis-server is not installed',
}, async (t) => {
  const server = await ThrowawayRedis.start();
  const proxy = await TcpProxy.start(server.port);
  const node = await readyNode(proxy.url, 'sub-silent');
  try {
    assert.equal(await node.ready(), 200);
    const since = Date.now();
    proxy.cut(/fw-sub/); // the connection named fw-sub in its handshake; fw-cmd goes on
    await waitFor('not ready', async () => ((await node.ready()) === 503 ? true : undefined), 10_000);
    const took = Date.now() - since;
    assert.ok(took < 5000, `noticed within 5 s: ${took} ms`);
    t.diagnostic(`not ready ${took} ms after the subscriber went silent`);
    proxy.heal();
    await waitFor('ready again', async () => ((await node.ready()) === 200 ? true : undefined), 15_000);
    // Subscribed again: a broadcast from another client of this Redis reaches the node.
    const room = node.fw.broadcasters.create('/fw/room');
    const sequence = await node.fw.services.get('cluster')!.broadcast('/fw/room', 'after the cut');
    await waitFor('the broadcast delivered', () => (room.cache.get(sequence.bid) !== undefined ? true : undefined));
  } finally {
    await proxy.close(); // first: a failed test may leave the link cut
    await node.fw.close();
    await server.dispose();
  }
});

test('fw.cluster.keepalive-timeout at its edge: answers 300 ms late keep a node with a 1000 ms timeout ready; 1500 ms late take it out', {
  skip: !installed && 'redis-server is not installed',
}, async () => {
  const server = await ThrowawayRedis.start();
  const proxy = await TcpProxy.start(server.port);
  const node = await readyNode(proxy.url, 'lag', { 'fw.cluster.keepalive-interval': 200, 'fw.cluster.keepalive-timeout': 1000 });
  try {
    assert.equal(await node.ready(), 200);
    proxy.lag(300);
    // Ten keepalive rounds, each answered well within its deadline: the link never drops.
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(await node.ready(), 200);
    assert.equal(node.fw.services.get('cluster')!.status().recoveries, 0, 'never reset');
    proxy.lag(1500);
    await waitFor('not ready', async () => ((await node.ready()) === 503 ? true : undefined), 10_000);
    proxy.lag(0);
    await waitFor('ready again', async () => ((await node.ready()) === 200 ? true : undefined), 15_000);
  } finally {
    await proxy.close(); // first: a failed test may leave the link lagging
    await node.fw.close();
    await server.dispose();
  }
});
