import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectWs, openStream, recordEvents, refusedUpgrade, startFw } from '../helpers.js';
import type { Interceptor } from '../../dist/index.js';
import { waitFor } from '@fw/testing';

test('heartbeat: quiet fw connections get hb frames, raw WebSockets get pings, SSE raw gets comments', async () => {
  const app = await startFw({ 'fw.heartbeat.interval': 40 }, (fw) => fw.handle('/h', {}));
  try {
    const fwc = await connectWs(`${app.ws}/fw/h?fw=1`);
    assert.equal((JSON.parse(await fwc.messages.next()) as { heartbeat: number }).heartbeat, 40);
    assert.deepEqual(JSON.parse(await fwc.messages.next()), { t: 'hb' });
    const raw = await connectWs(`${app.ws}/fw/h`);
    await new Promise<void>((r) => raw.socket.once('ping', () => r()));
    const sse = await openStream(`${app.base}/fw/h`, true);
    assert.equal((await sse.events.next()).comment, true);
    fwc.socket.close(1000);
    raw.socket.close(1000);
    sse.abort();
    await waitFor('app.fw.runtime.stats().connections === 0', () => app.fw.runtime.stats().connections === 0);
    assert.equal(app.fw.runtime.diagnostics().timers, 0);
  } finally {
    await app.close();
  }
});

test('heartbeat: a sweep over ten slices (250 connections each) pings every connection, across turns', async () => {
  // 2,500 connections from one loopback address: past the default per-address share.
  const app = await startFw({ 'fw.heartbeat.interval': 300, 'fw.connections.max-per-address': 0 }, (fw) => fw.handle('/h', {}));
  const clients: Awaited<ReturnType<typeof connectWs>>[] = [];
  try {
    const pinged = new Set<number>();
    for (let batch = 0; batch < 10; batch++) {
      const opened = await Promise.all(Array.from({ length: 250 }, () => connectWs(`${app.ws}/fw/h`)));
      for (const c of opened) {
        const n = clients.push(c);
        c.socket.once('ping', () => pinged.add(n));
      }
    }
    await waitFor('all 2,500 pinged', () => pinged.size === 2500, 15_000);
  } finally {
    for (const c of clients) c.socket.terminate();
    await app.close();
  }
});

test('idle-timeout: a silent resource is closed with the reason; client heartbeats keep one alive', async () => {
  // Generous margins (idle 600 ms, a beat every 50 ms): a loaded CI machine can stall the event
  // loop for a few hundred milliseconds, which must not look like a silent client.
  const app = await startFw({ 'fw.idle-timeout': 600, 'fw.heartbeat.interval': 0 }, (fw) => fw.handle('/i', {}));
  const events = recordEvents(app.fw);
  try {
    const silent = await connectWs(`${app.ws}/fw/i?fw=1`);
    const chatty = await connectWs(`${app.ws}/fw/i?fw=1`);
    const hs = JSON.parse(await chatty.messages.next()) as { uuid: string };
    const beat = setInterval(() => chatty.socket.send('{"t":"hb"}'), 50);
    try {
      assert.deepEqual(await silent.closed, { code: 4000, reason: 'idle timeout' });
      await new Promise((r) => setTimeout(r, 700));
      assert.equal(app.fw.resources.get(hs.uuid)?.closed, false);
    } finally {
      clearInterval(beat);
    }
    assert.deepEqual(
      events.filter((e) => e.type === 'ResourceDisconnected').map((e) => e.reason),
      ['idle timeout'],
    );
    assert.deepEqual(
      app.fw.runtime.listInterceptors().map((i) => i.name),
      ['idle-timeout'],
    );
    chatty.socket.close(1000);
  } finally {
    await app.close();
  }
});

test('interceptors run in order (global, then per handler), can refuse with a status, set the principal and swallow messages', async () => {
  const order: string[] = [];
  const auth: Interceptor = {
    name: 'auth',
    connect(ctx) {
      order.push('auth');
      const token = ctx.url.searchParams.get('token');
      if (token !== 'secret') return { status: 401, code: 'unauthorized', detail: 'bad token' };
      ctx.principal = { id: 'alice' };
      ctx.attributes.set('role', 'admin');
      return undefined;
    },
  };
  const filter: Interceptor = {
    name: 'no-swearing',
    connect() {
      order.push('filter');
    },
    inbound(_r, data) {
      return !data.includes('darn');
    },
  };
  const app = await startFw({}, (fw) => {
    fw.intercept({
      name: 'global-log',
      connect() {
        order.push('global');
      },
    });
    fw.handle('/secure', {}, { interceptors: [auth, filter], description: 'auth demo' });
  });
  try {
    const refused = await refusedUpgrade(`${app.base}/fw/secure`);
    assert.equal(refused.status, 401);
    assert.equal(refused.body.code, 'unauthorized');
    assert.deepEqual(order, ['global', 'auth']);
    const sse = await fetch(`${app.base}/fw/secure?transport=sse`);
    assert.equal(sse.status, 401);
    assert.equal(sse.headers.get('content-type'), 'application/problem+json');

    order.length = 0;
    const c = await connectWs(`${app.ws}/fw/secure?token=secret`);
    assert.deepEqual(order, ['global', 'auth', 'filter']);
    await waitFor('app.fw.runtime.stats().connections === 1', () => app.fw.runtime.stats().connections === 1);
    const info = app.fw.runtime.listResources().items[0]!;
    assert.equal(info.principal, 'alice');
    assert.equal(app.fw.resources.get(info.uuid)?.attributes.get('role'), 'admin');
    c.socket.send('oh darn');
    c.socket.send('fine');
    assert.equal(await c.messages.next(), 'fine');
    assert.deepEqual(app.fw.runtime.listHandlers(), [
      {
        path: '/fw/secure',
        interceptors: ['heartbeat', 'global-log', 'auth', 'no-swearing'],
        description: 'auth demo',
        resourceCount: 1,
      },
    ]);
    assert.deepEqual(
      app.fw.runtime.listInterceptors().map((i) => [i.name, i.scope, i.handler, i.order]),
      [
        ['heartbeat', 'global', null, 0],
        ['global-log', 'global', null, 1],
        ['auth', 'handler', '/fw/secure', 0],
        ['no-swearing', 'handler', '/fw/secure', 1],
      ],
    );
    c.socket.close(1000);
  } finally {
    await app.close();
  }
});
