/**
 * Chaos (issue 13, acceptance 5): a client that stops reading. With `fw.slow-consumer.policy`
 * `drop` the server skips messages for it and says so with a gap before the next message it
 * delivers; with `disconnect` it cuts the connection, keeps the resource, and the client resumes
 * and gets everything from the resume buffer. The real client, over a WebSocket whose socket is
 * paused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { connect, type WebSocketConstructor } from '../../dist/node.js';
import { serve, until } from '../helpers.js';
import { assertAudit, record, waitFor } from '@fw/testing';

const ROOM = '/fw/feed/main';

for (const policy of ['drop', 'disconnect'] as const) {
  test(`slow consumer, policy ${policy}: ${policy === 'drop' ? 'a gap before the next message, counts exact' : 'cut, resumed, nothing lost'}`, async (t) => {
    const server = await serve({ 'fw.slow-consumer.high-water-mark': 64 * 1024, 'fw.slow-consumer.policy': policy }, (fw) =>
      fw.handle('/feed/{name}', {}),
    );
    const paused: Socket[] = [];
    let slow = true;
    // The first connection stops reading as soon as it is open; later ones read normally.
    class SlowWebSocket extends WebSocket {
      constructor(url: string) {
        super(url);
        if (!slow) return;
        slow = false;
        this.once('open', () => {
          const socket = (this as unknown as { _socket: Socket })._socket;
          this.once('message', () => {
            socket.pause();
            paused.push(socket);
          });
        });
      }
    }
    const client = connect(server.url(ROOM), {
      transports: ['websocket'],
      WebSocket: SlowWebSocket as unknown as WebSocketConstructor,
      reconnect: { minDelay: 10, maxDelay: 50 },
      heartbeatTimeout: 60_000,
    });
    t.after(() => {
      client.close();
      return server.close();
    });
    const r = record(client);
    await until(client, 'open');
    await waitFor('the client socket paused', () => paused.length === 1);
    const published: string[] = [];
    const big = 'x'.repeat(32 * 1024);
    const stats = (): { dropped: number; slowConsumerDisconnects: number } => server.fw.runtime.stats();
    for (let i = 0; i < 2000 && stats().dropped === 0 && stats().slowConsumerDisconnects === 0; i++) {
      const m = `${i} ${big}`;
      published.push(m);
      server.fw.runtime.broadcast(ROOM, m);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // A few more past the mark, then the client reads again.
    for (let i = 0; i < 5; i++) {
      const m = `${published.length} ${big}`;
      published.push(m);
      server.fw.runtime.broadcast(ROOM, m);
    }
    assert.ok(stats().dropped > 0 || stats().slowConsumerDisconnects > 0, 'the high-water mark was reached');
    paused[0]!.resume();
    await waitFor('open again', () => client.state === 'open');
    // Until the server's buffer has drained these may be dropped too: one at a time until one arrives.
    for (let i = 0; i < 200 && !r.got.at(-1)?.startsWith('end'); i++) {
      const m = `end ${published.length}`;
      published.push(m);
      server.fw.runtime.broadcast(ROOM, m);
      await waitFor('a message after the drain', () => r.got.at(-1) === m || client.state !== 'open', 100).catch(() => undefined);
      if (client.state !== 'open') await waitFor('open again', () => client.state === 'open');
    }
    await waitFor(`the last message (got ${r.got.length} of ${published.length})`, () => r.got.at(-1) === published.at(-1), 15_000);

    const a = assertAudit(published, r, policy);
    if (policy === 'drop') {
      assert.ok(a.missing > 0);
      assert.ok(
        r.gaps.every((g) => g.reason === 'slow-consumer-dropped' && g.b === ROOM),
        JSON.stringify(r.gaps),
      );
      assert.equal(a.signalled, stats().dropped, 'the gaps name every dropped message');
      assert.equal(r.recoveries.length, 0, 'no reconnect');
    } else {
      assert.equal(a.missing, 0);
      assert.equal(stats().slowConsumerDisconnects, 1);
      assert.deepEqual(r.recoveries, [{ recovered: true, resumed: true, gaps: [] }]);
    }
  });
}
