/**
 * A load-generating client process: opens `n` subscribers of one kind to the server under test
 * and, per phase, counts deliveries and records each one's latency (receive time − send time on
 * the shared clock). Driven by the orchestrator over IPC: `connect`, `expect`, `report`, `close`.
 *
 * fw, ws and ceiling are measured with plain `ws` clients (fw serves them raw frames: the message
 * bytes); `fw-proto` uses the fw protocol (`?fw=1&ids=implicit`, JSON frames
 * `{"t":"m","id":…,"d":…}`); Socket.IO with socket.io-client over its WebSocket transport only.
 *
 * fw-protocol subscribers check the message numbering as the real client does: a numbered frame
 * (`t` `m`, `s` or `tool-call`) carries its `id` or, without one (`ids=implicit`), its id is the
 * previous numbered frame's on that socket + 1; the first numbered frame on a socket carries `id`.
 * A frame whose id is not exactly the previous + 1, or that has no id and no previous one, is
 * counted `misnumbered` (reported with each phase's `done`).
 */
import { WebSocket } from 'ws';
import { io, type Socket } from 'socket.io-client';
import { serveParent, type BenchMessage } from '../common/child.js';
import { nowUs } from '../common/clock.js';
import { Histogram } from '../common/histogram.js';
import { fwProtocol, type ServerKind } from './kinds.js';
import { phaseOf, sentUsOf } from './message.js';

const kind = process.argv[2] as ServerKind;
const port = Number(process.argv[3]);
const CONNECT_CONCURRENCY = 100;

const sockets: (WebSocket | Socket)[] = [];
/** `{"t":"m","d":"`: an fw message frame without its id, the payload right after. */
const IMPLICIT_HEAD = Buffer.from('{"t":"m","d":"');
/** `{"t":"s","d":"`: a sequel frame (the next broadcast, without id, `b` or `bid`), the same length. */
const SEQUEL_HEAD = Buffer.from('{"t":"s","d":"');
const hist = new Histogram();
let phase = -1;
let expected = 0;
let received = 0;
let lastUs = 0;
/** fw-protocol frames numbered wrong during this phase (any phase's frames, stragglers too). */
let misnumbered = 0;
let onComplete: (() => void) | undefined;

function deliver(m: string): void {
  if (phaseOf(m) !== phase) return;
  const now = nowUs();
  hist.record(now - sentUsOf(m));
  lastUs = now;
  if (++received === expected) onComplete?.();
}

function open(): Promise<WebSocket | Socket> {
  return new Promise((resolve, reject) => {
    if (kind === 'sio') {
      const s = io(`http://127.0.0.1:${port}`, { transports: ['websocket'], forceNew: true, reconnection: false, timeout: 30_000 });
      s.on('m', (m: string) => deliver(m));
      s.once('connect', () => resolve(s));
      s.once('connect_error', reject);
      return;
    }
    const url = `ws://127.0.0.1:${port}/fw/bench${fwProtocol(kind) ? '?fw=1&ids=implicit' : ''}`;
    const ws = new WebSocket(url, { perMessageDeflate: false });
    if (fwProtocol(kind)) {
      /** The id of the last numbered frame on this socket (none yet: undefined). */
      let last: number | undefined;
      ws.on('message', (data: Buffer) => {
        // A sequel or message frame without its id (ids=implicit), the frame nearly every delivery is: the
        // payload (plain ASCII, nothing escaped) starts at a fixed offset, read as the raw kinds
        // read theirs, so that the load generator's JSON parsing does not limit what is measured.
        if (
          data.length > IMPLICIT_HEAD.length + 29 &&
          (data.compare(SEQUEL_HEAD, 0, SEQUEL_HEAD.length, 0, SEQUEL_HEAD.length) === 0 ||
            data.compare(IMPLICIT_HEAD, 0, IMPLICIT_HEAD.length, 0, IMPLICIT_HEAD.length) === 0)
        ) {
          if (last === undefined) misnumbered++;
          else last++;
          deliver(data.toString('latin1', IMPLICIT_HEAD.length, IMPLICIT_HEAD.length + 29));
          return;
        }
        const f = JSON.parse(data.toString()) as { t: string; id?: number; d?: string };
        if (f.t !== 'm' && f.t !== 's' && f.t !== 'tool-call') return;
        const id = f.id ?? (last === undefined ? undefined : last + 1);
        if (id === undefined || (last !== undefined && id !== last + 1)) misnumbered++;
        if (id !== undefined) last = id;
        if (f.t !== 'tool-call') deliver(f.d!);
      });
    } else {
      ws.on('message', (data: Buffer) => deliver(data.toString('latin1', 0, 29)));
    }
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function report(): BenchMessage {
  return { type: 'done', received, sockets: sockets.length, lastUs, misnumbered, hist: hist.toJSON() };
}

serveParent({
  connect: async (m) => {
    const n = m.n as number;
    let failed = 0;
    let next = 0;
    // A bounded number of handshakes in flight, so the server's accept backlog never overflows.
    await Promise.all(
      Array.from({ length: CONNECT_CONCURRENCY }, async () => {
        while (next < n) {
          next++;
          try {
            sockets.push(await open());
          } catch {
            failed++;
          }
        }
      }),
    );
    return { type: 'connected', open: sockets.length, failed };
  },
  expect: (m) => {
    phase = m.phase as number;
    expected = (m.messages as number) * sockets.length;
    received = 0;
    lastUs = 0;
    misnumbered = 0;
    hist.reset();
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
