/**
 * Issue 25: a node cut from Redis kept its subscribers, who then got the other nodes' broadcasts
 * up to a minute late with nothing said. Once the link has been down for
 * fw.cluster.move-clients-after, the node drops the connections that subscribe to a broadcaster
 * (a drop: WebSocket 1012, so the client reconnects elsewhere) and refuses new ones with 503 until
 * the link is back; handlers that join no broadcaster keep theirs. Each test owns its Redis and the
 * proxy that cuts the link (the bytes stop, the sockets stay open, as across a network cut).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type FwClient } from '@fw/client/node';
import { Framework, MemoryLogger } from '@fw/runtime';
import { cluster } from '../dist/index.js';
import { redisServerInstalled, TcpProxy, ThrowawayRedis, uniquePrefix } from './harness.js';
import { waitFor } from '@fw/testing';

const installed = await redisServerInstalled();
const skip = !installed && 'redis-server is not installed';

interface Node {
  fw: Framework;
  base: string;
  events: { change: string; at: number; moved?: number }[];
  close(): Promise<void>;
}

async function node(url: string, moveAfter: number): Promise<Node> {
  const fw = new Framework({
    configFile: false,
    env: {},
    'fw.cluster.redis-url': url,
    'fw.cluster.prefix': uniquePrefix('move'),
    'fw.cluster.keepalive-interval': 300,
    'fw.cluster.keepalive-timeout': 600,
    'fw.cluster.move-clients-after': moveAfter,
    'fw.cluster.reconnect-max-delay': 300,
    logger: new MemoryLogger(), // the link is cut on purpose: its warnings are expected
  });
  await fw.use(cluster());
  fw.handle('/room', {}); // its resources join the broadcaster /fw/room
  fw.handle('/solo', {}, { broadcaster: null }); // unicast only: the cluster's broadcasts never reach it
  const events: Node['events'] = [];
  fw.events.on('ClusterChanged', (e) =>
    events.push({ change: e.change, at: Date.now(), ...(e.moved === undefined ? {} : { moved: e.moved }) }),
  );
  const { port } = await fw.listen(0, '127.0.0.1');
  return { fw, base: `http://127.0.0.1:${port}`, events, close: () => fw.close() };
}

/** An fw client that does not reconnect: what ends it is recorded. */
function client(url: string, clients: FwClient[]): { c: FwClient; errors: string[]; opened: Promise<void> } {
  const c = connect(url, { transports: ['websocket'], reconnect: false });
  clients.push(c);
  const errors: string[] = [];
  c.onError((e) => errors.push(`${e.code} ${e.status ?? ''} ${e.problemCode ?? ''} ${e.message}`));
  const opened = new Promise<void>((resolve) => c.onStateChange((s) => s === 'open' && resolve()));
  return { c, errors, opened };
}

test('a node cut from Redis for fw.cluster.move-clients-after drops its subscribers (1012) and refuses new ones (503) until the link is back; unicast-only handlers stay', {
  skip,
}, async () => {
  const redis = await ThrowawayRedis.start();
  const proxy = await TcpProxy.start(redis.port);
  const n = await node(proxy.url, 1500);
  const clients: FwClient[] = [];
  try {
    const ws = n.base.replace('http', 'ws');
    const subscriber = client(`${ws}/fw/room`, clients);
    const solo = client(`${ws}/fw/solo`, clients);
    await Promise.all([subscriber.opened, solo.opened]);

    proxy.cut();
    await waitFor('the subscriber dropped', () => (subscriber.c.state === 'closed' ? true : undefined), 10_000);
    assert.match(subscriber.errors.join('\n'), /code 1012 cluster link lost/, 'a drop (service restart), not a final close');
    const down = n.events.find((e) => e.change === 'redis-down')!;
    const moved = n.events.find((e) => e.change === 'clients-moved')!;
    assert.ok(down && moved, JSON.stringify(n.events));
    // Not before the setting: a shorter outage moves nobody (Node timers never fire early; 1 ms of rounding).
    assert.ok(moved.at - down.at >= 1499, `moved ${moved.at - down.at} ms after the link went down`);
    assert.equal(moved.moved, 1, 'one connection subscribed to a broadcaster');
    assert.equal(solo.c.state, 'open', 'the unicast-only connection stays');

    // New subscribers are refused while the link is down: 503 with Retry-After, and a body that
    // says why without naming Redis's address.
    const res = await fetch(`${n.base}/fw/room?transport=sse`, { headers: { accept: 'text/event-stream' } });
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '1'); // fw.cluster.reconnect-max-delay 300 ms, in whole seconds
    const body = (await res.json()) as { code: string; detail: string };
    assert.equal(body.code, 'cluster_unavailable');
    assert.match(body.detail, /lost its connection to the cluster/);
    assert.ok(!JSON.stringify(body).includes(String(proxy.port)) && !JSON.stringify(body).includes(String(redis.port)));
    const refused = client(`${ws}/fw/room`, clients);
    await waitFor('the upgrade refused', () => (refused.c.state === 'closed' ? true : undefined), 10_000);
    assert.match(refused.errors.join('\n'), /503/);
    // A handler that joins no broadcaster still takes connections.
    const soloAgain = await fetch(`${n.base}/fw/solo?transport=sse`, { headers: { accept: 'text/event-stream' } });
    assert.equal(soloAgain.status, 200);
    await soloAgain.body?.cancel();
    assert.equal(n.fw.services.get('cluster')!.status().moved, 1);
    const metrics = await (await fetch(`${n.base}/fw/metrics`)).text();
    assert.match(metrics, /^fw_cluster_clients_moved_total 1$/m);

    proxy.heal();
    await waitFor('ready again', async () => ((await fetch(`${n.base}/fw/ready`)).status === 200 ? true : undefined), 15_000);
    const back = client(`${ws}/fw/room`, clients);
    await back.opened; // taken again
  } finally {
    for (const c of clients) c.close();
    await proxy.close(); // first: a failed test may leave the link cut
    await n.close();
    await redis.dispose();
  }
});

test('fw.cluster.move-clients-after 0: a node cut from Redis keeps its subscribers and takes new ones', { skip }, async () => {
  const redis = await ThrowawayRedis.start();
  const proxy = await TcpProxy.start(redis.port);
  const n = await node(proxy.url, 0);
  const clients: FwClient[] = [];
  try {
    const ws = n.base.replace('http', 'ws');
    const subscriber = client(`${ws}/fw/room`, clients);
    await subscriber.opened;
    proxy.cut();
    await waitFor('not ready', async () => ((await fetch(`${n.base}/fw/ready`)).status === 503 ? true : undefined), 10_000);
    const later = client(`${ws}/fw/room`, clients);
    await later.opened;
    // Well past what a move would have taken at the shortest setting: nobody dropped.
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(subscriber.c.state, 'open');
    assert.equal(later.c.state, 'open');
    assert.equal(n.fw.services.get('cluster')!.status().moved, 0);
    assert.ok(!n.events.some((e) => e.change === 'clients-moved'));
  } finally {
    for (const c of clients) c.close();
    await proxy.close(); // first: a failed test may leave the link cut
    await n.close();
    await redis.dispose();
  }
});
