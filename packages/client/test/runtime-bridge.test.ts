/** The client half of the tool bridge against the real runtime: tool-calls are answered by id. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type TransportName } from '../src/node.js';
import { eventually, serve, until } from './helpers.js';

for (const transport of ['websocket', 'sse', 'long-polling'] as TransportName[]) {
  test(`${transport}: registered tools answer tool-calls by id; unknown tools and failures answer with error`, async (t) => {
    const responses: Array<Record<string, unknown>> = [];
    const server = await serve({}, (fw) =>
      fw.handle('/agent/{name}', {
        message(_resource, data) {
          responses.push(JSON.parse(data) as Record<string, unknown>);
        },
      }),
    );
    const client = connect(server.url('/fw/agent/a'), { transports: [transport] });
    t.after(() => {
      client.close();
      return server.close();
    });
    client.registerTool('add', ({ a, b }) => Number(a) + Number(b));
    client.registerTool('upper', async ({ text }) => String(text).toUpperCase());
    client.registerTool('fail', () => {
      throw new Error('no can do');
    });
    const messages: string[] = [];
    client.onMessage((d) => messages.push(d));
    await until(client, 'open');

    const runtime = server.fw.runtime;
    const call = (id: string, toolName: string, args: Record<string, unknown>): void =>
      runtime.unicast(client.uuid!, { type: 'tool-call', id, toolName, arguments: args });
    for (let i = 0; i < 20; i++) call(`add-${i}`, 'add', { a: i, b: 100 });
    call('u', 'upper', { text: 'shout' });
    call('f', 'fail', {});
    call('x', 'missing', {});
    runtime.unicast(client.uuid!, 'an ordinary message');
    await eventually(() => responses.length === 23 && messages.length === 1, `23 responses (have ${responses.length})`);

    const byId = new Map(responses.map((r) => [r.id, r]));
    for (let i = 0; i < 20; i++) assert.deepEqual(byId.get(`add-${i}`), { type: 'tool-response', id: `add-${i}`, result: String(i + 100) });
    assert.deepEqual(byId.get('u'), { type: 'tool-response', id: 'u', result: 'SHOUT' });
    assert.deepEqual(byId.get('f'), { type: 'tool-response', id: 'f', error: 'no can do' });
    assert.deepEqual(byId.get('x'), { type: 'tool-response', id: 'x', error: "no handler registered for tool 'missing'" });
    assert.deepEqual(messages, ['an ordinary message'], 'tool calls never reach onMessage');
  });
}
