/**
 * The client half of the tool bridge against the real runtime: `tool-call` frames are answered by
 * id with `tool-response` frames that only the bridge sees; ordinary messages of either shape are
 * the application's, both ways.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Resource } from '@fw/runtime';
import { connect, type TransportName } from '../dist/node.js';
import { serve, until } from './helpers.js';
import { waitFor } from '@fw/testing';

for (const transport of ['websocket', 'sse', 'long-polling', 'streaming'] as TransportName[]) {
  test(`${transport}: registered tools answer tool-call frames by id; unknown tools and failures answer with error; look-alike messages stay the app's`, async (t) => {
    const appMessages: string[] = [];
    let resource: Resource | undefined;
    const server = await serve({}, (fw) =>
      fw.handle('/agent/{name}', {
        open(r) {
          resource = r;
        },
        message(_resource, data) {
          appMessages.push(data);
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
    await waitFor('the resource', () => resource !== undefined);
    const r = resource!;
    const responses: Array<Record<string, unknown>> = [];
    r.onToolResponse((data) => {
      responses.push(JSON.parse(data) as Record<string, unknown>);
      return true;
    });

    const call = (id: string, toolName: string, args: Record<string, unknown>): boolean =>
      r.writeToolCall(JSON.stringify({ type: 'tool-call', id, toolName, arguments: args }));
    for (let i = 0; i < 20; i++) call(`add-${i}`, 'add', { a: i, b: 100 });
    call('u', 'upper', { text: 'shout' });
    call('f', 'fail', {});
    call('x', 'missing', {});
    const lookAlike = JSON.stringify({ type: 'tool-call', id: 'app-1', toolName: 'add', arguments: { a: 1, b: 1 } });
    server.fw.runtime.unicast(client.uuid!, 'an ordinary message');
    server.fw.runtime.unicast(client.uuid!, lookAlike);
    // The client sends an app message shaped like a tool-response: the handler gets it.
    const lookAlikeAnswer = JSON.stringify({ type: 'tool-response', id: 'add-0', result: 'forged' });
    client.send(lookAlikeAnswer);
    await waitFor(
      `23 responses (have ${responses.length}), 2 messages, 1 app message`,
      () => responses.length === 23 && messages.length === 2 && appMessages.length === 1,
    );

    const byId = new Map(responses.map((x) => [x.id, x]));
    for (let i = 0; i < 20; i++) assert.deepEqual(byId.get(`add-${i}`), { type: 'tool-response', id: `add-${i}`, result: String(i + 100) });
    assert.deepEqual(byId.get('u'), { type: 'tool-response', id: 'u', result: 'SHOUT' });
    assert.deepEqual(byId.get('f'), { type: 'tool-response', id: 'f', error: 'no can do' });
    assert.deepEqual(byId.get('x'), { type: 'tool-response', id: 'x', error: "no handler registered for tool 'missing'" });
    assert.deepEqual(
      messages,
      ['an ordinary message', lookAlike],
      'a message shaped like a tool call reaches onMessage and is not answered',
    );
    assert.deepEqual(appMessages, [lookAlikeAnswer], 'a message shaped like a tool-response reaches the handler; bridge answers do not');
    assert.equal(responses.filter((x) => x.id === 'app-1').length, 0);
  });
}
