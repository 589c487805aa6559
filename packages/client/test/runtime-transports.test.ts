/** The client against the real runtime over each transport: connect, broadcasts, send, server close. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type MessageMeta, type TransportName } from '../dist/node.js';
import { connect as browserConnect } from '../dist/index.js';
import { serve, until, within } from './helpers.js';
import { waitFor } from '@fw/testing';

const TRANSPORTS: TransportName[] = ['websocket', 'sse', 'long-polling', 'streaming'];

for (const transport of TRANSPORTS) {
  test(`${transport}: connect, receive broadcasts and unicasts, send, server disconnect with a reason`, async () => {
    const inbound: string[] = [];
    const server = await serve({}, (fw) =>
      fw.handle('/chat/{room}', {
        message(resource, data) {
          inbound.push(data);
          resource.write(`echo:${data}`);
        },
      }),
    );
    const client = connect(server.url('/fw/chat/lobby'), { transports: [transport] });
    const got: Array<[string, MessageMeta]> = [];
    client.onMessage((d, meta) => got.push([d, meta]));
    await until(client, 'open');
    assert.equal(client.transport, transport);
    const info = server.fw.runtime.getResource(client.uuid!);
    assert.equal(info?.transport, transport);
    assert.equal(info?.protocol, 'fw');

    assert.equal(server.fw.runtime.broadcast('/fw/chat/lobby', 'hello'), 1);
    server.fw.runtime.broadcast('/fw/chat/lobby', { n: 2 });
    await waitFor('two broadcasts', () => got.length === 2);
    assert.deepEqual(
      got.map(([d]) => d),
      ['hello', '{"n":2}'],
    );
    assert.equal(got[0]![1].broadcaster, '/fw/chat/lobby');
    assert.equal(got[0]![1].transport, transport);
    assert.ok(got[1]![1].id > got[0]![1].id);

    client.send('hi');
    client.send({ text: 'there' });
    await waitFor('two echoes', () => got.length === 4);
    assert.deepEqual(inbound, ['hi', '{"text":"there"}']);
    assert.deepEqual(
      got.slice(2).map(([d, m]) => [d, m.broadcaster]),
      [
        ['echo:hi', undefined],
        ['echo:{"text":"there"}', undefined],
      ],
    );

    const reason = within<string>(5000, 'close', (r) => client.onClose(r));
    server.fw.runtime.disconnect(client.uuid!, 'kicked: be nice');
    assert.equal(await reason, 'kicked: be nice');
    assert.equal(client.state, 'closed');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(server.fw.runtime.listResources().total, 0, 'no reconnect after a server close');
    await server.close();
  });

  test(`${transport}: client.close() ends the resource on the server at once`, async () => {
    const closed: string[] = [];
    const server = await serve({}, (fw) => fw.handle('/chat/{room}', { close: (_r, reason) => closed.push(reason) }));
    const client = connect(server.url('/fw/chat/lobby'), { transports: [transport] });
    await until(client, 'open');
    const reason = within<string>(1000, 'close', (r) => client.onClose(r));
    client.close();
    assert.equal(await reason, 'client closed');
    await waitFor('the resource to end', () => server.fw.runtime.listResources().total === 0);
    assert.deepEqual(closed, ['client closed']);
    await server.close();
  });
}

test('the browser entry uses the global WebSocket, and falls back to sse where there is none (Node 20)', async (t) => {
  const server = await serve({}, (fw) => fw.handle('/chat/{room}', {}));
  const client = browserConnect(server.url('/fw/chat/lobby'));
  t.after(() => {
    client.close();
    return server.close();
  });
  const errors: string[] = [];
  client.onError((e) => errors.push(e.code));
  await until(client, 'open');
  if (typeof (globalThis as { WebSocket?: unknown }).WebSocket === 'function') {
    assert.equal(client.transport, 'websocket');
    assert.deepEqual(errors, []);
  } else {
    assert.equal(client.transport, 'sse');
    assert.deepEqual(errors, ['transport_unavailable']);
  }
});

test('fallback: a server that refuses WebSocket upgrades is reached over sse', async () => {
  const server = await serve({}, (fw) => {
    fw.handle('/chat/{room}', {});
    fw.intercept({
      name: 'no-websocket',
      connect: (ctx) => (ctx.transport === 'websocket' ? { status: 403, code: 'forbidden', detail: 'no websockets here' } : undefined),
    });
  });
  const client = connect(server.url('/fw/chat/lobby'));
  await until(client, 'open');
  assert.equal(client.transport, 'sse');
  client.close();
  await server.close();
});

test('connect/send/close cycles leave no timers behind and no resources on the server', async (t) => {
  const server = await serve({}, (fw) => fw.handle('/chat/{room}', {}));
  t.after(() => server.close());
  const resources = (): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const k of process.getActiveResourcesInfo()) out[k] = (out[k] ?? 0) + 1;
    return out;
  };
  for (const transport of TRANSPORTS) {
    for (let i = 0; i < 50; i++) {
      const c = connect(server.url('/fw/chat/lobby'), { transports: [transport] });
      await until(c, 'open');
      c.send('x');
      c.close();
    }
  }
  await waitFor('every resource to end', () => server.fw.runtime.listResources().total === 0);
  await new Promise((r) => setTimeout(r, 50));
  const left = resources();
  assert.equal(left.Timeout ?? 0, 0, JSON.stringify(left));
  // fetch keeps a small pool of idle keep-alive sockets; it must not grow with the cycles.
  assert.ok((left.TCPSocketWrap ?? 0) <= 16, JSON.stringify(left));
});
