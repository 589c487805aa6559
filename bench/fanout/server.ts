/**
 * One server under test, alone in its process (so that its RSS is its own), driven by the
 * orchestrator over IPC: `rss`, `connections`, `cpu`, `publish`. The publisher lives here: it
 * hands each message to the server's own fan-out (fw's broadcaster, a loop over `ws` clients,
 * Socket.IO's `io.emit`), stamping each with its send time.
 *
 *   node bench/dist/fanout/server.js fw|fw-proto|ws|sio   (started by bench/dist/fanout/index.js)
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { Server as SocketIoServer } from 'socket.io';
import { Framework } from '@fw/runtime';
import { serveParent } from '../common/child.js';
import { nowUs } from '../common/clock.js';
import { settledMemory } from '../common/rss.js';
import { encode } from './message.js';

export type ServerKind = 'fw' | 'fw-proto' | 'ws' | 'sio';

interface Target {
  port: number;
  connections(): number;
  publish(message: string): void;
}

async function listen(server: HttpServer): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', 511, r));
  return (server.address() as AddressInfo).port;
}

async function start(kind: ServerKind): Promise<Target> {
  switch (kind) {
    case 'fw':
    case 'fw-proto': {
      const fw = new Framework({ configFile: false, 'fw.modules.autoload': false });
      // No `message` callback and nobody sends: the handler only gives subscribers a broadcaster.
      fw.handle('/bench', {});
      const { port } = await fw.listen(0, '127.0.0.1');
      return {
        port,
        connections: () => fw.resources.size,
        publish: (m) => void fw.broadcasters.lookup('/fw/bench')?.broadcast(m),
      };
    }
    case 'ws': {
      const http = createServer();
      const wss = new WebSocketServer({ server: http, perMessageDeflate: false });
      const port = await listen(http);
      // The straightforward raw loop, with the payload encoded once (the strongest simple baseline).
      return {
        port,
        connections: () => wss.clients.size,
        publish: (m) => {
          const bytes = Buffer.from(m);
          for (const c of wss.clients) c.send(bytes, { binary: false });
        },
      };
    }
    case 'sio': {
      const http = createServer();
      const io = new SocketIoServer(http, { transports: ['websocket'], serveClient: false });
      const port = await listen(http);
      return { port, connections: () => io.engine.clientsCount, publish: (m) => void io.emit('m', m) };
    }
  }
}

const kind = process.argv[2] as ServerKind;
const target = await start(kind);

serveParent({
  rss: async () => {
    const m = await settledMemory();
    return { type: 'rss', rss: m.rss, heap: m.heapUsed + m.external, connections: target.connections() };
  },
  connections: () => ({ type: 'connections', connections: target.connections() }),
  cpu: () => {
    const c = process.cpuUsage();
    return { type: 'cpu', us: c.user + c.system };
  },
  /**
   * `burst`: `perTick` messages per macrotask, as fast as the event loop turns, until `count`.
   * `paced`: one message every `intervalMs` on an absolute schedule (late ticks catch up).
   */
  publish: async (m) => {
    const phase = m.phase as number;
    const count = m.count as number;
    const startUs = nowUs();
    if (m.mode === 'burst') {
      const perTick = m.perTick as number;
      for (let seq = 0; seq < count; ) {
        for (const end = Math.min(count, seq + perTick); seq < end; seq++) target.publish(encode(phase, seq, nowUs()));
        await new Promise((r) => setImmediate(r));
      }
    } else {
      const intervalUs = (m.intervalMs as number) * 1000;
      for (let seq = 0; seq < count; ) {
        const due = startUs + seq * intervalUs;
        const wait = (due - nowUs()) / 1000;
        if (wait > 0.5) await new Promise((r) => setTimeout(r, wait));
        else target.publish(encode(phase, seq++, nowUs()));
      }
    }
    return { type: 'published', startUs, endUs: nowUs() };
  },
});
process.send!({ type: 'ready', port: target.port });
