/**
 * Redis Sentinel: with fw.cluster.sentinels set, a node finds the master through the sentinels
 * (fw.cluster.redis-url's host and port are not used — here they point at a closed port), joins
 * the cluster and is ready. A real sentinel on loopback (`redis-server --sentinel`) monitors a
 * throwaway master. A malformed sentinel list is a configuration error at start.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Framework, MemoryLogger } from '@fw/runtime';
import { cluster } from '../dist/index.js';
import { parseSentinels } from '../dist/module.js';
import { freePort, redisServerInstalled, ThrowawayRedis, uniquePrefix } from './harness.js';
import { waitFor } from '@fw/testing';

const installed = await redisServerInstalled();
let master: ThrowawayRedis | undefined;
let sentinel: ChildProcess | undefined;
let dir: string | undefined;
let fw: Framework | undefined;
after(async () => {
  await fw?.close();
  sentinel?.kill('SIGTERM');
  await master?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('fw.cluster.sentinels: the node finds the master through a real Sentinel and is ready', {
  skip: !installed && 'redis-server is not installed',
  timeout: 60_000,
}, async () => {
  master = await ThrowawayRedis.start();
  dir = mkdtempSync(join(tmpdir(), 'fw-sentinel-'));
  const sentinelPort = await freePort();
  writeFileSync(
    join(dir, 'sentinel.conf'),
    `port ${sentinelPort}\nbind 127.0.0.1\ndir ${dir}\nsentinel monitor fwmaster 127.0.0.1 ${master.port} 1\n`,
  );
  sentinel = spawn('redis-server', [join(dir, 'sentinel.conf'), '--sentinel'], { stdio: 'ignore' });
  const closedPort = await freePort();
  fw = new Framework({
    configFile: false,
    env: {},
    'fw.cluster.redis-url': `redis://127.0.0.1:${closedPort}`,
    'fw.cluster.sentinels': `127.0.0.1:${sentinelPort}`,
    'fw.cluster.sentinel-name': 'fwmaster',
    'fw.cluster.prefix': uniquePrefix('sentinel'),
    'fw.cluster.reconnect-max-delay': 200,
    logger: new MemoryLogger(), // the sentinel may not answer at the first attempt
  });
  await fw.use(cluster());
  const { port } = await fw.listen(0, '127.0.0.1');
  await waitFor(
    'ready through the sentinel',
    async () => ((await fetch(`http://127.0.0.1:${port}/fw/ready`)).status === 200 ? true : undefined),
    20_000,
  );
  const metrics = await (await fetch(`http://127.0.0.1:${port}/fw/metrics`)).text();
  assert.match(metrics, /^fw_cluster_redis_up 1$/m);
});

test('fw.cluster.sentinels: host:port entries, IPv6 in brackets; anything else is refused', () => {
  assert.deepEqual(parseSentinels(''), []);
  assert.deepEqual(parseSentinels('10.0.0.1:26379, sentinel-2:26380,[::1]:26381'), [
    { host: '10.0.0.1', port: 26379 },
    { host: 'sentinel-2', port: 26380 },
    { host: '::1', port: 26381 },
  ]);
  for (const bad of ['10.0.0.1', 'host:0', 'host:70000', 'a:1,,b:2', 'host:port'])
    assert.throws(() => parseSentinels(bad), /fw\.cluster\.sentinels/, bad);
});
