import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework, MemoryLogger, NotFoundError } from '@fw/runtime';
import { cluster as clusterMode } from '../dist/index.js';
import { freePort, redisAvailable, REDIS_URL, SKIP_NO_REDIS, uniquePrefix } from './harness.js';
import { waitFor } from '@fw/testing';

const available = await redisAvailable();

function framework(options: Record<string, unknown> = {}): Framework {
  return new Framework({ configFile: false, env: {}, ...options });
}

test('cluster(): a single node (nothing installed, no cluster service) unless fw.cluster.redis-url is set', async () => {
  const fw = framework();
  await fw.use(clusterMode());
  assert.equal(fw.services.get('cluster'), undefined);
  assert.equal(fw.runtime.adapter, undefined);
  await fw.close();
});

test('bad cluster configuration is refused at install with invalid_config', async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ 'fw.cluster.node-id': 'has space' }, /node-id/],
    [{ 'fw.cluster.node-id': 'x'.repeat(65) }, /node-id/],
    [{ 'fw.cluster.prefix': 'a b' }, /prefix/],
    [{ 'fw.cluster.heartbeat-interval': 1000, 'fw.cluster.node-timeout': 1000 }, /node-timeout must be longer/],
    [{ 'fw.cluster.request-timeout': 0 }, /requestTimeout must be positive/],
    [{ 'fw.cluster.shadow-broadcasters': -1 }, /shadow-broadcasters/],
    [{ 'fw.cluster.keepalive-interval': 0 }, /keepaliveInterval must be positive/],
    [{ 'fw.cluster.keepalive-timeout': 0 }, /keepaliveTimeout must be positive/],
    [{ 'fw.cluster.move-clients-after': -1 }, /move-clients-after' must be a duration/],
  ];
  for (const [options, message] of cases) {
    const fw = framework({ 'fw.cluster.redis-url': 'redis://127.0.0.1:1', ...options });
    await assert.rejects(
      fw.use(clusterMode()),
      (err: Error & { code?: string }) => err.code === 'invalid_config' && message.test(err.message),
    );
    await fw.close();
  }
  // The edge: 64 characters is a valid id.
  const ok = framework({
    'fw.cluster.redis-url': `redis://127.0.0.1:${await freePort()}`,
    'fw.cluster.node-id': 'x'.repeat(64),
    'fw.cluster.request-timeout': 100,
  });
  await ok.use(clusterMode());
  assert.equal(ok.services.get('cluster')!.nodeId, 'x'.repeat(64));
  await ok.close();
});

test('Redis unreachable at start: the node starts alone; its broadcasts wait in the outbox, or beyond it (here: off) go local only, counted as unpublished', async () => {
  const logger = new MemoryLogger();
  const fw = framework({
    'fw.cluster.redis-url': `redis://127.0.0.1:${await freePort()}`,
    'fw.cluster.request-timeout': 100,
    'fw.cluster.node-id': 'alone',
    'fw.cluster.outbox': 1,
    logger,
  });
  try {
    await fw.use(clusterMode());
    const cluster = fw.services.get('cluster')!;
    assert.equal(cluster.status().redis, 'down');
    const b = fw.broadcasters.create('/fw/room');
    const events: string[] = [];
    fw.events.on('ClusterChanged', (e) => events.push(`${e.change}:${e.lost}`));
    b.deliverSequenced('first', 1);
    b.broadcast('queued');
    assert.equal(b.cache.get(2), undefined, 'held for Redis, not delivered yet');
    assert.equal(cluster.status().queued, 1);
    b.broadcast('local only'); // the outbox (1) is full
    assert.equal(b.cache.get(2)?.payload, 'local only', 'delivered locally with the next sequence');
    assert.equal(cluster.status().unpublished, 1);
    assert.deepEqual((await cluster.disconnect('3f1c6a7e-0000-4000-8000-000000000000')).outcome, 'not_found');
    const overview = await cluster.overview();
    assert.deepEqual([overview.redis, overview.totals.nodes, overview.missing], ['down', 1, []]);
    await waitFor('the loss reported', () => (events.includes('messages-lost:1') ? true : undefined), 3000);
    // Both said as warnings of the cluster module, naming the node (and the password-less URL).
    const warnings = logger.entries.filter((e) => e.level === 'warn');
    assert.ok(warnings.some((e) => e.fields.module === 'cluster' && e.fields.node === 'alone' && /unreachable/.test(e.message ?? '')));
    assert.ok(warnings.some((e) => e.fields.lost === 1));
  } finally {
    await fw.close();
  }
});

test('two nodes in one process: routed control outcomes, the pending-request limit at its edge', {
  skip: !available && SKIP_NO_REDIS,
}, async () => {
  const prefix = uniquePrefix('module');
  const make = async (id: string, extra: Record<string, unknown> = {}) => {
    const fw = framework({
      'fw.cluster.redis-url': REDIS_URL,
      'fw.cluster.prefix': prefix,
      'fw.cluster.node-id': id,
      'fw.cluster.heartbeat-interval': 200,
      'fw.cluster.node-timeout': 1000,
      ...extra,
    });
    await fw.use(clusterMode());
    return fw;
  };
  const a = await make('a', { 'fw.cluster.max-pending-requests': 1 });
  const b = await make('b');
  try {
    const ca = a.services.get('cluster')!;
    const cb = b.services.get('cluster')!;
    await waitFor('both nodes', async () => ((await ca.nodes()).length === 2 ? true : undefined));
    // A routable method only b holds.
    cb.handle('test.echo', (args) => ({ echoed: args.value }));
    const routed = await ca.route<{ echoed: string }>('test.echo', { value: 'hi' });
    assert.deepEqual(
      { outcome: routed.outcome, node: routed.node, result: routed.result },
      { outcome: 'done', node: 'b', result: { echoed: 'hi' } },
    );
    // One request may wait (the limit is 1): a second one at the same time is refused.
    for (const c of [ca, cb]) c.handle('test.slow', () => new Promise((r) => setTimeout(() => r('slow'), 300)));
    const first = ca.gather('test.slow');
    const second = ca.gather('test.slow');
    const [g1, g2] = await Promise.all([first, second]);
    assert.deepEqual(g1.answers.find((x) => x.node === 'b')?.result, 'slow');
    assert.deepEqual(g2.missing, ['b'], 'over fw.cluster.max-pending-requests: refused, and the node named');
    // A module's routable method (the agent layer registers `agent.cancel-task` this way) reaches
    // the node that holds the target; a node without it, or without the target, is "not here".
    const canceled: string[] = [];
    cb.handle('agent.cancel-task', async (args) => {
      if (args.taskId !== 't-1') throw new NotFoundError('task', String(args.taskId));
      canceled.push(`${String(args.taskId)}:${String(args.reason)}`);
      return { id: args.taskId, state: 'canceled' };
    });
    const cancel = await ca.route('agent.cancel-task', { taskId: 't-1', reason: 'test' });
    assert.deepEqual([cancel.outcome, cancel.node, cancel.result], ['done', 'b', { id: 't-1', state: 'canceled' }]);
    assert.deepEqual(canceled, ['t-1:test']);
    assert.equal((await ca.route('agent.cancel-task', { taskId: 'nope' })).outcome, 'not_found');
    // Shared log across nodes.
    assert.equal(await ca.append('journal', { step: 1 }), true);
    assert.deepEqual(await cb.log('journal').list(1), [{ step: 1, node: 'a' }]);
    // A graceful close leaves the cluster at once.
    await b.close();
    assert.deepEqual(
      (await ca.nodes()).map((n) => n.id),
      ['a'],
    );
  } finally {
    await a.close();
    await b.close();
  }
});
