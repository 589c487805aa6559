import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { notOnBun, startFw } from './helpers.js';
import { waitFor } from '@fw/testing';

const CLOSE_1000 = Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8]); // masked close frame, code 1000

/**
 * A minimal WebSocket client on a bare TCP socket (cheaper than a full client, so 10 000 cycles
 * stay quick): a raw one drops the socket right after the 101, an fw one waits for the
 * handshake frame and closes with 1000. Resolves when the socket is closed.
 */
function webSocketCycle(port: number, path: string, fw: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let head = '';
    s.on('connect', () =>
      s.write(
        `GET ${path}${fw ? '?fw=1' : ''} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n` +
          'Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      ),
    );
    s.on('data', (d) => {
      head += d.toString('latin1');
      if (!head.startsWith('HTTP/1.1 101')) {
        s.destroy();
        reject(new Error(`upgrade refused: ${head.slice(0, 40)}`));
      } else if (!fw) {
        s.destroy();
      } else if (head.includes('"t":"hs"')) {
        s.write(CLOSE_1000);
      }
    });
    s.on('close', () => resolve());
    s.on('error', reject);
  });
}

/**
 * Opens and closes one connection; resolves once the client saw it end. Mostly WebSockets (raw
 * ones dropped, fw ones closed on purpose with 1000), with every 40th an SSE stream the client
 * aborts and every 40th a long-polling resource ended with DELETE.
 */
async function cycle(base: string, port: number, i: number): Promise<void> {
  const room = `/fw/chat/r${i % 7}`;
  const kind = i % 40;
  if (kind === 0) {
    const ac = new AbortController();
    const res = await fetch(`${base}${room}`, { headers: { accept: 'text/event-stream' }, signal: ac.signal });
    assert.equal(res.status, 200);
    ac.abort();
  } else if (kind === 1) {
    const res = await fetch(`${base}${room}?transport=long-polling&fw=1`);
    const [hs] = (await res.json()) as { uuid: string }[];
    const del = await fetch(`${base}${room}?tracking=${hs!.uuid}`, { method: 'DELETE' });
    assert.equal(del.status, 204);
  } else {
    await webSocketCycle(port, room, kind % 2 === 0);
  }
}

test(
  '10 000 connect/disconnect cycles leave zero resources, broadcasters, timers, sockets and listeners behind',
  notOnBun("counts the node:http server's request/upgrade listeners; fw.listen() on Bun has no node:http server"),
  async () => {
    const app = await startFw({}, (fw) => fw.handle('/chat/{room}', {}));
    const server = app.fw.listeningServers[0]!;
    const port = (server.address() as AddressInfo).port;
    const listenersBefore = {
      bus: app.fw.events.listenerCount(),
      request: server.listenerCount('request'),
      upgrade: server.listenerCount('upgrade'),
    };
    let connected = 0;
    let disconnected = 0;
    const offA = app.fw.events.on('ResourceConnected', () => connected++);
    const offB = app.fw.events.on('ResourceDisconnected', () => disconnected++);
    try {
      const total = 10_000;
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < total) await cycle(app.base, port, next++);
      };
      await Promise.all(Array.from({ length: 32 }, worker));
      await waitFor('app.fw.runtime.stats().connections === 0', () => app.fw.runtime.stats().connections === 0, 10_000);
      assert.equal(connected, total);
      assert.equal(disconnected, total);
      assert.deepEqual(app.fw.runtime.diagnostics(), {
        resources: 0,
        detachedResources: 0,
        broadcasters: 0,
        timers: 0,
        webSockets: 0,
        pendingFlushes: 0,
      });
      assert.equal(app.fw.runtime.stats().broadcasters, 0);
      // Every connection gave its place back, and no request is left in the drain's books.
      assert.equal(app.fw.runtime.connections.inUse(), 0);
      assert.equal(app.fw.runtime.connections.holders, 0);
      assert.equal(app.fw.requests.size, 0);
      offA();
      offB();
      assert.deepEqual(
        {
          bus: app.fw.events.listenerCount(),
          request: server.listenerCount('request'),
          upgrade: server.listenerCount('upgrade'),
        },
        listenersBefore,
      );
      assert.equal(app.fw.runtime.listHandlers()[0]!.resourceCount, 0);
    } finally {
      await app.close();
    }
  },
);
