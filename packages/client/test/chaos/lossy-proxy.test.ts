/**
 * Chaos (issue #25): the real client and the real runtime behind a lossy TCP proxy (resets,
 * truncations, jitter; bounded), on each transport, both directions at once. Audited:
 *   client → server: every `send()` promise settles; each message the server took, it took once
 *     and in send order; a resolved promise means it was taken (a rejected one: not more than once);
 *   server → client: every broadcast exactly once, in order, or accounted for by a gap.
 * Before the fix the client lost WebSocket sends silently (a send counted once handed to a socket
 * that died) and duplicated HTTP ones (a POST whose answer was lost was sent again).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type TransportName } from '../../dist/node.js';
import { serve, within } from '../helpers.js';
import { assertAudit, record, waitFor } from '@fw/testing';
import { lossyProxy } from './lossy-proxy.js';

const ROOM = '/fw/chat/lobby';
const SENDS = 200;
const BROADCASTS = 200;

for (const transport of ['websocket', 'sse', 'long-polling', 'streaming'] as TransportName[]) {
  test(`${transport}: behind a lossy proxy every send is taken once, in order, or its promise says otherwise; broadcasts audited`, async (t) => {
    const seed = Number(process.env.FW_CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const taken: string[] = [];
    const server = await serve(
      // Short heartbeats and polls: a connection the proxy left hanging is noticed in seconds.
      { 'fw.heartbeat.interval': 400, 'fw.long-polling.timeout': 1500 },
      (fw) => fw.handle('/chat/{room}', { message: (_r, data) => void taken.push(data) }),
    );
    const port = Number(new URL(server.url('/')).port);
    const proxy = await lossyProxy(port, { seed, budget: 16, resetRate: 0.015, truncateRate: 0.015, maxDelay: 15, every: 20 });
    const client = connect(`http://127.0.0.1:${proxy.port}${ROOM}`, {
      transports: [transport],
      reconnect: { minDelay: 20, maxDelay: 200 },
      connectTimeout: 2000,
      heartbeatTimeout: 2000,
    });
    t.after(async () => {
      client.close();
      await proxy.close();
      await server.close();
    });
    const what = `${transport} (FW_CHAOS_SEED=${seed})`;
    const r = record(client);
    await waitFor(`${what}: open`, () => client.state === 'open', 15_000);

    // Both directions at once, paced, while the proxy does its worst.
    const outcomes: Promise<'taken' | string>[] = [];
    const published: string[] = [];
    for (let i = 0; i < Math.max(SENDS, BROADCASTS); i++) {
      if (i < SENDS) {
        outcomes.push(
          client.send(`c${i}`).then(
            () => 'taken',
            (e: { code?: string }) => e.code ?? 'error',
          ),
        );
      }
      if (i < BROADCASTS) {
        published.push(`s${i}`);
        server.fw.runtime.broadcast(ROOM, `s${i}`);
      }
      if (i % 5 === 4) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const settled = await within<string[]>(
      60_000,
      () => `${what}: every send() settled (taken ${taken.length})`,
      (resolve) => void Promise.all(outcomes).then(resolve),
    );
    proxy.heal();
    // One last broadcast on a clean network: once it is in, everything before it is in or a gap.
    published.push('end');
    server.fw.runtime.broadcast(ROOM, 'end');
    await waitFor(`${what}: the last broadcast (got ${r.got.length})`, () => r.got.includes('end'), 30_000);

    // client → server
    const index = taken.map((m) => Number(m.slice(1)));
    assert.equal(new Set(index).size, index.length, `${what}: a message taken twice: ${taken.join(',')}`);
    assert.deepEqual(
      index,
      [...index].sort((a, b) => a - b),
      `${what}: taken out of order`,
    );
    for (let i = 0; i < SENDS; i++) {
      if (settled[i] === 'taken') assert.ok(index.includes(i), `${what}: c${i} resolved but never taken`);
      else assert.equal(settled[i], 'send_unconfirmed', `${what}: c${i} rejected with ${settled[i]}`);
    }
    // server → client
    assertAudit(published, r, what);
    const confirmed = settled.filter((s) => s === 'taken').length;
    t.diagnostic(
      `${what}: faults ${JSON.stringify(proxy.faults)}; sends taken ${taken.length}/${SENDS} (confirmed ${confirmed}); ` +
        `broadcasts received ${new Set(r.got).size}/${published.length}, gaps ${r.gaps.length}, recoveries ${r.recoveries.length}`,
    );
    assert.ok(proxy.faults.resets + proxy.faults.truncations > 0, `${what}: the proxy did inject faults`);
  });
}
