/**
 * Chaos (issue #25): a slow consumer in a room that goes quiet. The server drops messages for a
 * client that stopped reading (`fw.slow-consumer.policy` drop); then nothing more is broadcast.
 * Before the fix the gap waited for the next message, so the drops stayed unsaid for as long as
 * the room stayed quiet; now it arrives without one, once the connection drains (or after
 * `fw.slow-consumer.gap-delay` at the latest). The real client over WebSocket (its socket paused)
 * and SSE (its response body not read), audited: every message once, in order, or in the gap.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { connect, type FetchLike, type WebSocketConstructor } from '../../dist/node.js';
import { serve, until } from '../helpers.js';
import { assertAudit, record, waitFor } from '@fw/testing';

const ROOM = '/fw/feed/quiet';
const GAP_DELAY = 1000;

/** Stops reading after the first thing it receives; `resume()` reads again. */
interface Brake {
  stopped(): boolean;
  resume(): void;
}

function slowWebSocket(): { WebSocket: WebSocketConstructor; brake: Brake } {
  let socket: Socket | undefined;
  let used = false;
  class SlowWebSocket extends WebSocket {
    constructor(url: string) {
      super(url);
      if (used) return;
      used = true;
      this.once('open', () => {
        const s = (this as unknown as { _socket: Socket })._socket;
        this.once('message', () => {
          s.pause();
          socket = s;
        });
      });
    }
  }
  return {
    WebSocket: SlowWebSocket as unknown as WebSocketConstructor,
    brake: { stopped: () => socket !== undefined, resume: () => socket?.resume() },
  };
}

function slowFetch(): { fetch: FetchLike; brake: Brake } {
  let release: (() => void) | undefined;
  let stopped = false;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let used = false;
  const slow = (async (input: string | URL | Request, init?: RequestInit) => {
    const res = await fetch(input, init);
    if (used || init?.method !== undefined || !String(input).includes('transport=sse')) return res;
    used = true;
    const reader = res.body!.getReader();
    let first = true;
    // Passes the first chunk (the handshake) on, then reads nothing until released: undici stops
    // reading the socket, and the server's buffer for this client grows.
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          if (!first) {
            stopped = true;
            await gate;
          }
          first = false;
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: res.status, headers: res.headers });
  }) as FetchLike;
  return { fetch: slow, brake: { stopped: () => stopped, resume: () => release?.() } };
}

for (const transport of ['websocket', 'sse'] as const) {
  test(`${transport}: drops in a room that then stays quiet are announced by a gap without any further message`, async (t) => {
    const server = await serve(
      { 'fw.slow-consumer.high-water-mark': 64 * 1024, 'fw.slow-consumer.gap-delay': GAP_DELAY, 'fw.heartbeat.interval': 0 },
      (fw) => fw.handle('/feed/{name}', {}),
    );
    const slow = transport === 'websocket' ? slowWebSocket() : slowFetch();
    const client = connect(server.url(ROOM), {
      transports: [transport],
      ...('WebSocket' in slow ? { WebSocket: slow.WebSocket } : { fetch: slow.fetch }),
      reconnect: { minDelay: 10, maxDelay: 50 },
      heartbeatTimeout: 120_000,
    });
    t.after(() => {
      client.close();
      return server.close();
    });
    const r = record(client);
    await until(client, 'open');
    server.fw.runtime.broadcast(ROOM, 'first');
    await waitFor('the client stopped reading', () => slow.brake.stopped());
    const published = ['first'];
    const big = 'x'.repeat(32 * 1024);
    const stats = server.fw.runtime.stats.bind(server.fw.runtime);
    for (let i = 0; i < 4000 && stats().dropped === 0; i++) {
      published.push(`${i} ${big}`);
      server.fw.runtime.broadcast(ROOM, published.at(-1)!);
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (let i = 0; i < 3; i++) {
      published.push(`late ${i} ${big}`);
      server.fw.runtime.broadcast(ROOM, published.at(-1)!);
    }
    assert.ok(stats().dropped > 0, 'the server dropped messages for the slow client');
    // The room is quiet from here on. The client reads again a while later.
    await new Promise((resolve) => setTimeout(resolve, GAP_DELAY / 2));
    slow.brake.resume();
    await waitFor(
      `the gap (got ${r.got.length} of ${published.length}, gaps ${r.gaps.length})`,
      () => r.got.length + r.gaps.reduce((n, g) => n + (g.lost ?? 0), 0) === published.length,
      15_000,
    );
    const a = assertAudit(published, r, transport);
    t.diagnostic(
      `${transport}: received ${r.got.length} of ${published.length}, dropped ${stats().dropped}, gaps ${JSON.stringify(r.gaps.map((g) => g.lost))}`,
    );
    assert.equal(a.signalled, stats().dropped, 'the gaps name every dropped message');
    assert.ok(
      r.gaps.every((g) => g.reason === 'slow-consumer-dropped' && g.b === ROOM),
      JSON.stringify(r.gaps),
    );
    assert.equal(server.fw.runtime.stats().broadcasts, published.length, 'no message after the drops');
  });
}
