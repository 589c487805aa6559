/**
 * Chaos (issue 13, acceptance 2): a client is cut off for longer than `fw.resume.grace` while the
 * publisher goes on. Its resource expires, its room's broadcaster is destroyed and recreated; the
 * client comes back fresh with `since`, gets what the replay cache still holds, and a gap for what
 * it does not, and then every new live message (ids never go backwards). Four transports.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type TransportName } from '../../dist/node.js';
import { serve, until } from '../helpers.js';
import { assertAudit, record, waitFor } from '@fw/testing';

const ROOM = '/fw/chat/lobby';
const GRACE = 150;

for (const transport of ['websocket', 'sse', 'long-polling', 'streaming'] as TransportName[]) {
  for (const replayCache of [256, 20]) {
    if (replayCache === 20 && transport !== 'websocket' && transport !== 'sse') continue;
    test(`${transport}, replay cache ${replayCache}: disconnected longer than the grace period while publishing goes on → ${replayCache === 256 ? 'nothing lost' : 'an exact gap'}, then every live message`, async (t) => {
      const server = await serve({ 'fw.resume.grace': GRACE, 'fw.broadcaster.replay-cache': replayCache }, (fw) =>
        fw.handle('/chat/{room}', {}),
      );
      // The reconnect comes well after the grace period.
      const client = connect(server.url(ROOM), {
        transports: [transport],
        reconnect: { minDelay: GRACE * 4, maxDelay: GRACE * 4, jitter: 0 },
      });
      t.after(() => {
        client.close();
        return server.close();
      });
      const r = record(client);
      const published: string[] = [];
      const publish = (): void => {
        const m = `m${published.length}`;
        published.push(m);
        server.fw.broadcasters.lookup(ROOM, true).broadcast(m);
      };
      await until(client, 'open');
      const firstUuid = client.uuid;
      for (let i = 0; i < 10; i++) publish();
      await waitFor('the first ten', () => r.got.length === 10);

      const expired = new Promise<void>((resolve) => server.fw.events.on('ResourceDisconnected', () => resolve()));
      server.killSockets();
      await expired; // the grace period is over: resource, and with it the empty room, gone
      assert.equal(server.fw.broadcasters.lookup(ROOM), undefined, 'the empty implicit broadcaster was destroyed');
      for (let i = 0; i < 40; i++) publish(); // into a recreated broadcaster nobody listens to yet
      await until(client, 'open');
      assert.notEqual(client.uuid, firstUuid, 'a fresh resource');
      await waitFor('the recovery event', () => r.recoveries.length === 1);
      for (let i = 0; i < 5; i++) publish(); // live again: none may be taken for a duplicate
      await waitFor(`the last live message (got ${r.got.length})`, () => r.got.at(-1) === published.at(-1));

      const a = assertAudit(published, r, transport);
      const recovery = r.recoveries[0]!;
      assert.equal(recovery.resumed, false);
      if (replayCache === 256) {
        assert.equal(a.missing, 0);
        assert.deepEqual(recovery, { recovered: true, resumed: false, gaps: [] });
      } else {
        // The cache holds the last 20 of the 40: bids 11…30 are gone, said once, before the replay.
        assert.equal(recovery.recovered, false);
        assert.deepEqual(recovery.gaps, [{ reason: 'grace-expired', lost: 20, b: ROOM, from: 11, to: 30 }]);
        assert.equal(a.missing, 20);
      }
    });
  }
}
