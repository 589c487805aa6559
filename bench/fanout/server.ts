/**
 * One server under test, alone in its process (so that its RSS is its own), driven by the
 * orchestrator over IPC: `rss`, `connections`, `cpu`. Subscribers connect to its subscriber path;
 * the publisher (bench/fanout/publisher.ts) to a path of its own, and each message it sends is
 * handed to the server's own fan-out: fw's broadcaster, a loop over `ws` clients, Socket.IO's
 * `io.emit`, or the coalescing ceiling below.
 *
 *   node bench/dist/fanout/server.js fw|fw-proto|fw-rooms|ws|sio|ceiling   (started by bench/dist/fanout/index.js)
 *   bun bench/dist/fanout/server.js fw-bun|fw-proto-bun|bun
 *
 * On Bun (docs/bun.md): `fw-bun` and `fw-proto-bun` are the fw server above, unchanged, whose
 * `fw.listen()` serves through `Bun.serve`; `bun` is Bun's own pub/sub, the ceiling: every
 * subscriber `subscribe`s one topic and each published message is one `server.publish`.
 *
 * `ceiling` ("Node ceiling (coalescing)"): raw `ws` on Node, the least work a server can do per
 * delivery in Node while coalescing as fw does. Each message from the publisher is framed once
 * (`ws`'s `Sender.frame`, no per-socket framing or queue); the frames of the messages that arrive
 * in one task are collected and, in a microtask after that task (when fw's flush queue,
 * packages/runtime/src/resource/flush-queue.ts, writes), concatenated once into one Buffer that is
 * written as is to every subscriber's TCP socket: one write per socket per turn. Unlike fw it does
 * not slice a large fan-out over several turns (`fw.flush.slice`). Its subscribers get raw frames
 * (the message bytes), as those of `fw` and `ws` do.
 */
import { createRequire } from 'node:module';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { Server as SocketIoServer } from 'socket.io';
import { Framework, useRooms } from '@fw/runtime';
import { serveParent } from '../common/child.js';
import { settledMemory } from '../common/rss.js';
import type { ServerKind } from './kinds.js';

export type { ServerKind };

interface Target {
  port: number;
  /** Subscribers connected (the publisher not counted). */
  connections(): number;
}

/**
 * `ws` builds frames with `Sender.frame`; @types/ws does not declare `Sender`, so it is required
 * untyped (as in bench/scale/targets.ts). Only when the `ceiling` kind starts: on Bun, `ws` is
 * Bun's own stand-in, which has no `Sender`.
 */
type FrameBuilder = (data: Buffer, options: { fin: boolean; opcode: number; mask: boolean; readOnly: boolean; rsv1: boolean }) => Buffer[];
function frameBuilder(): FrameBuilder {
  const { Sender } = createRequire(import.meta.url)('ws') as { Sender?: { frame: FrameBuilder } };
  if (Sender === undefined) throw new Error("the 'ceiling' kind needs the 'ws' package's Sender (it runs on Node)");
  return Sender.frame.bind(Sender);
}

async function listen(server: HttpServer): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', 511, r));
  return (server.address() as AddressInfo).port;
}

async function start(kind: ServerKind): Promise<Target> {
  switch (kind) {
    case 'fw':
    case 'fw-proto':
    case 'fw-bun':
    case 'fw-proto-bun': {
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
    case 'ceiling':
      return coalescingCeiling();
    case 'bun': {
      return bunPubSub();
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

/**
 * The `ceiling` kind: each published message framed once, the frames of one task concatenated once
 * in a microtask after it, and that one Buffer written to every subscriber's socket.
 */
async function coalescingCeiling(): Promise<Target> {
  const http = createServer();
  const frame = frameBuilder();
  const wss = new WebSocketServer({ server: http, perMessageDeflate: false, clientTracking: false });
  const subscribers = new Set<Socket>();
  let frames: Buffer[] = [];
  let bytes = 0;
  let queued = false;
  const flush = (): void => {
    queued = false;
    const buf = frames.length === 1 ? frames[0]! : Buffer.concat(frames, bytes);
    frames = [];
    bytes = 0;
    for (const s of subscribers) s.write(buf);
  };
  wss.on('connection', (ws, req) => {
    if (req.url === '/publish') {
      ws.on('message', (data: RawData) => {
        // readOnly: the received bytes are not modified; unmasked: [header, payload].
        for (const part of frame(data as Buffer, { fin: true, opcode: 1, mask: false, readOnly: true, rsv1: false })) {
          frames.push(part);
          bytes += part.length;
        }
        if (!queued) {
          queued = true;
          queueMicrotask(flush);
        }
      });
      return;
    }
    const raw = (ws as unknown as { _socket: Socket })._socket;
    subscribers.add(raw);
    ws.on('close', () => subscribers.delete(raw));
  });
  return { port: await listen(http), connections: () => subscribers.size };
}

/** What the `bun` kind uses of Bun's API (typed here: the bench compiles on Node). */
interface BunSocket {
  data: { publisher: boolean };
  subscribe(topic: string): void;
}
interface BunLike {
  serve(options: {
    port: number;
    hostname: string;
    fetch(req: Request, server: { upgrade(req: Request, o: { data: { publisher: boolean } }): boolean }): Response | undefined;
    websocket: {
      open(ws: BunSocket): void;
      message(ws: BunSocket, message: string | Uint8Array): void;
      close(ws: BunSocket): void;
      perMessageDeflate: boolean;
      idleTimeout: number;
    };
  }): { port: number; publish(topic: string, data: string | Uint8Array): number };
}

/** Bun's own pub/sub: the subscribers on one topic, each publisher message published once. */
function bunPubSub(): Target {
  const bun = (globalThis as { Bun?: BunLike }).Bun;
  if (bun === undefined) throw new Error("the 'bun' kind runs on Bun (--bun <path>)");
  let subscribers = 0;
  const server = bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req, srv) {
      const publisher = new URL(req.url).pathname.endsWith('/publish');
      return srv.upgrade(req, { data: { publisher } }) ? undefined : new Response('upgrade required', { status: 426 });
    },
    websocket: {
      open(ws) {
        if (ws.data.publisher) return;
        subscribers++;
        ws.subscribe('bench');
      },
      message(ws, message) {
        if (ws.data.publisher) server.publish('bench', message);
      },
      close(ws) {
        if (!ws.data.publisher) subscribers--;
      },
      perMessageDeflate: false,
      idleTimeout: 0,
    },
  });
  return { port: server.port, connections: () => subscribers };
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
