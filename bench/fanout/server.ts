/**
 * One server under test, alone in its process (so that its RSS is its own), driven by the
 * orchestrator over IPC: `rss`, `connections`, `cpu`. Subscribers connect to its subscriber path;
 * the publisher (bench/fanout/publisher.ts) to a path of its own, and each message it sends is
 * handed to the server's own fan-out: fw's broadcaster, a loop over `ws` clients, Socket.IO's
 * `io.emit`.
 *
 *   node bench/dist/fanout/server.js fw|fw-proto|fw-rooms|ws|sio   (started by bench/dist/fanout/index.js)
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { Server as SocketIoServer } from 'socket.io';
import { Framework, useRooms } from '@fw/runtime';
import { serveParent } from '../common/child.js';
import { settledMemory } from '../common/rss.js';

/** `fw-rooms`: `fw-proto` with the subscribers' path and the publisher's path made rooms (presence, a join, a publish and a presence rule). */
export type ServerKind = 'fw' | 'fw-proto' | 'fw-rooms' | 'ws' | 'sio';

interface Target {
  port: number;
  /** Subscribers connected (the publisher not counted). */
  connections(): number;
}

async function listen(server: HttpServer): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', 511, r));
  return (server.address() as AddressInfo).port;
}

async function start(kind: ServerKind): Promise<Target> {
  switch (kind) {
    case 'fw':
    case 'fw-proto': {
      // Every subscriber connects from loopback: no per-address share (fw.connections.max-per-address).
      const fw = new Framework({ configFile: false, 'fw.connections.max-per-address': 0 });
      // Subscribers join the broadcaster /fw/bench; nobody but the publisher sends.
      fw.handle('/bench', {});
      fw.handle('/publish', { message: (_r, data) => void fw.broadcasters.lookup('/fw/bench')?.broadcast(data) }, { broadcaster: null });
      const { port } = await fw.listen(0, '127.0.0.1');
      return { port, connections: () => fw.broadcasters.lookup('/fw/bench')?.size ?? 0 };
    }
    case 'fw-rooms': {
      // The same as fw-proto, with rooms: every subscriber is a member (presence kept and told to
      // every member), every join passes a rule, every publish passes a rule (a function) and the
      // connection's publish rate (set out of the way: the bench measures the checks, not refusals).
      const fw = new Framework({
        configFile: false,
        'fw.connections.max-per-address': 0,
        'fw.rooms.publish-rate': 0,
        'fw.rooms.members-listed': 1000,
      });
      const rooms = useRooms(fw, {
        rooms: [
          { pattern: '/bench', join: { allow: () => true }, presence: { allow: () => true } },
          { pattern: '/publish', publish: { allow: (_p, room) => room === '/fw/publish' } },
        ],
      });
      fw.handle('/bench', {}, { interceptors: [rooms.interceptor] });
      fw.handle(
        '/publish',
        { message: (_r, data) => void fw.broadcasters.lookup('/fw/bench')?.broadcast(data) },
        { interceptors: [rooms.interceptor] },
      );
      const { port } = await fw.listen(0, '127.0.0.1');
      return { port, connections: () => fw.broadcasters.lookup('/fw/bench')?.size ?? 0 };
    }
    case 'ws': {
      const http = createServer();
      const wss = new WebSocketServer({ server: http, perMessageDeflate: false, clientTracking: false });
      const subscribers = new Set<WebSocket>();
      wss.on('connection', (ws, req) => {
        if (req.url === '/publish') {
          // The straightforward raw loop; the received bytes are sent as they are (encoded once).
          ws.on('message', (data: RawData) => {
            for (const c of subscribers) c.send(data as Buffer, { binary: false });
          });
          return;
        }
        subscribers.add(ws);
        ws.on('close', () => subscribers.delete(ws));
      });
      return { port: await listen(http), connections: () => subscribers.size };
    }
    case 'sio': {
      const http = createServer();
      const io = new SocketIoServer(http, { transports: ['websocket'], serveClient: false });
      // The publisher uses its own namespace, so `io.emit` reaches exactly the subscribers.
      io.of('/pub').on('connection', (socket) => socket.on('m', (m: string) => void io.emit('m', m)));
      return { port: await listen(http), connections: () => io.of('/').sockets.size };
    }
  }
}

const target = await start(process.argv[2] as ServerKind);

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
});
process.send!({ type: 'ready', port: target.port });
