/**
 * Chaos (issue 25, acceptance 4): a client fails over with `since` after the Redis replay stream
 * lost what it missed: evicted (DEL, as maxmemory with allkeys-lru does to a whole key), trimmed
 * below its cursor, or gone with a Redis restarted empty. The node it lands on still holds those
 * broadcasts in memory (its room's replay cache, or the shadow cache of a room it has no member
 * of): it serves them, merged with whatever the stream still has, exactly once and in order, and
 * says `recovered: true` only then. What nobody holds any more is a gap covering exactly the
 * missing sequences. Before, the empty stream was taken for "nothing missed": `recovered: true`
 * with 20 of 80 messages silently missing.
 *
 * Three nodes on a Redis the test starts (own port, no persistence): A publishes, B is where the
 * client lands, C is the client's node, frozen (SIGSTOP) while 20 more broadcasts go by, then
 * killed once the stream has lost them.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FwClient, Recovery } from '@fw/client/node';
import { Redis } from 'ioredis';
import type { ClusterStatus } from '../../dist/index.js';
import { getJson, postJson, redisServerInstalled, startNode, stopNode, ThrowawayRedis, uniquePrefix, type FwNode } from '../harness.js';
import { assertAudit, type Listener, listen } from './audit.js';
import { waitFor } from '@fw/testing';

const installed = await redisServerInstalled();
const skip = !installed && 'redis-server is not installed';
const ROOM = '/fw/chat/lossy';

const nodes: FwNode[] = [];
const clients: FwClient[] = [];
const redises: ThrowawayRedis[] = [];
after(async () => {
  for (const c of clients) c.close();
  await Promise.all(nodes.map((n) => stopNode(n, 'SIGKILL')));
  await Promise.all(redises.map((r) => r.dispose()));
});

const range = (tag: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${tag}:${i}`);

interface Outcome {
  mover: Listener;
  published: string[];
}

/**
 * Runs the failover: 60 broadcasts the client gets on C, 20 while C is frozen (B gets them), the
 * fault, C killed, the client's catch-up on B, then 20 live ones. `watcher`: B has a member of the
 * room (its replay cache holds the room); else the room is only in B's shadow cache (if on).
 */
async function failover(
  name: string,
  options: {
    all?: string[];
    b?: string[];
    watcher: boolean;
    fault: (redis: ThrowawayRedis, admin: Redis, prefix: string) => Promise<void>;
  },
): Promise<Outcome> {
  const redis = await ThrowawayRedis.start();
  redises.push(redis);
  const prefix = uniquePrefix(name);
  const all = options.all ?? [];
  const [a, b, c] = await Promise.all([
    startNode(redis.url, prefix, 'a', all),
    startNode(redis.url, prefix, 'b', [...all, ...(options.b ?? [])]),
    startNode(redis.url, prefix, 'c', all),
  ]);
  nodes.push(a!, b!, c!);
  const mover = await listen([c!.url, b!.url], ROOM, clients);
  const watcher = options.watcher ? await listen([b!.url], ROOM, clients) : undefined;
  const status = async (n: FwNode): Promise<ClusterStatus> => (await getJson<{ status: ClusterStatus }>(`${n.url}/test/status`)).status;

  await postJson(`${a!.url}/test/stream`, { broadcaster: ROOM, count: 60, every: 2, tag: 'a' });
  await waitFor('60 on the client (on C)', () => (mover.got.length === 60 ? true : undefined), 20_000);
  c!.proc.kill('SIGSTOP'); // the client hears nothing more, and B gets the next 20
  await postJson(`${a!.url}/test/stream`, { broadcaster: ROOM, count: 20, every: 2, tag: 'b' });
  await waitFor('80 on B', async () => (watcher ? watcher.got.length === 80 : (await status(b!)).received === 80) || undefined, 20_000);

  const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  try {
    await options.fault(redis, admin, prefix);
  } finally {
    admin.disconnect();
  }
  await waitFor(
    'A and B on Redis',
    async () => ((await status(a!)).redis === 'up' && (await status(b!)).redis === 'up') || undefined,
    20_000,
  );

  await stopNode(c!, 'SIGKILL'); // the client moves to B with `since`
  await waitFor('the catch-up on B', () => (mover.recoveries.length === 1 ? true : undefined), 20_000);
  assert.ok(mover.client.url.startsWith(b!.url), `moved to B (now ${mover.client.url})`);
  await postJson(`${a!.url}/test/stream`, { broadcaster: ROOM, count: 20, every: 2, tag: 'c' });
  await waitFor('the live stream after it', () => (mover.got.at(-1) === 'c:19' ? true : undefined), 20_000);
  await new Promise((r) => setTimeout(r, 200)); // a repeat would show by now
  return { mover, published: [...range('a', 60), ...range('b', 20), ...range('c', 20)] };
}

const stream = (prefix: string): string => `${prefix}:stream:${ROOM}`;
const recovery = (r: Recovery): unknown => ({ recovered: r.recovered, resumed: r.resumed, gaps: r.gaps });

test('replay stream evicted (its key and the counter gone) before a failover: the room replay cache of the node the client lands on serves all 20, recovered', {
  skip,
}, async () => {
  const { mover, published } = await failover('evicted-ring', {
    watcher: true,
    fault: async (_redis, admin, prefix) => {
      assert.equal(await admin.del(stream(prefix), `${prefix}:seq:${ROOM}`), 2);
    },
  });
  const result = assertAudit(published, mover, 'moved client');
  assert.equal(result.missing, 0);
  assert.deepEqual(mover.recoveries.map(recovery), [{ recovered: true, resumed: false, gaps: [] }]);
});

test('replay stream evicted, the room has no member on the node the client lands on: its shadow cache serves all 20, recovered', {
  skip,
}, async () => {
  const { mover, published } = await failover('evicted-shadow', {
    watcher: false,
    fault: async (_redis, admin, prefix) => {
      assert.equal(await admin.del(stream(prefix)), 1);
    },
  });
  const result = assertAudit(published, mover, 'moved client');
  assert.equal(result.missing, 0);
  assert.deepEqual(mover.recoveries.map(recovery), [{ recovered: true, resumed: false, gaps: [] }]);
});

test('Redis restarted empty before a failover: the replay cache serves all 20, recovered', { skip }, async () => {
  const { mover, published } = await failover('restarted-empty', {
    watcher: true,
    fault: async (redis) => {
      await redis.stop();
      await redis.start();
    },
  });
  const result = assertAudit(published, mover, 'moved client');
  assert.equal(result.missing, 0);
  assert.deepEqual(mover.recoveries.map(recovery), [{ recovered: true, resumed: false, gaps: [] }]);
});

test('replay stream trimmed past the cursor, replay cache of 10: the stream and memory merged, a gap for exactly the 10 neither holds', {
  skip,
}, async () => {
  const { mover, published } = await failover('trimmed', {
    b: ['fw.broadcaster.replay-cache=10'],
    watcher: true,
    fault: async (_redis, admin, prefix) => {
      await admin.xtrim(stream(prefix), 'MAXLEN', 5); // holds sequences 76-80; B's cache 71-80
    },
  });
  const result = assertAudit(published, mover, 'moved client');
  assert.equal(result.missing, 10, 'b:0-b:9 (sequences 61-70) are held nowhere; b:10-b:19 are served');
  assert.deepEqual(mover.recoveries.map(recovery), [
    { recovered: false, resumed: false, gaps: [{ reason: 'replay-window-exceeded', lost: 10, b: ROOM, from: 61, to: 70 }] },
  ]);
});

test('replay stream evicted and the room nowhere in memory: a gap for exactly the 20 the counter says were published', {
  skip,
}, async () => {
  const { mover, published } = await failover('evicted-nowhere', {
    b: ['fw.cluster.shadow-broadcasters=0'],
    watcher: false,
    fault: async (_redis, admin, prefix) => {
      assert.equal(await admin.del(stream(prefix)), 1);
    },
  });
  const result = assertAudit(published, mover, 'moved client');
  assert.equal(result.missing, 20);
  assert.deepEqual(mover.recoveries.map(recovery), [
    { recovered: false, resumed: false, gaps: [{ reason: 'replay-window-exceeded', lost: 20, b: ROOM, from: 61, to: 80 }] },
  ]);
});

test('no replay streams, and the room nowhere in memory of the node the client lands on: a gap without a count, never recovered', {
  skip,
}, async () => {
  const { mover } = await failover('nostream-nowhere', {
    all: ['fw.cluster.replay-retention=0'],
    b: ['fw.cluster.shadow-broadcasters=0'],
    watcher: false,
    fault: async () => {},
  });
  // Nothing can say how many went by: the client is told its history has a hole from 61 on.
  assert.deepEqual(mover.recoveries.map(recovery), [
    { recovered: false, resumed: false, gaps: [{ reason: 'replay-window-exceeded', b: ROOM, from: 61 }] },
  ]);
  assert.deepEqual(mover.got.slice(60), range('c', 20), 'then the live stream, nothing twice');
});
