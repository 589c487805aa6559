/**
 * A client that resets its TCP connection while its WebSocket upgrade is still being admitted
 * (an async authenticator, a browser closed mid-handshake). Node's HTTP server drops its own
 * `error` listener from a socket it hands to `upgrade`, so until `ws` takes the socket nothing
 * else listens: an ECONNRESET there was an uncaught exception, the whole process down. It must be
 * a closed socket and nothing more: no crash, the connection share given back, the server serving.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { once } from 'node:events';
import { authenticate } from '../../dist/index.js';
import { connectWs, notOnBun, startFw } from '../helpers.js';
import { waitFor } from '@fw/testing';

test(
  'a client that resets during an async admission leaves no crash, no held share, and the server serving',
  notOnBun('Bun.serve owns the socket until its upgrade() call; there is no raw socket to reset'),
  async (t) => {
    let entered!: () => void;
    const inAuth = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const app = await startFw(
      {
        authenticator: async () => {
          entered();
          await held;
          return { id: 'slow' };
        },
      },
      (fw) => fw.handle('/room', {}, { interceptors: [authenticate(fw, { required: false })] }),
    );
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown): void => void uncaught.push(err);
    // The test runner would report the exception itself; counting it here names the failure.
    process.prependListener('uncaughtException', onUncaught);
    t.after(async () => {
      process.off('uncaughtException', onUncaught);
      release();
      await app.close();
    });

    const port = new URL(app.base).port;
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      [
        'GET /fw/room?fw=1 HTTP/1.1',
        `Host: 127.0.0.1:${port}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Version: 13',
        'Authorization: Bearer any',
        '',
        '',
      ].join('\r\n'),
    );
    await inAuth;
    // An RST, not a FIN: the server's next read of this socket fails with ECONNRESET.
    socket.resetAndDestroy();
    await new Promise((r) => setTimeout(r, 100));
    release();
    await waitFor('the share given back', () => app.fw.runtime.connections.inUse() === 0);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(uncaught, [], 'no uncaught exception');

    // Still serving: a WebSocket opens and gets its handshake.
    const ws = await connectWs(`${app.ws}/fw/room?fw=1`, { headers: { authorization: 'Bearer any' } });
    t.after(() => ws.socket.terminate());
    assert.match(await ws.messages.next(), /"uuid"/);
  },
);
