/**
 * A `since` catch-up may read further in the replay stream than the node has delivered itself
 * (its subscription is behind, or was cut): it serves those broadcasts from the stream, and their
 * live copies, arriving later, must not reach the client a second time. The client would drop
 * them by sequence, but they would still cross the wire; the resource drops them instead.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type FwClient, type MessageMeta } from '@fw/client/node';
import { Framework, MemoryLogger } from '@fw/runtime';
import { cluster } from '../dist/index.js';
import { redisServerInstalled, TcpProxy, ThrowawayRedis, uniquePrefix } from './harness.js';
import { waitFor } from '@fw/testing';

const installed = await redisServerInstalled();
const ROOM = '/fw/room';

test('a catch-up served from the stream beyond what the node delivered: the live copies that follow are not sent again', {
  skip: !installed && 'redis-server is not installed',
}, async () => {
  const redis = await ThrowawayRedis.start();
  const proxy = await TcpProxy.start(redis.port);
  const prefix = uniquePrefix('repeats');
  const make = async (url: string, id: string): Promise<Framework> => {
    const fw = new Framework({
      configFile: false,
      env: {},
      'fw.cluster.redis-url': url,
      'fw.cluster.prefix': prefix,
      'fw.cluster.node-id': id,
      'fw.cluster.keepalive-interval': 300,
      'fw.cluster.keepalive-timeout': 600,
      'fw.cluster.reconnect-max-delay': 300,
      'fw.cluster.move-clients-after': 0, // this node keeps taking clients while its subscription is cut
      'fw.cluster.shadow-broadcasters': 0, // and keeps nothing of a room without members
      logger: new MemoryLogger(),
    });
    await fw.use(cluster());
    fw.handle('/room', {});
    return fw;
  };
  const publisher = await make(redis.url, 'publisher');
  const node = await make(proxy.url, 'deaf');
  let client: FwClient | undefined;
  try {
    const { port } = await node.listen(0, '127.0.0.1');
    const say = async (text: string): Promise<number> => (await publisher.services.get('cluster')!.broadcast(ROOM, text)).bid;
    for (const m of ['m1', 'm2', 'm3']) await say(m);

    proxy.cut(/fw-sub/); // the node's subscription goes silent; its commands are still answered
    await waitFor('the node notices', () => (node.services.get('cluster')!.status().redis === 'down' ? true : undefined), 10_000);
    for (const m of ['m4', 'm5', 'm6']) await say(m);

    // A client that had m1-m3 elsewhere: the node has delivered nothing of the room, the stream has all.
    const since = Buffer.from(JSON.stringify({ [ROOM]: 3 })).toString('base64url');
    const got: { text: string; meta: MessageMeta }[] = [];
    const gaps: unknown[] = [];
    client = connect(`http://127.0.0.1:${port}${ROOM}?since=${since}`, { transports: ['websocket'], reconnect: false });
    client.onMessage((text, meta) => got.push({ text, meta }));
    client.onGap((g) => gaps.push(g));
    await waitFor('the catch-up', () => (got.length === 3 ? true : undefined), 10_000);

    proxy.heal(); // the node hears again and reads back m1-m6 for its broadcaster, delivering them
    await waitFor('the node back', () => (node.services.get('cluster')!.status().redis === 'up' ? true : undefined), 10_000);
    const b = node.broadcasters.lookup(ROOM)!;
    await waitFor('the node caught up itself', () => (b.cache.next === 7 ? true : undefined), 10_000);
    await say('m7');
    await waitFor('m7', () => (got.length === 4 ? true : undefined), 10_000);

    assert.deepEqual(
      got.map((g) => [g.text, g.meta.broadcasterSeq, g.meta.id]),
      [
        ['m4', 4, 1],
        ['m5', 5, 2],
        ['m6', 6, 3],
        ['m7', 7, 4], // message id 4: the node's own delivery of 1-6 sent nothing to this client
      ],
    );
    assert.deepEqual(gaps, [], 'nothing missing: the stream had it all');
  } finally {
    client?.close();
    await proxy.close(); // first: a failed test may leave the link cut
    await node.close();
    await publisher.close();
    await redis.dispose();
  }
});
