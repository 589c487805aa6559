/**
 * The client follows the close-code table of docs/protocol.md: after a drop-like code it
 * reconnects by itself; after a final one it ends, with the server's reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { connect, FINAL_CLOSE_CODES } from '../../dist/node.js';
import { within } from '../helpers.js';
import { waitFor } from '@fw/testing';

/** A WebSocket endpoint that handshakes like fw, then closes each connection with `code` (the first one only). */
async function closingServer(
  code: number,
  reason: string,
): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((r) => wss.once('listening', r));
  let n = 0;
  wss.on('connection', (ws) => {
    n++;
    ws.send(
      JSON.stringify({
        t: 'hs',
        uuid: `00000000-0000-4000-8000-00000000000${n}`,
        transport: 'websocket',
        heartbeat: 25000,
        resumed: false,
        epoch: 'e',
      }),
    );
    if (n === 1) setTimeout(() => ws.close(code, reason), 10);
  });
  const { port } = wss.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/fw/x`,
    connections: () => n,
    close: () =>
      new Promise((r) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => r());
      }),
  };
}

const RECONNECT = [1001, 1006 /* never sent: stands for a dropped socket */, 1011, 1012, 1013, 4001];
const FINAL = [4000, 1002, 1003, 1007, 1008, 1009];

test('the final close codes are the documented ones', () => {
  assert.deepEqual([...FINAL_CLOSE_CODES].sort(), [...FINAL].sort());
});

for (const code of RECONNECT.filter((c) => c !== 1006)) {
  test(`close code ${code}: the client reconnects by itself`, async () => {
    const server = await closingServer(code, 'bye for now');
    const client = connect(server.url, { transports: ['websocket'], reconnect: { minDelay: 10, maxDelay: 20 } });
    const states: string[] = [];
    client.onStateChange((s) => states.push(s));
    try {
      await waitFor('the reconnect', () => server.connections() === 2 && client.state === 'open');
      assert.deepEqual(states, ['open', 'reconnecting', 'open']);
    } finally {
      client.close();
      await server.close();
    }
  });
}

for (const code of FINAL) {
  test(`close code ${code}: final, the client ends with the server's reason`, async () => {
    const server = await closingServer(code, `final ${code}`);
    const client = connect(server.url, { transports: ['websocket'], reconnect: { minDelay: 10, maxDelay: 20 } });
    try {
      const reason = await within<string>(5000, 'the close', (resolve) => client.onClose(resolve));
      assert.equal(reason, `final ${code}`);
      assert.equal(client.state, 'closed');
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(server.connections(), 1, 'no reconnect');
    } finally {
      client.close();
      await server.close();
    }
  });
}
