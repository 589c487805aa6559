import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { FwResource, type Runtime } from '../dist/internals.js';
import { connectWs, startFw } from './helpers.js';
import { waitFor } from '@fw/testing';

/** A resource without a connection, as the registry holds it (enough for the read side at scale). */
function fake(rt: Runtime, uuid: string, path: string): FwResource {
  const entry = rt.handlers[0]!;
  return new FwResource(rt, entry, uuid, {
    transport: 'websocket',
    protocol: 'raw',
    path,
    params: {},
    search: '',
    principal: undefined,
    attributes: undefined,
    req: { socket: { remoteAddress: '127.0.0.1' } } as unknown as IncomingMessage,
  });
}

test('runtime view: resources are paged and filtered by broadcaster, transport and search at 100 000 resources', async () => {
  const app = await startFw({}, (fw) => fw.handle('/room/{id}', {}));
  const rt = app.fw.runtime;
  try {
    for (let i = 0; i < 100_000; i++) {
      const r = fake(rt, `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, `/fw/room/${i % 10}`);
      (r as { transport: string }).transport = i % 4 === 0 ? 'sse' : 'websocket';
      rt.resources.add(r);
      rt.broadcasters.implicit(r.path).add(r);
      r.home = r.path;
    }
    assert.equal(rt.stats().connections, 100_000);
    assert.equal(rt.listBroadcasters().length, 10);
    assert.equal(rt.getBroadcaster('/fw/room/3')?.resourceCount, 10_000);

    const first = rt.listResources({ limit: 3 });
    assert.equal(first.total, 100_000);
    assert.deepEqual(
      first.items.map((r) => r.uuid.slice(-3)),
      ['000', '001', '002'],
    );
    const deep = rt.listResources({ offset: 99_998, limit: 10 });
    assert.deepEqual(
      deep.items.map((r) => r.uuid.slice(-5)),
      ['99998', '99999'],
    );

    const room = rt.listResources({ broadcaster: '/fw/room/3', limit: 2, offset: 1 });
    assert.equal(room.total, 10_000);
    assert.deepEqual(
      room.items.map((r) => r.uuid.slice(-2)),
      ['13', '23'],
    );
    assert.equal(room.items[0]!.broadcaster, '/fw/room/3');

    assert.equal(rt.listResources({ transport: 'sse' }).total, 25_000);
    // room 2 and sse: i % 10 == 2 and i % 4 == 0 → i % 20 == 12 → 5 000
    const both = rt.listResources({ broadcaster: '/fw/room/2', transport: 'sse', limit: 2 });
    assert.equal(both.total, 5000);
    assert.deepEqual(
      both.items.map((r) => r.uuid.slice(-2)),
      ['12', '32'],
    );
    const search = rt.listResources({ search: '000000099999', limit: 5 });
    assert.equal(search.total, 1);
    assert.equal(rt.listResources({ broadcaster: '/fw/none' }).total, 0);
    assert.equal(rt.listResources({ limit: 100_000 }).limit, 1000);

    for (const r of [...rt.resources.values()]) r.terminate('test over');
    assert.equal(rt.stats().connections, 0);
    assert.equal(rt.stats().broadcasters, 0);
  } finally {
    await app.close();
  }
});

test('runtime view: destroying a broadcaster disconnects the resources it owned, with the reason', async () => {
  const app = await startFw({}, (fw) => fw.handle('/room/{id}', {}));
  try {
    const c = await connectWs(`${app.ws}/fw/room/9?fw=1`);
    await c.messages.next();
    const extra = app.fw.broadcasters.create('/fw/extra');
    const uuid = app.fw.runtime.listResources().items[0]!.uuid;
    extra.add(app.fw.resources.get(uuid)!);
    assert.deepEqual(app.fw.runtime.getResource(uuid)?.broadcasters, ['/fw/room/9', '/fw/extra']);
    // Leaving an extra broadcaster keeps the connection.
    assert.equal(app.fw.runtime.destroyBroadcaster('/fw/extra'), 1);
    assert.deepEqual(app.fw.runtime.getResource(uuid)?.broadcasters, ['/fw/room/9']);
    assert.equal(app.fw.runtime.destroyBroadcaster('/fw/room/9'), 1);
    assert.deepEqual(JSON.parse(await c.messages.next()), { t: 'close', reason: 'broadcaster /fw/room/9 destroyed' });
    assert.equal((await c.closed).code, 4000);
    await waitFor('app.fw.runtime.stats().connections === 0', () => app.fw.runtime.stats().connections === 0);
  } finally {
    await app.close();
  }
});
