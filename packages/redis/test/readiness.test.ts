import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework, MemoryLogger } from '@fw/runtime';
import { cluster } from '../dist/index.js';
import { redisServerInstalled, ThrowawayRedis, uniquePrefix } from './harness.js';
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
