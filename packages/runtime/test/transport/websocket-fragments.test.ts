import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '@fw/testing';
import { Framework, type FrameworkOptions } from '../../dist/index.js';
import { connectWs, notOnBun, startFw, type WsClient } from '../helpers.js';

/** Sends `text` as one message split into `frames` frames (the first text frame, then continuations). */
function sendInFrames(c: WsClient, text: string, frames: number): void {
  const size = Math.ceil(text.length / frames);
  for (let i = 0; i < frames; i++) c.socket.send(text.slice(i * size, (i + 1) * size), { fin: i === frames - 1 });
}

/** The close code, or a failure naming what did not happen within 10 s. */
function closeCode(c: WsClient): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('the server did not close the socket within 10 s')), 10_000);
    void c.closed.then(({ code }) => {
      clearTimeout(t);
      resolve(code);
    });
  });
}

/** A raw (non fw-protocol) echo: each client message is answered with its length. */
async function echoApp(options: FrameworkOptions = {}) {
  return startFw(options, (fw) =>
    fw.handle('/echo', { message: (resource, data) => void resource.write(`got ${data.length}`) }, { broadcaster: null }),
  );
}

test(
  'websocket: a message in fw.websocket.max-fragments frames is delivered; one frame more closes with 1008',
  notOnBun(
    'Bun reassembles fragmented messages itself, bounded by fw.websocket.max-payload; fw.websocket.max-fragments applies to node:http only',
  ),
  async () => {
    const app = await echoApp({ 'fw.websocket.max-fragments': 8 });
    try {
      const c = await connectWs(`${app.ws}/fw/echo`);
      sendInFrames(c, 'abcdefgh', 8);
      assert.equal(await c.messages.next(), 'got 8');
      // The count is per message: the next message may use all eight again.
      sendInFrames(c, 'abcdefgh', 8);
      assert.equal(await c.messages.next(), 'got 8');
      sendInFrames(c, 'abcdefghi', 9);
      assert.equal(await closeCode(c), 1008);
      await waitFor('app.fw.runtime.stats().connections === 0', () => app.fw.runtime.stats().connections === 0);
    } finally {
      await app.close();
    }
  },
);

test(
  'websocket: a flood of empty fragments is cut off at the default cap (128), not buffered',
  notOnBun(
    'Bun reassembles fragmented messages itself, bounded by fw.websocket.max-payload; fw.websocket.max-fragments applies to node:http only',
  ),
  async () => {
    const app = await echoApp();
    try {
      assert.equal(app.fw.runtime.settings.maxFragments, 128);
      const ok = await connectWs(`${app.ws}/fw/echo`);
      sendInFrames(ok, 'x'.repeat(128), 128);
      assert.equal(await ok.messages.next(), 'got 128');
      ok.socket.close(1000);

      const flood = await connectWs(`${app.ws}/fw/echo`);
      let sent = 0;
      let closed = false;
      const code = closeCode(flood).finally(() => {
        closed = true;
      });
      // Up to 50,000 zero-length frames of one message (ws 8.18 buffered every one of them; from
      // 8.21.1 up to its own default, 16,384); fw closes the socket after the 129th.
      for (; sent < 50_000 && !closed; sent++) {
        flood.socket.send('', { fin: false });
        if (sent % 100 === 0) await new Promise((r) => setImmediate(r));
      }
      assert.equal(await code, 1008);
      // Closed near the cap, not at ws's own 16,384 (what the client sent before the close reached it).
      assert.ok(sent < 4000, `the server let ${sent} fragments through before closing`);
      await waitFor('app.fw.runtime.stats().connections === 0', () => app.fw.runtime.stats().connections === 0);
    } finally {
      await app.close();
    }
  },
);

test('fw.websocket.max-fragments must be a whole number of at least 1', () => {
  for (const bad of [0, -1, 1.5]) {
    assert.throws(() => new Framework({ configFile: false, env: {}, 'fw.websocket.max-fragments': bad }), {
      code: 'invalid_config',
      message: /fw\.websocket\.max-fragments must be a whole number of frames, at least 1/,
    });
  }
  assert.equal(new Framework({ configFile: false, env: {}, 'fw.websocket.max-fragments': 1 }).runtime.settings.maxFragments, 1);
});
