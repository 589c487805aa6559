/**
 * Chaos (issue 13, acceptance 6): a 3-node cluster while its Redis is restarted 20 times during a
 * 5000-message stream. With replay streams (the default) no client loses anything: each node reads
 * back what it missed, in order, and the publisher holds its broadcasts while Redis is away. Without
 * them, clients miss messages, but every one is said with a gap: 0 silent losses.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FwClient } from '@fw/client/node';
import type { ClusterStatus } from '../../dist/index.js';
import { getJson, postJson, redisServerInstalled, startNode, stopNode, ThrowawayRedis, uniquePrefix, type FwNode } from '../harness.js';
import { assertAudit, audit, listen } from './audit.js';
import { waitFor } from '@fw/testing';

const installed = await redisServerInstalled();
const COUNT = 5000;
const RESTARTS = 20;
const ROOM = '/fw/chat/storm';

const nodes: FwNode[] = [];
const clients: FwClient[] = [];
const redises: ThrowawayRedis[] = [];
after(async () => {
  for (const c of clients) c.close();
  await Promise.all(nodes.map((n) => stopNode(n)));
  await Promise.all(redises.map((r) => r.dispose()));
});

for (const streams of [true, false]) {
  test(`3 nodes, Redis restarted ${RESTARTS}× during ${COUNT} messages, ${streams ? 'replay streams: 0 losses' : 'no replay streams: 0 silent losses'}`, {
    skip: !installed && 'redis-server is not installed',
  }, async () => {
    const redis = await ThrowawayRedis.start(true);
    redises.push(redis);
    const prefix = uniquePrefix(streams ? 'storm' : 'storm-nostream');
    const extra = streams ? [] : ['fw.cluster.replay-retention=0'];
    const started = await Promise.all(['a', 'b', 'c'].map((id) => startNode(redis.url, prefix, `${id}${streams ? '' : '0'}`, extra)));
    nodes.push(...started);
    const [a, b, c] = started as [FwNode, FwNode, FwNode];
    const listeners = await Promise.all([a, b, c].map((n) => listen([n.url], ROOM, clients)));
    await waitFor('three nodes', async () => {
      const s = await getJson<{ status: ClusterStatus }>(`${c.url}/test/status`);
      return s.status.redis === 'up' ? true : undefined;
    });

    const published = Array.from({ length: COUNT }, (_, i) => `m:${i}`);
    await postJson(`${a.url}/test/stream`, { broadcaster: ROOM, count: COUNT, every: 1, tag: 'm' });
    const progress = (): number => Math.min(...listeners.map((l) => l.got.length));
    for (let i = 0; i < RESTARTS; i++) {
      // Spread over the stream: each restart once the slowest client has seen a bit more.
      const target = Math.floor(((i + 1) * COUNT) / (RESTARTS + 4));
      await waitFor(
        `restart ${i + 1} at ${target} messages`,
        () => (progress() >= target || listeners[0]!.got.length >= target ? true : undefined),
        20_000,
      ).catch(async (e: Error) => {
        const st = await Promise.all([a, b, c].map((n) => getJson<{ status: ClusterStatus }>(`${n.url}/test/status`).catch(() => null)));
        throw new Error(
          `${e.message}: ${JSON.stringify({ got: listeners.map((l) => [l.got.length, l.client.state]), st: st.map((x) => x?.status) })} ${a.log().slice(-1500)}`,
        );
      });
      await redis.stop();
      await new Promise((r) => setTimeout(r, 50 + (i % 4) * 50));
      await redis.start();
    }
    const last = published.at(-1)!;
    await waitFor('the stream over on A', () => (listeners[0]!.got.at(-1) === last ? true : undefined), 60_000);
    // The other nodes: everything arrives (recovered or live), or what does not is said.
    const settled = (): boolean =>
      listeners.every((l) => {
        const r = audit(published, l);
        return r.silent === 0 && r.missing === r.signalled;
      });
    await waitFor('every client done', () => (settled() ? true : undefined), 30_000).catch((e: Error) => {
      throw new Error(
        `${e.message}: ${JSON.stringify(listeners.map((l) => ({ audit: audit(published, l), state: l.client.state, gaps: l.gaps.slice(-5) })))} ${[
          a,
          b,
          c,
        ]
          .map(
            (n) =>
              `${n.id} exit ${n.proc.exitCode}/${n.proc.signalCode}: ${n
                .log()
                .split('\n')
                .filter((x) => !x.includes('warn') && !x.includes('cluster'))
                .slice(-15)
                .join('\n')}`,
          )
          .join('\n')}`,
      );
    });
    await new Promise((r) => setTimeout(r, 300)); // anything repeated would show by now

    const statuses = await Promise.all([a, b, c].map((n) => getJson<{ status: ClusterStatus }>(`${n.url}/test/status`)));
    for (const [i, l] of listeners.entries()) {
      const result = assertAudit(published, l, `client on ${'abc'[i]}`);
      if (streams)
        assert.equal(
          result.missing,
          0,
          `client on ${'abc'[i]}: nothing lost with replay streams (${JSON.stringify({ result, gaps: l.gaps.slice(-5), node: statuses[i]?.status })})`,
        );
    }
    assert.ok(
      statuses.every((s) => s.status.recoveries >= 1),
      'every node reconnected by itself',
    );
    if (streams) {
      assert.ok(
        statuses.every((s) => s.status.lost === 0 && s.status.unpublished === 0),
        JSON.stringify(statuses.map((s) => s.status)),
      );
    } else {
      assert.ok(
        listeners.slice(1).some((l) => l.gaps.length > 0),
        'without streams the outages cost the other nodes messages',
      );
    }
  });
}
