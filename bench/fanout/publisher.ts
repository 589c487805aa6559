/**
 * The one publisher: a client process of its own with a single connection to the server under
 * test, sending the benchmark messages (each stamped with its send time) that the server fans
 * out to every subscriber. Being outside the server, its timestamps also count the time a message
 * waits in a server that cannot keep up. Driven over IPC: `connect`, `publish`, `abort`.
 *
 *   fw: a raw WebSocket to /fw/publish;  ws, ceiling, bun: to /publish;  Socket.IO: the `/pub` namespace.
 */
import { WebSocket } from 'ws';
import { io, type Socket } from 'socket.io-client';
import { serveParent } from '../common/child.js';
import { nowUs } from '../common/clock.js';
import { encode } from './message.js';
import { RAW_PUBLISH, type ServerKind } from './kinds.js';

const kind = process.argv[2] as ServerKind;
const port = Number(process.argv[3]);
let send: (m: string) => void = () => undefined;
let conn: WebSocket | Socket | undefined;
/** Set by `abort`: a publish running past the orchestrator's deadline stops where it is. */
let aborted = false;

function open(): Promise<void> {
  return new Promise((resolve, reject) => {
    if (kind === 'sio') {
      const s = io(`http://127.0.0.1:${port}/pub`, { transports: ['websocket'], forceNew: true, reconnection: false });
      conn = s;
      send = (m) => void s.emit('m', m);
      s.once('connect', () => resolve());
      s.once('connect_error', reject);
      return;
    }
    const ws = new WebSocket(`ws://127.0.0.1:${port}${RAW_PUBLISH.includes(kind) ? '' : '/fw'}/publish`, { perMessageDeflate: false });
    conn = ws;
    send = (m) => ws.send(m);
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
}

serveParent({
  connect: async () => {
    await open();
    return { type: 'connected' };
  },
  abort: () => {
    aborted = true;
  },
  /**
   * `burst`: `perTick` messages per macrotask, as fast as the event loop turns, until `count`.
   * `paced`: one message every `intervalMs` on an absolute schedule (late ticks catch up).
   */
  publish: async (m) => {
    aborted = false;
    const phase = m.phase as number;
    const count = m.count as number;
    const startUs = nowUs();
    let seq = 0;
    if (m.mode === 'burst') {
      const perTick = m.perTick as number;
      while (seq < count && !aborted) {
        for (const end = Math.min(count, seq + perTick); seq < end; seq++) send(encode(phase, seq, nowUs()));
        await new Promise((r) => setImmediate(r));
      }
    } else {
      const intervalUs = (m.intervalMs as number) * 1000;
      while (seq < count && !aborted) {
        const due = startUs + seq * intervalUs;
        const wait = (due - nowUs()) / 1000;
        if (wait > 0.5) await new Promise((r) => setTimeout(r, wait));
        else send(encode(phase, seq++, nowUs()));
      }
    }
    return { type: 'published', startUs, endUs: nowUs(), sent: seq };
  },
  close: () => {
    if (conn instanceof WebSocket) conn.terminate();
    else conn?.disconnect();
    return { type: 'closed' };
  },
});
process.send!({ type: 'ready' });
