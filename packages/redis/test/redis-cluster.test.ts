/**
 * Cluster mode on a real Redis Cluster (fw.cluster.redis-cluster-nodes): three redis-server
 * processes with cluster-enabled, joined by `redis-cli --cluster create`, on loopback ports of
 * their own. Two fw nodes find each other, a broadcast published on one reaches a client of the
 * other exactly once and in order, a routed control call and the shared audit log work: the
 * publish script, MGET/MULTI and pub/sub all run although a cluster spreads keys over shards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FwClient } from '@fw/client/node';
import { waitFor } from '@fw/testing';
import { Redis } from 'ioredis';
import { clusterPort, getJson, postJson, redisServerInstalled, startNode, stopNode, uniquePrefix, type FwNode } from './harness.js';
import { assertAudit, listen } from './chaos/audit.js';

const installed = await redisServerInstalled();
const skip = !installed && 'redis-server is not installed here (Debian package redis-server): a Redis Cluster cannot be started';

const servers: ChildProcess[] = [];
const nodes: FwNode[] = [];
const clients: FwClient[] = [];
let dir = '';
let seeds = '';

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout!.on('data', (d: Buffer) => (out += d));
    p.stderr!.on('data', (d: Buffer) => (out += d));
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${out}`))));
  });
}

before(async () => {
  if (!installed) return;
  dir = mkdtempSync(join(tmpdir(), 'fw-redis-cluster-'));
  const ports: number[] = [];
  while (ports.length < 3) {
    const port = await clusterPort();
    if (!ports.includes(port)) ports.push(port);
  }
  const output = new Map<number, string>();
  const exited = new Map<number, number | null>();
  for (const port of ports) {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`];
    args.push('--cluster-node-timeout', '2000', '--save', '', '--appendonly', 'no', '--dir', dir);
    const server = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    output.set(port, '');
    const keep = (d: Buffer): void => void output.set(port, (output.get(port)! + d.toString()).slice(-4000));
    server.stdout!.on('data', keep);
    server.stderr!.on('data', keep);
    server.once('exit', (code) => exited.set(port, code));
    servers.push(server);
  }
  for (const port of ports) {
    await waitFor(`redis-server on ${port}`, async () => {
      // A server that could not start says why in its log: the timeout error carries it.
      if (exited.has(port)) throw new Error(`redis-server on ${port} exited (${exited.get(port)}): ${output.get(port)}`);
      const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      r.on('error', () => undefined); // refused until the server listens: waitFor retries
      try {
        await r.connect();
        return (await r.ping()) === 'PONG';
      } finally {
        r.disconnect();
      }
    });
  }
  await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes']);
  for (const port of ports) {
    await waitFor(`cluster_state:ok on ${port}`, async () =>
      (await run('redis-cli', ['-p', String(port), 'cluster', 'info'])).includes('cluster_state:ok'),
    );
  }
  seeds = ports.map((p) => `127.0.0.1:${p}`).join(',');
});

after(async () => {
  for (const c of clients) c.close();
  await Promise.all(nodes.map((n) => stopNode(n)));
  for (const s of servers) s.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('two fw nodes on a Redis Cluster: presence, a cross-node broadcast exactly once in order, routed control, the shared log', {
  skip,
}, async () => {
  const prefix = uniquePrefix('rcluster');
  const option = [`fw.cluster.redis-cluster-nodes=${seeds}`];
  const a = await startNode('', prefix, 'a', option);
  nodes.push(a);
  const b = await startNode('', prefix, 'b', option);
  nodes.push(b);
  await waitFor('each node sees the other', async () => {
    const seen = await getJson<{ id: string }[]>(`${a.url}/test/nodes`);
    return seen.length === 2;
  });

  const room = '/fw/chat/rcluster';
  const l = await listen([b.url], room, clients);
  const published = Array.from({ length: 200 }, (_, i) => `rc:${i}`);
  await postJson(`${a.url}/test/stream`, { broadcaster: room, count: published.length, every: 1, tag: 'rc' });
  await waitFor('every broadcast on the other node', () => l.got.length >= published.length, 20_000);
  assertAudit(published, l, 'client on node b');

  // Control routed to the node holding the resource (node a disconnects b's client).
  const res = await postJson<{ outcome: string; node: string | null }>(`${a.url}/test/disconnect`, { uuid: l.client.uuid });
  assert.equal(res.outcome, 'done');
  assert.equal(res.node, 'b');

  // The shared audit log (a stream with MULTI) written on one node, read on the other.
  await postJson(`${a.url}/test/audit`, { action: 'rcluster-check' });
  await waitFor('the shared log entry on node b', async () => {
    const entries = await getJson<{ action?: string; node: string }[]>(`${b.url}/test/audit`);
    return entries.some((e) => e.action === 'rcluster-check' && e.node === 'a');
  });
});
