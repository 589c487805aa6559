/**
 * The servers under test in bench/scale, each a function that starts one in this process and
 * returns what the bench drives: its port, its connection count and a `publish` that hands one
 * message to the server's own fan-out. Shared by the single-process server (server.ts) and the
 * cluster workers (cluster.ts).
 *
 *   fw       a Framework, subscribers on the handler `/bench` (broadcaster /fw/bench), raw frames;
 *            with a Redis URL, cluster mode through `@fw/redis`.
 *   ws       raw `ws` 8, `clientTracking` off, a Set of sockets and a `send` loop; with a Redis URL,
 *            a Redis pub/sub channel carries each message to every process (the least a raw
 *            cluster needs). With SCALE_WS_KEEPALIVE=<ms> (bench/scale's `--ws-keepalive`), also
 *            the `ws` README's keepalive: every interval a ping to each socket, and a socket that
 *            sent no pong since the last one is terminated (fw pings quiet connections likewise,
 *            `fw.heartbeat.interval`).
 *   sio      Socket.IO 4, WebSocket transport only; with a Redis URL, `@socket.io/redis-adapter`.
 *   ceiling  raw `ws`, the frame built once per message (`Sender.frame`) and written to every
 *            socket between `cork()` and `uncork()`: no per-socket framing, no per-socket queue,
 *            the least work a server can do per delivery in Node.
 */
import { createRequire } from 'node:module';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Redis } from 'ioredis';
import { type WebSocket, WebSocketServer } from 'ws';
import { Server as SocketIoServer } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import { Framework } from '@fw/runtime';
import { cluster as clusterMode } from '@fw/redis';

export type ScaleKind = 'fw' | 'ws' | 'sio' | 'ceiling';

export interface Target {
  port: number;
  connections(): number;
  publish(message: string): void;
}

export interface ClusterOptions {
  redisUrl: string;
  prefix: string;
  node: string;
}

/** `ws` builds frames with `Sender.frame`; @types/ws does not declare `Sender`, so it is required untyped. */
type FrameBuilder = (data: Buffer, options: { fin: boolean; opcode: number; mask: boolean; readOnly: boolean; rsv1: boolean }) => Buffer[];
const { Sender } = createRequire(import.meta.url)('ws') as { Sender: { frame: FrameBuilder } };
const frame = Sender.frame.bind(Sender);

/** The `ws` README's keepalive: a socket is alive if it answered the last ping. */
type Alive = WebSocket & { isAlive?: boolean };
function heard(this: WebSocket): void {
  (this as Alive).isAlive = true;
}

async function listen(server: HttpServer, port: number): Promise<number> {
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', 511, r));
  return (server.address() as AddressInfo).port;
}

export async function startTarget(kind: ScaleKind, port: number, cluster?: ClusterOptions): Promise<Target> {
  switch (kind) {
    case 'fw': {
      const fw = new Framework({
        configFile: false,
        env: {},
        // Every client connects from loopback: no per-address share, and room for any --n.
        'fw.connections.max-per-address': 0,
        'fw.connections.max': 10_000_000,
        // SCALE_FW_HEARTBEAT=<ms> (bench/scale/heap's `--heartbeat`): fw's sweep interval, to see what it leaves behind.
        ...(process.env.SCALE_FW_HEARTBEAT ? { 'fw.heartbeat.interval': Number(process.env.SCALE_FW_HEARTBEAT) } : {}),
        // SCALE_FW_FLUSH_SLICE=<n>: fw's `fw.flush.slice`, to compare slicings (0: every connection in one turn).
        ...(process.env.SCALE_FW_FLUSH_SLICE ? { 'fw.flush.slice': Number(process.env.SCALE_FW_FLUSH_SLICE) } : {}),
        ...(cluster
          ? { 'fw.cluster.redis-url': cluster.redisUrl, 'fw.cluster.prefix': cluster.prefix, 'fw.cluster.node-id': cluster.node }
          : {}),
      });
      if (cluster) await fw.use(clusterMode());
      fw.handle('/bench', {});
      const address = await fw.listen(port, '127.0.0.1');
      return {
        port: address.port,
        connections: () => fw.broadcasters.lookup('/fw/bench')?.size ?? 0,
        publish: (m) => void fw.broadcasters.lookup('/fw/bench', true).broadcast(m),
      };
    }
    case 'ws':
    case 'ceiling': {
      const http = createServer();
      const wss = new WebSocketServer({ server: http, perMessageDeflate: false, clientTracking: false });
      const sockets = new Set<WebSocket>();
      const keepalive = Number(process.env.SCALE_WS_KEEPALIVE ?? 0);
      wss.on('connection', (ws) => {
        sockets.add(ws);
        ws.on('close', () => sockets.delete(ws));
        if (keepalive > 0) {
          (ws as Alive).isAlive = true;
          ws.on('pong', heard);
        }
      });
      if (keepalive > 0) {
        setInterval(() => {
          for (const s of sockets as Set<Alive>) {
            if (!s.isAlive) s.terminate();
            else {
              s.isAlive = false;
              s.ping();
            }
          }
        }, keepalive).unref();
      }
      const local =
        kind === 'ws'
          ? (m: string) => {
              for (const s of sockets) s.send(m);
            }
          : (m: string) => {
              const [head, body] = frame(Buffer.from(m), { fin: true, opcode: 1, mask: false, readOnly: true, rsv1: false });
              for (const s of sockets) {
                const raw = (s as unknown as { _socket: Socket })._socket;
                raw.cork();
                raw.write(head!);
                if (body) raw.write(body);
                raw.uncork();
              }
            };
      const bound = await listen(http, port);
      if (!cluster) return { port: bound, connections: () => sockets.size, publish: local };
      const pub = new Redis(cluster.redisUrl);
      const sub = pub.duplicate();
      const channel = `${cluster.prefix}:ws`;
      await sub.subscribe(channel);
      sub.on('message', (_c: string, m: string) => local(m));
      return { port: bound, connections: () => sockets.size, publish: (m) => void pub.publish(channel, m) };
    }
    case 'sio': {
      const http = createServer();
      let adapter = {};
      if (cluster) {
        const pub = new Redis(cluster.redisUrl);
        adapter = { adapter: createAdapter(pub, pub.duplicate(), { key: cluster.prefix }) };
      }
      const io = new SocketIoServer(http, { transports: ['websocket'], serveClient: false, ...adapter });
      const bound = await listen(http, port);
      return { port: bound, connections: () => io.engine.clientsCount, publish: (m) => void io.emit('m', m) };
    }
  }
}
