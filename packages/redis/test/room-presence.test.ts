/**
 * Room presence across a 3-node cluster (docs/rooms.md, *Cluster*): every node counts every
 * member; a virtual member on one node hears the members of another; a node killed takes its
 * members out of every room within the node timeout, on every node and for every member watching;
 * a room nobody is in keeps nothing in Redis.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { connect, type FwClient } from '@fw/client/node';
import { room, type Room, type RoomMember } from '@fw/client/room';
import { waitFor } from '@fw/testing';
import { Redis } from 'ioredis';
import { getJson, REDIS_URL, redisAvailable, SKIP_NO_REDIS, startNode, stopNode, uniquePrefix, type FwNode } from './harness.js';

const available = await redisAvailable();
const nodes: FwNode[] = [];
const clients: FwClient[] = [];
after(async () => {
  for (const c of clients) c.close();
  await Promise.all(nodes.map((n) => stopNode(n, 'SIGKILL')));
});

const HEARTBEAT = 200;
const TIMEOUT = 1500;
const LOBBY = '/fw/chat/lobby';

interface RoomInfo {
  name: string;
  members: number;
  memberDetails: RoomMember[];
}
const lobbyOn = async (n: FwNode): Promise<RoomInfo | undefined> =>
  (await getJson<RoomInfo[]>(`${n.url}/api/admin/rooms`)).find((r) => r.name === LOBBY);

test('3 nodes: every node counts every member; the members of a killed node leave within the node timeout', {
  skip: !available && SKIP_NO_REDIS,
}, async (t) => {
  const prefix = uniquePrefix('rooms');
  const settings = [`fw.cluster.heartbeat-interval=${HEARTBEAT}`, `fw.cluster.node-timeout=${TIMEOUT}`];
  nodes.push(...(await Promise.all(['a', 'b', 'c'].map((id) => startNode(REDIS_URL, prefix, id, settings, 0, 'rooms-node.js')))));
  const [a, b, c] = nodes as [FwNode, FwNode, FwNode];
  await waitFor('the nodes see each other', async () => {
    for (const n of nodes) if ((await getJson<unknown[]>(`${n.url}/api/admin/nodes`)).length < 3) return undefined;
    return true;
  });

  const watchers: Room[] = [];
  const leftOnA: RoomMember[] = [];
  for (const [node, count] of [
    [a, 2],
    [b, 1],
    [c, 2],
  ] as const) {
    for (let i = 0; i < count; i++) {
      const client = connect(`${node.url}${LOBBY}`, { transports: ['websocket'] });
      clients.push(client);
      const r = room(client);
      if (node === a && i === 0) r.onLeave((m) => leftOnA.push(m));
      watchers.push(r);
    }
  }
  await waitFor('five members on every node', async () => {
    for (const n of nodes) if ((await lobbyOn(n))?.members !== 5) return undefined;
    return true;
  });
  await waitFor('every member sees five', () => watchers.every((w) => w.total === 5 && w.members.size === 5) || undefined);
  // A member on node b reaches the virtual member of node a, which answers in the room (on every node).
  const asker = connect(`${b.url}/fw/chat/agents`, { transports: ['websocket'] });
  clients.push(asker);
  const agents = room(asker);
  const heard: string[] = [];
  asker.onMessage((d) => heard.push(d));
  await waitFor('the asker lists the echo member', () => agents.members.has('virtual:echo') || undefined);
  await asker.send('hi @echo');
  await waitFor('the echo', () => heard.find((d) => d.startsWith('echo from a')));
  assert.deepEqual(heard, ['hi @echo', `echo from a to ${asker.uuid!.slice(0, 8)}: hi @echo`]);
  asker.close();

  const onC = (await lobbyOn(a))!.memberDetails.filter((m) => m.meta.node === 'c').map((m) => m.id);
  assert.equal(onC.length, 2);

  const killedAt = Date.now();
  await stopNode(c, 'SIGKILL');
  await waitFor(
    'the survivors count three',
    async () => {
      for (const n of [a, b]) if ((await lobbyOn(n))?.members !== 3) return undefined;
      return true;
    },
    TIMEOUT + 10 * HEARTBEAT,
  );
  const took = Date.now() - killedAt;
  // The dead node's record expires at most a node timeout after its last heartbeat; the survivors
  // see it at their next one (a heartbeat more), and this test's polling adds its own; on a
  // loaded machine timers run late, so the bound keeps a second of slack beyond that.
  t.diagnostic(`the members of c left every survivor ${took} ms after the kill`);
  assert.ok(took <= TIMEOUT + 5 * HEARTBEAT, `the members of c left after ${took} ms`);
  await waitFor('a member on a was told both left', () => leftOnA.length === 2 || undefined);
  assert.deepEqual(leftOnA.map((m) => m.id).sort(), [...onC].sort());
  for (const w of watchers.slice(0, 3)) await waitFor('a live member lists three', () => w.total === 3 || undefined);

  const redis = new Redis(REDIS_URL);
  try {
    assert.equal(await redis.hlen(`${prefix}:room:${LOBBY}`), 3, 'the dead node’s members are gone from Redis too');
    for (const cl of clients) cl.close();
    await waitFor('the lobby is empty everywhere', async () => {
      for (const n of [a, b]) if ((await lobbyOn(n)) !== undefined) return undefined;
      return true;
    });
    await waitFor('nothing kept in Redis', async () => ((await redis.exists(`${prefix}:room:${LOBBY}`)) === 0 ? true : undefined));
    assert.equal(await redis.sismember(`${prefix}:rooms`, LOBBY), 0);
  } finally {
    redis.disconnect();
  }
});
