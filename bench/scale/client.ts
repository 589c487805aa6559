/**
 * A load-generating client process: opens `n` idle connections of one kind to the server under
 * test, bound to the loopback source addresses it is given (127.0.0.2, 127.0.0.3, …: each gives
 * its own ~28,000 ephemeral ports, and none of them competes with other processes' 127.0.0.1
 * ports), and counts the messages they receive. Driven over IPC: `connect`, `expect`, `report`,
 * `close`. A process holds at most its open-file limit (20,000 here), so the bench starts several.
 *
 *   node bench/dist/scale/client.js fw|ws|sio|ceiling <port> <addr,addr,…>
 *
 * fw, ws and the ceiling are measured with plain `ws` clients (they all serve raw frames);
 * Socket.IO with socket.io-client over its WebSocket transport only.
 */
import { WebSocket } from 'ws';
import { io, type Socket } from 'socket.io-client';
import { serveParent, type BenchMessage } from '../common/child.js';
import { nowUs } from '../common/clock.js';
import { Histogram } from '../common/histogram.js';
import { phaseOf, sentUsOf } from '../fanout/message.js';
import type { ScaleKind } from './targets.js';

const kind = process.argv[2] as ScaleKind;
const port = Number(process.argv[3]);
const addresses = process.argv[4]!.split(',');
const CONNECT_CONCURRENCY = 100;

const sockets: (WebSocket | Socket)[] = [];
let phase = -1;
let expected = 0;
let received = 0;
let lastUs = 0;
/** Publish-to-receipt time of every delivery in the phase (µs, the shared clock). */
const latency = new Histogram();
let onComplete: (() => void) | undefined;

function deliver(m: string): void {
  if (phaseOf(m) !== phase) return;
  lastUs = nowUs();
  latency.record(lastUs - sentUsOf(m));
  if (++received === expected) onComplete?.();
}

function open(localAddress: string): Promise<WebSocket | Socket> {
  return new Promise((resolve, reject) => {
    if (kind === 'sio') {
      // engine.io-client passes `localAddress` on to its `ws` transport; its types do not list it.
      const options = { transports: ['websocket'], forceNew: true, reconnection: false, timeout: 60_000, localAddress };
      const s = io(`http://127.0.0.1:${port}`, options);
      s.on('m', (m: string) => deliver(m));
      s.once('connect', () => resolve(s));
      s.once('connect_error', reject);
      return;
    }
    // A handshake that never completes counts as failed (`handshakeTimeout`), not as a hang.
    const ws = new WebSocket(`ws://127.0.0.1:${port}${kind === 'fw' ? '/fw' : ''}/bench`, {
      perMessageDeflate: false,
      localAddress,
      handshakeTimeout: 60_000,
    });
    ws.on('message', (data: Buffer) => deliver(data.toString('latin1', 0, 29)));
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function report(): BenchMessage {
  return { type: 'done', received, sockets: sockets.length, lastUs, latency: latency.toJSON() };
}

serveParent({
  connect: async (m) => {
    const n = m.n as number;
    let failed = 0;
    let next = 0;
    let error = '';
    const t0 = nowUs();
    // A bounded number of handshakes in flight, so the server's accept backlog never overflows.
    await Promise.all(
      Array.from({ length: CONNECT_CONCURRENCY }, async () => {
        while (next < n) {
          const i = next++;
          try {
            sockets.push(await open(addresses[i % addresses.length]!));
          } catch (err) {
            failed++;
            error = (err as Error).message;
          }
        }
      }),
    );
    return { type: 'connected', open: sockets.length, failed, error, seconds: (nowUs() - t0) / 1e6 };
  },
  expect: (m) => {
    phase = m.phase as number;
    expected = (m.messages as number) * sockets.length;
    received = 0;
    lastUs = 0;
    latency.reset();
    onComplete = () => process.send!(report());
    return { type: 'expecting' };
  },
  report: () => {
    onComplete = undefined;
    return report();
  },
  close: async () => {
    for (const s of sockets) {
      if (s instanceof WebSocket) s.terminate();
      else s.disconnect();
    }
    sockets.length = 0;
    return { type: 'closed' };
  },
});
process.send!({ type: 'ready' });
