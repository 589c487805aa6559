/**
 * Chaos (issue 13, acceptance 4): a server restarted without a durable replay store. The client
 * comes back by itself and is told (a `server-restarted` gap, `recovered: false`) that what the
 * old process sent after its cursor is unknown; everything the new process broadcast reaches it
 * exactly once, in order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Framework } from '@fw/runtime';
import { connect, type TransportName } from '../../dist/node.js';
import { until } from '../helpers.js';
import { assertAudit, record, waitFor } from '@fw/testing';

const ROOM = '/fw/chat/lobby';

async function start(port: number): Promise<{ fw: Framework; port: number }> {
  const fw = new Framework({ configFile: false });
  fw.handle('/chat/{room}', {});
  const addr = await fw.listen(port, '127.0.0.1');
  return { fw, port: addr.port };
}

for (const transport of ['websocket', 'sse', 'long-polling', 'streaming'] as TransportName[]) {
  test(`${transport}: restart without a replay store → a server-restarted gap, then the new process's messages exactly once`, async () => {
    let server = await start(0);
    const client = connect(`http://127.0.0.1:${server.port}${ROOM}`, {
      transports: [transport],
      reconnect: { minDelay: 50, maxDelay: 200 },
    });
    const r = record(client);
    try {
      await until(client, 'open');
      const before = Array.from({ length: 20 }, (_, i) => `old ${i}`);
      for (const m of before) server.fw.runtime.broadcast(ROOM, m);
      await waitFor('the messages before the restart', () => r.got.length === 20);
      await server.fw.close();
      await until(client, 'reconnecting');
      server = await start(server.port);
      // Broadcast before the client is back (only the replay cache brings these), then live.
      const after = Array.from({ length: 10 }, (_, i) => `new ${i}`);
      const room = server.fw.broadcasters.lookup(ROOM, true);
      for (const m of after.slice(0, 5)) room.broadcast(m);
      await until(client, 'open');
      await waitFor('the recovery event', () => r.recoveries.length === 1);
      for (const m of after.slice(5)) server.fw.runtime.broadcast(ROOM, m);
      await waitFor(`the last message (got ${r.got.join(',')})`, () => r.got.at(-1) === 'new 9');

      assert.deepEqual(r.recoveries[0], { recovered: false, resumed: false, gaps: [{ reason: 'server-restarted', b: ROOM }] });
      assert.deepEqual(r.gaps, [{ reason: 'server-restarted', b: ROOM }]);
      // Nothing was lost here (the old process flushed before it went), and nothing repeated.
      assertAudit([...before, ...after], { got: r.got, gaps: [] }, transport);
    } finally {
      client.close();
      await server.fw.close();
    }
  });
}
