/** Chat sessions through the fw client over the HTTP transports (the WebSocket path is in chat.test.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type TransportName } from '@fw/client/node';
import { Agent } from '../dist/index.js';
import { startApp } from './helpers.js';
import { waitFor } from '@fw/testing';

@Agent({ name: 'talker' })
class Talker {}

test('fw client over sse, long-polling and streaming: one session each, answers stream back, sessions end on close', async () => {
  const app = await startApp((m) => m.mount(Talker));
  const transports: TransportName[] = ['sse', 'long-polling', 'streaming'];
  const clients = transports.map((t) => {
    const c = connect(`${app.base}/fw/agent/talker`, { transports: [t], reconnect: false });
    const frames: { type: string; delta?: string; text?: string }[] = [];
    c.onMessage((d) => frames.push(JSON.parse(d)));
    return { c, frames, t };
  });
  try {
    await waitFor("clients.every(({ c }) => c.state === 'open')", () => clients.every(({ c }) => c.state === 'open'));
    await waitFor("app.module.view.sessions('talker').length === 3", () => app.module.view.sessions('talker').length === 3);
    for (const { c, frames, t } of clients) {
      c.send(`hello over ${t}`);
      await waitFor("frames.some((f) => f.type === 'done')", () => frames.some((f) => f.type === 'done'));
      const done = frames.find((f) => f.type === 'done')!;
      assert.equal(done.text, `You said: hello over ${t}`);
      assert.equal(
        frames
          .filter((f) => f.type === 'token')
          .map((f) => f.delta)
          .join(''),
        done.text,
      );
    }
    const sessions = app.module.view.sessions('talker');
    assert.deepEqual(
      sessions.map((s) => s.messageCount),
      [1, 1, 1],
    );
    assert.deepEqual(new Set(sessions.map((s) => s.resourceUuid)), new Set(clients.map(({ c }) => c.uuid)));
    for (const { c } of clients) c.close();
    await waitFor(
      "app.events.filter((e) => e.type === 'AgentSessionEnded').length === 3",
      () => app.events.filter((e) => e.type === 'AgentSessionEnded').length === 3,
    );
    assert.equal(app.module.view.sessions().length, 0);
  } finally {
    for (const { c } of clients) if (c.state !== 'closed') c.close();
    await app.close();
  }
});
