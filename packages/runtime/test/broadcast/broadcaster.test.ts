import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectWs, recordEvents, startFw } from '../helpers.js';
import { waitFor } from '@fw/testing';

type Frame = { t: string; id?: number; d?: string; bid?: number };

test('broadcasters: factory create/lookup/list/destroy with events; explicit ones survive being empty', async () => {
  const app = await startFw();
  const events = recordEvents(app.fw);
  try {
    const b = app.fw.broadcasters.create('/fw/news', { replayCacheSize: 2 });
    assert.throws(() => app.fw.broadcasters.create('/fw/news'), { code: 'broadcaster_exists' });
    assert.equal(app.fw.broadcasters.lookup('/fw/news'), b);
    assert.deepEqual(
      app.fw.broadcasters.list().map((x) => x.id),
      ['/fw/news'],
    );
    assert.equal(b.broadcast('nobody listens'), 0);
    assert.deepEqual(app.fw.runtime.getBroadcaster('/fw/news'), {
      id: '/fw/news',
      resourceCount: 0,
      createdAt: new Date(b.createdAt).toISOString(),
      internal: false,
      messages: 1,
      replayCacheSize: 1,
      lost: 0,
      recovered: 0,
      replayWindow: { first: 1, last: 1 },
    });
    assert.equal(app.fw.runtime.destroyBroadcaster('/fw/news'), 0);
    assert.equal(app.fw.broadcasters.lookup('/fw/news'), undefined);
    assert.throws(() => app.fw.runtime.destroyBroadcaster('/fw/news'), { code: 'not_found' });
    assert.deepEqual(
      events.map((e) => e.type),
      ['BroadcasterCreated', 'MessageBroadcast', 'BroadcasterDestroyed'],
    );
  } finally {
    await app.close();
  }
});

test('broadcasters: internal ones never emit MessageBroadcast; nothing is emitted when nobody listens', async () => {
  const app = await startFw();
  try {
    const internal = app.fw.broadcasters.create('/fw/admin/events', { internal: true });
    const seen = recordEvents(app.fw);
    internal.broadcast('x');
    assert.deepEqual(seen, []);
  } finally {
    await app.close();
  }
});

test('broadcasters: subset broadcast and unicast reach only their targets; since replays the bounded cache', async () => {
  const app = await startFw({ 'fw.broadcaster.replay-cache': 3 }, (fw) => fw.handle('/room/{id}', {}));
  try {
    const a = await connectWs(`${app.ws}/fw/room/1?fw=1`);
    const b = await connectWs(`${app.ws}/fw/room/1?fw=1`);
    const ha = JSON.parse(await a.messages.next()) as { uuid: string };
    await b.messages.next();
    const room = app.fw.broadcasters.lookup('/fw/room/1')!;
    const ra = app.fw.resources.get(ha.uuid)!;
    assert.equal(room.broadcast('only a', [ra]), 1);
    assert.equal(room.broadcastTo('direct', ra), true);
    for (let i = 1; i <= 5; i++) room.broadcast(`all ${i}`);
    const fa = (await a.messages.take(7)).map((s) => JSON.parse(s) as Frame);
    assert.deepEqual(
      fa.map((f) => f.d),
      ['only a', 'direct', 'all 1', 'all 2', 'all 3', 'all 4', 'all 5'],
    );
    assert.equal(fa[0]!.bid, undefined);
    const fb = (await b.messages.take(5)).map((s) => JSON.parse(s) as Frame);
    assert.deepEqual(
      fb.map((f) => [f.id, f.d, f.bid]),
      [
        [1, 'all 1', 1],
        [2, 'all 2', 2],
        [3, 'all 3', 3],
        [4, 'all 4', 4],
        [5, 'all 5', 5],
      ],
    );

    // A fresh connection that last saw bid 1: the cache holds only bids 3–5 (replay-cache 3).
    const since = Buffer.from(JSON.stringify({ '/fw/room/1': 1 })).toString('base64url');
    const c = await connectWs(`${app.ws}/fw/room/1?fw=1&since=${since}`);
    const fc = (await c.messages.take(6)).map((s) => JSON.parse(s) as Frame);
    assert.equal(fc[0]!.t, 'hs');
    // bid 2 has left the cache: said with a gap in the broadcaster's numbering, before the replay.
    assert.deepEqual(fc[1], { t: 'gap', lost: 1, reason: 'grace-expired', b: '/fw/room/1', from: 2, to: 2 });
    assert.deepEqual(
      fc.slice(2, 5).map((f) => [f.id, f.d, f.bid]),
      [
        [1, 'all 3', 3],
        [2, 'all 4', 4],
        [3, 'all 5', 5],
      ],
    );
    assert.deepEqual(fc[5], { t: 'rec', recovered: false });
    assert.equal(room.recovered, 3);
    // since on a broadcaster the resource is not a member of replays nothing.
    const other = Buffer.from(JSON.stringify({ '/fw/room/1': 0 })).toString('base64url');
    const d = await connectWs(`${app.ws}/fw/room/2?fw=1&since=${other}`);
    await d.messages.next();
    assert.deepEqual(JSON.parse(await d.messages.next()), { t: 'rec', recovered: true });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(d.messages.length, 0);
    for (const x of [a, b, c, d]) x.socket.close(1000);
  } finally {
    await app.close();
  }
});

test('slow consumers: past the high-water mark messages are dropped (counted) or the resource is disconnected (counted)', async () => {
  for (const policy of ['drop', 'disconnect'] as const) {
    const app = await startFw({ 'fw.slow-consumer.high-water-mark': 64 * 1024, 'fw.slow-consumer.policy': policy }, (fw) =>
      fw.handle('/feed', {}),
    );
    try {
      const c = await connectWs(`${app.ws}/fw/feed`);
      await waitFor('app.fw.runtime.stats().connections === 1', () => app.fw.runtime.stats().connections === 1);
      // Stop reading: the server's socket buffers fill and bufferedAmount climbs.
      (c.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      const big = 'x'.repeat(32 * 1024);
      const events = recordEvents(app.fw);
      for (let i = 0; i < 2000 && app.fw.runtime.stats().dropped === 0 && app.fw.runtime.stats().slowConsumerDisconnects === 0; i++) {
        app.fw.runtime.broadcast('/fw/feed', big);
        await new Promise((r) => setImmediate(r));
      }
      if (policy === 'drop') {
        assert.ok(app.fw.runtime.stats().dropped > 0);
        assert.equal(app.fw.runtime.stats().connections, 1);
        assert.ok((app.fw.runtime.getResource(app.fw.runtime.listResources().items[0]!.uuid)?.dropped ?? 0) > 0);
      } else {
        assert.equal(app.fw.runtime.stats().slowConsumerDisconnects, 1);
        assert.equal(app.fw.runtime.stats().connections, 0);
        assert.deepEqual(
          events.filter((e) => e.type === 'ResourceDisconnected').map((e) => e.reason),
          ['slow consumer'],
        );
      }
      c.socket.terminate();
    } finally {
      await app.close();
    }
  }
});
