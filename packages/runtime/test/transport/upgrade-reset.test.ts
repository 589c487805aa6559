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
import { authenticate, MemoryLogger, readBody } from '../../dist/index.js';
import { connectWs, notOnBun, startFw } from '../helpers.js';
import { uncaughtExceptions, upgradeRequest, waitFor } from '@fw/testing';

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
    const uncaught = uncaughtExceptions(t);
    t.after(async () => {
      release();
      await app.close();
    });

    const port = Number(new URL(app.base).port);
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(upgradeRequest(port, '/fw/room?fw=1', { Authorization: 'Bearer any' }));
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

test(
  'a storm of connections reset at random points of every kind of request leaves the server whole',
  notOnBun('Bun.serve owns the socket until its upgrade() call; there is no raw socket to reset'),
  async (t) => {
    const app = await startFw(
      {
        'fw.connections.max-per-address': 0,
        // A dropped fw connection holds its place until its resume grace ends: short here.
        'fw.resume.grace': 200,
        // Admission takes a while now and then, as a token lookup would.
        authenticator: async () => {
          if (Math.random() < 0.5) await new Promise((r) => setTimeout(r, Math.random() * 5));
          return { id: 'anyone' };
        },
      },
      (fw) => fw.handle('/room', {}, { interceptors: [authenticate(fw, { required: false })] }),
    );
    const uncaught = uncaughtExceptions(t);
    t.after(() => app.close());
    const port = Number(new URL(app.base).port);
    const host = `Host: 127.0.0.1:${port}`;
    const upgrade = (path: string): string => upgradeRequest(port, path, { Authorization: 'Bearer any' });
    const requests = [
      upgrade('/fw/room?fw=1'),
      upgrade('/fw/room'),
      upgrade('/fw/nowhere'), // refused at once: the 404 is written to a socket that may be gone
      upgrade('/fw/room?fw=1&ids=sometimes'), // refused after admission began
      `GET /fw/room?fw=1&transport=sse HTTP/1.1\r\n${host}\r\nAccept: text/event-stream\r\n\r\n`,
      `GET /fw/room?fw=1&transport=long-polling HTTP/1.1\r\n${host}\r\n\r\n`,
    ];
    const one = (i: number): Promise<void> =>
      new Promise((resolve) => {
        const request = requests[i % requests.length]!;
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        socket.on('close', () => resolve());
        socket.on('connect', () => {
          // Some send part of the request, some all of it; each resets 0–20 ms later, or on the answer.
          socket.write(i % 5 === 0 ? request.slice(0, (i * 7) % request.length) : request);
          if (i % 3 === 0) socket.once('data', () => socket.resetAndDestroy());
          setTimeout(() => socket.resetAndDestroy(), (i * 13) % 21);
        });
      });
    // 600 connections, 40 at a time.
    for (let batch = 0; batch < 15; batch++) await Promise.all(Array.from({ length: 40 }, (_, k) => one(batch * 40 + k)));
    assert.deepEqual(uncaught, [], 'no uncaught exception');
    await waitFor('every share given back', () => app.fw.runtime.connections.inUse() === 0).catch((e: Error) => {
      throw new Error(
        `${e.message}: ${app.fw.runtime.connections.inUse()} held, ${JSON.stringify([...app.fw.runtime.resources.values()].map((r) => [r.transport, r.connection === undefined, r.closed]))}`,
      );
    });
    const ws = await connectWs(`${app.ws}/fw/room?fw=1`, { headers: { authorization: 'Bearer any' } });
    t.after(() => ws.socket.terminate());
    assert.match(await ws.messages.next(), /"uuid"/);
  },
);

test(
  'a client that cuts its request body short is no server error: nothing at error level, the server serving',
  notOnBun('resets a raw TCP socket from the client side'),
  async (t) => {
    const logger = new MemoryLogger();
    let reading!: () => void;
    const started = new Promise<void>((r) => (reading = r));
    const app = await startFw({ logger }, (fw) =>
      fw.route('POST', '/upload', async (req, res) => {
        reading();
        const body = await readBody(req, 1 << 20);
        res.end(String(body.length));
      }),
    );
    t.after(() => app.close());
    const port = Number(new URL(app.base).port);
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    socket.write(`POST /upload HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nonly part`);
    await started;
    socket.resetAndDestroy();
    // The body read fails at once (ECONNRESET); its route's failure is handled by then.
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(
      logger.entries.filter((e) => e.level === 'error').map((e) => e.message),
      [],
      'a client leaving is not logged as a failure (anyone could fill the error log with it)',
    );
    assert.equal((await fetch(`${app.base}/upload`, { method: 'POST', body: 'whole' })).status, 200);
  },
);
