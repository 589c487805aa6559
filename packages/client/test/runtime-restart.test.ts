// A server restart is a drop, not a goodbye: the client must come back by itself once the server
// listens again on the same address, whatever transport it was using, and must not mistake the
// restarted server's broadcasts (numbered from 1 again) for ones it has already seen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { connect, type TransportName } from '../dist/node.js';
import { until } from './helpers.js';
import { waitFor } from '@fw/testing';

const ROOM = '/fw/chat/lobby';

async function start(port: number, before?: string[]): Promise<{ fw: Framework; port: number }> {
  const fw = new Framework({ configFile: false });
  fw.handle('/chat/{room}', {});
  if (before) {
    // Broadcast before anyone can connect: only the replay cache can bring these to the client.
    const b = fw.broadcasters.create(ROOM);
    for (const m of before) b.broadcast(m);
  }
  const addr = await fw.listen(port, '127.0.0.1');
  return { fw, port: addr.port };
}

for (const transport of ['websocket', 'sse', 'long-polling', 'streaming'] as TransportName[]) {
  test(`${transport}: a client reconnects by itself after the server restarts and loses nothing`, async () => {
    let server = await start(0);
    const url = `http://127.0.0.1:${server.port}${ROOM}`;
    const client = connect(url, { transports: [transport], reconnect: { minDelay: 50, maxDelay: 200 } });
    const got: string[] = [];
    let closedFor: string | undefined;
    client.onMessage((d) => got.push(d));
    client.onClose((reason) => (closedFor = reason));
    try {
      await until(client, 'open');
      const firstUuid = client.uuid;
      for (let i = 1; i <= 5; i++) server.fw.runtime.broadcast(ROOM, `old ${i}`);
      await waitFor('five messages before the restart', () => got.length === 5);
      await server.fw.close();
      await until(client, 'reconnecting');
      assert.equal(closedFor, undefined, 'a shutdown must not end the client for good');

      server = await start(server.port, ['early 1', 'early 2']);
      await until(client, 'open');
      assert.notEqual(client.uuid, firstUuid, 'the restarted server knows nothing of the old resource');
      await waitFor('the client connected to the restarted server', () => server.fw.runtime.stats().connections === 1);
      server.fw.runtime.broadcast(ROOM, 'late');
      await waitFor('a message after the restart', () => got.includes('late'));
      assert.deepEqual(got, ['old 1', 'old 2', 'old 3', 'old 4', 'old 5', 'early 1', 'early 2', 'late']);
    } finally {
      client.close();
      await server.fw.close();
    }
  });
}
