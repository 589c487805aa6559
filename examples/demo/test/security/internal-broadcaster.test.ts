/**
 * The admin event stream's broadcaster is internal: REST and the MCP tools may not broadcast into
 * it, unicast to its members or destroy it (403, audited with the real target), and the stream
 * keeps working afterwards.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import WebSocket from 'ws';
import { API, startIdentityApp, textOf, type Audited } from './identity-app.js';

const EVENTS = '/fw/admin/events';

test('writes and destroy on the internal broadcaster are refused; the event stream still works', async () => {
  const app = await startIdentityApp({ 'fw.admin.mcp-write-tools': true });
  const ws = new WebSocket(`${app.base.replace('http', 'ws')}${EVENTS}`);
  const frames: string[] = [];
  ws.on('message', (d) => frames.push(String(d)));
  try {
    await once(ws, 'open');
    const id = encodeURIComponent(EVENTS);
    const overview = (await (await app.get(`${API}/overview`)).json()) as {
      connections: number;
      internal: { connections: number; broadcasters: number; messages: number };
    };
    const { connections, broadcasters, messages } = overview.internal;
    assert.deepEqual({ connections, broadcasters }, { connections: 1, broadcasters: 1 }, 'the stream is counted apart');
    assert.ok(Number.isInteger(messages) && messages >= 0, 'its own frames are counted apart too');
    assert.equal(overview.connections, 0, 'not as a user connection');

    const forged = await app.send('POST', `${API}/broadcasters/broadcast`, { broadcasterId: EVENTS, message: '{"type":"Forged"}' });
    assert.equal(forged.status, 403);
    assert.equal(((await forged.json()) as { code: string }).code, 'internal_broadcaster');
    assert.equal((await app.send('DELETE', `${API}/broadcasters/${id}`, undefined)).status, 403);
    const member = ((await (await app.get(`${API}/resources?broadcaster=${id}`)).json()) as { uuid: string }[])[0]!.uuid;
    assert.equal((await app.send('POST', `${API}/resources/${member}/message`, { message: 'forged' })).status, 403);

    const mcp = await app.mcp('/fw/admin/mcp');
    const viaMcp = await mcp.callTool({ name: 'fw_broadcast', arguments: { broadcasterId: EVENTS, message: 'forged' } });
    assert.equal(viaMcp.isError, true);
    assert.match(textOf(viaMcp), /internal_broadcaster/);
    const destroyMcp = await mcp.callTool({ name: 'fw_destroy_broadcaster', arguments: { broadcasterId: EVENTS } });
    assert.equal(destroyMcp.isError, true);

    const audit = (await (await app.get(`${API}/audit`)).json()) as Audited[];
    // Refusals are aggregated per caller, action and outcome: the MCP attempts join the REST ones' records.
    assert.deepEqual(
      audit.map((e) => [e.action, e.target, e.outcome, e.refusals?.count, e.refusals?.sources.map((s) => s.value)]).reverse(),
      [
        ['broadcast', EVENTS, 'refused', 2, ['rest', 'mcp']],
        ['destroy', EVENTS, 'refused', 2, ['rest', 'mcp']],
        ['unicast', member, 'refused', 1, ['rest']],
      ],
    );
    assert.ok(!frames.some((f) => f.includes('Forged') || f === 'forged'), 'nothing forged reached the stream');

    // Still alive: a new event reaches the consumer.
    frames.length = 0;
    app.fw.broadcasters.lookup('/fw/chat/alive', true);
    const deadline = Date.now() + 5000;
    while (!frames.some((f) => f.includes('/fw/chat/alive')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(
      frames.some((f) => f.includes('BroadcasterCreated') && f.includes('/fw/chat/alive')),
      'the stream still delivers',
    );
  } finally {
    ws.close();
    await app.close();
  }
});
