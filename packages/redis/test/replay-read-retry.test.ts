/**
 * A replay-stream read that Redis interrupts for a moment is tried again once it is back. Under the
 * restarts chaos test (with `fw.cluster.move-clients-after` short enough to move clients), a client
 * came back to its node while Redis was restarting again: the catch-up's read failed, and the holes
 * of its recreated broadcaster's replay cache (what the node missed while the room had no members)
 * were said lost, although the stream held every one of them (190 and 373 messages in two runs).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { RedisLink } from '../dist/link.js';
import { StreamReplayStore, streamKey } from '../dist/replay-stream.js';
import { redisServerInstalled, ThrowawayRedis, uniquePrefix } from './harness.js';
import { waitFor } from '@fw/testing';

const installed = await redisServerInstalled();
const redises: ThrowawayRedis[] = [];
const links: RedisLink[] = [];
after(async () => {
  await Promise.all(links.map((l) => l.close()));
  await Promise.all(redises.map((r) => r.dispose()));
});

test('a replay-stream read while Redis restarts waits for it and reads the stream; without the wait (or past it) it fails', {
  skip: !installed && 'redis-server is not installed',
}, async () => {
  const redis = await ThrowawayRedis.start(true); // persistent: the stream survives the restart
  redises.push(redis);
  const link = new RedisLink({
    url: redis.url,
    requestTimeout: 1000,
    reconnectMaxDelay: 100,
    keepaliveInterval: 1000,
    keepaliveTimeout: 2000,
    onChange: () => {},
  });
  links.push(link);
  assert.ok(await link.waitUp(5000), 'Redis reachable');
  const prefix = uniquePrefix('read-retry');
  const room = '/fw/chat/r';
  for (const bid of [1, 2, 3]) await link.cmd.xadd(streamKey(prefix, room), `${bid}-1`, 'e', `n ${room.length} ${room}m${bid}`);
  await link.cmd.set(`${prefix}:seq:${room}`, '3');
  const waiting = new StreamReplayStore(link.cmd, prefix, 100, { link, within: 20_000 });
  const impatient = new StreamReplayStore(link.cmd, prefix, 100);

  await redis.stop();
  await waitFor('the link down', () => (link.up ? undefined : true), 10_000);
  const read = waiting.read(room, 1);
  await assert.rejects(impatient.read(room, 1), 'a store that does not wait fails at once');
  await redis.start();
  assert.deepEqual(await read, {
    entries: [
      { bid: 2, payload: 'm2' },
      { bid: 3, payload: 'm3' },
    ],
    first: 1,
    last: 3,
  });

  // Redis does not come back within the bound: the read fails (the catch-up serves memory only).
  await redis.stop();
  await waitFor('the link down again', () => (link.up ? undefined : true), 10_000);
  await assert.rejects(new StreamReplayStore(link.cmd, prefix, 100, { link, within: 200 }).read(room, 1));
});
