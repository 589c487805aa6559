/**
 * Chaos (issue 13, acceptances 3 and 7): with the Redis replay streams, a client whose node dies
 * resumes on a restarted process, or on another node, and gets every message it missed: more than
 * any in-memory replay cache holds (`fw.broadcaster.replay-cache` is 10 here), exactly once, in
 * order, with `recovered: true`.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FwClient } from '@fw/client/node';
import { postJson, redisAvailable, REDIS_URL, SKIP_NO_REDIS, startNode, stopNode, uniquePrefix, type FwNode } from '../harness.js';
import { assertAudit, listen } from './audit.js';
import { waitFor } from '@fw/testing';

const available = await redisAvailable();
const nodes: FwNode[] = [];
const clients: FwClient[] = [];
after(async () => {
  for (const c of clients) c.close();
  await Promise.all(nodes.map((n) => stopNode(n)));
});

const COUNT = 300;
const SMALL_CACHE = ['fw.broadcaster.replay-cache=10', 'fw.cluster.shadow-broadcasters=0'];

test('a node killed mid-stream and restarted on its address: its client resumes there from the replay stream, nothing lost', {
  skip: !available && SKIP_NO_REDIS,
}, async () => {
  const prefix = uniquePrefix('restart-store');
  const room = '/fw/chat/restart';
  const publisher = await startNode(REDIS_URL, prefix, 'pub', SMALL_CACHE);
  let node = await startNode(REDIS_URL, prefix, 'n1', SMALL_CACHE);
  nodes.push(publisher, node);
  const l = await listen([node.url], room, clients);
  const published = Array.from({ length: COUNT }, (_, i) => `m:${i}`);
  await postJson(`${publisher.url}/test/stream`, { broadcaster: room, count: COUNT, every: 5, tag: 'm' });
  await waitFor('the stream under way', () => (l.got.length >= 40 ? true : undefined));
  await stopNode(node, 'SIGKILL'); // a crash: its resources and memory are gone
  await new Promise((r) => setTimeout(r, 300)); // more than 10 messages go by meanwhile
  node = await startNode(REDIS_URL, prefix, 'n1', SMALL_CACHE, node.port);
  nodes.push(node);
  await waitFor('the whole stream', () => (l.got.at(-1) === published.at(-1) ? true : undefined), 20_000);
  await new Promise((r) => setTimeout(r, 100));
  const a = assertAudit(published, l, 'restarted');
  assert.equal(a.missing, 0);
  assert.deepEqual(
    l.recoveries.map((r) => [r.recovered, r.resumed]),
    [[true, false]],
  );
});

test('a client whose node dies resumes on a different node and gets its missed messages from the replay stream', {
  skip: !available && SKIP_NO_REDIS,
}, async () => {
  const prefix = uniquePrefix('elsewhere');
  const room = '/fw/chat/elsewhere';
  const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((id) => startNode(REDIS_URL, prefix, id, SMALL_CACHE)));
  nodes.push(a!, b!, c!);
  const mover = await listen([c!.url, b!.url], room, clients);
  const published = Array.from({ length: COUNT }, (_, i) => `m:${i}`);
  await postJson(`${a!.url}/test/stream`, { broadcaster: room, count: COUNT, every: 5, tag: 'm' });
  await waitFor('the stream under way on C', () => (mover.got.length >= 40 ? true : undefined));
  await stopNode(c!, 'SIGKILL');
  await waitFor('the whole stream', () => (mover.got.at(-1) === published.at(-1) ? true : undefined), 20_000);
  await new Promise((r) => setTimeout(r, 100));
  assert.ok(mover.client.url.startsWith(b!.url), `moved to B (now ${mover.client.url})`);
  const result = assertAudit(published, mover, 'moved');
  assert.equal(result.missing, 0);
  assert.deepEqual(
    mover.recoveries.map((r) => [r.recovered, r.resumed]),
    [[true, false]],
  );
});
