/**
 * The admin event-stream consumers for bench/admin-overhead, in their own process: one that
 * reads every event (a dashboard), and one that connects and then never reads (a stalled
 * dashboard: its socket is paused, so the server's send buffer fills up).
 *
 *   node bench/dist/admin-overhead/consumers.js <port>
 */
import { WebSocket } from 'ws';
import { serveParent } from '../common/child.js';

const port = Number(process.argv[2]);
const url = `ws://127.0.0.1:${port}/fw/admin/events`;
let events = 0;

function open(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

const reader = await open();
reader.on('message', () => events++);
const stalled = await open();
stalled.on('error', () => undefined); // the server may drop it as a slow consumer
stalled.pause();

serveParent({
  count: () => ({ type: 'count', events }),
  close: () => {
    reader.terminate();
    stalled.terminate();
    return { type: 'closed' };
  },
});
process.send!({ type: 'ready' });
