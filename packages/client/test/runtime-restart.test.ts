// A server restart is a drop, not a goodbye: the client must come back by itself once the server
// listens again on the same address, whatever transport it was using.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { connect, type TransportName } from '../src/node.js';
import { eventually, until } from './helpers.js';

async function start(port: number): Promise<{ fw: Framework; port: number }> {
  const fw = new Framework({ configFile: false, 'fw.modules.autoload': false });
  fw.handle('/chat/{room}', {});
  const addr = await fw.listen(port, '127.0.0.1');
  return { fw, port: addr.port };
}

for (const transport of ['websocket', 'sse', 'long-polling', 'streaming'] as TransportName[]) {
  test(`${transport}: a client reconnects by itself after the server restarts`, async () => {
    let server = await start(0);
    const url = `http://127.0.0.1:${server.port}/fw/chat/lobby`;
    const client = connect(url, { transports: [transport], reconnect: { minDelay: 50, maxDelay: 200 } });
    const got: string[] = [];
    let closedFor: string | undefined;
    client.onMessage((d) => got.push(d));
    client.onClose((reason) => (closedFor = reason));
    try {
      await until(client, 'open');
      const firstUuid = client.uuid;
      await server.fw.close();
      await until(client, 'reconnecting');
      assert.equal(closedFor, undefined, 'a shutdown must not end the client for good');

      server = await start(server.port);
      await until(client, 'open');
      assert.notEqual(client.uuid, firstUuid, 'the restarted server knows nothing of the old resource');
      await eventually(() => server.fw.runtime.stats().connections === 1, 'the client connected to the restarted server');
      server.fw.runtime.broadcast('/fw/chat/lobby', 'after restart');
      await eventually(() => got.includes('after restart'), 'a message after the restart');
    } finally {
      client.close();
      await server.fw.close();
    }
  });
}
