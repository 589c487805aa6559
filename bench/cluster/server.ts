/**
 * One cluster node under test, alone in its process, driven by bench/cluster/index.ts over IPC
 * (`cpu`, `connections`, `publish`):
 *
 *   node bench/dist/cluster/server.js fw|sio <redis-url> <prefix> <node-name>
 *
 * fw: a Framework with cluster mode on (`@fw/redis`, `fw.cluster.redis-url`), subscribers on the
 * handler `/bench`. Socket.IO 4: `@socket.io/redis-adapter` over ioredis, its documented setup.
 * The publisher lives on the first node only: every message crosses Redis to reach the others.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { Server as SocketIoServer } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import { Framework } from '@fw/runtime';
import { cluster as clusterMode } from '@fw/redis';
import { serveParent } from '../common/child.js';
import { nowUs } from '../common/clock.js';
import { encode } from '../fanout/message.js';

export type ClusterKind = 'fw' | 'sio';

interface Target {
  port: number;
  connections(): number;
  publish(message: string): void;
  close(): Promise<void>;
}

async function start(kind: ClusterKind, redisUrl: string, prefix: string, node: string): Promise<Target> {
  if (kind === 'fw') {
    const fw = new Framework({
      configFile: false,
      env: {},
      // Every client connects from loopback: no per-address share.
      'fw.connections.max-per-address': 0,
      'fw.cluster.redis-url': redisUrl,
      'fw.cluster.prefix': prefix,
      'fw.cluster.node-id': node,
    });
    await fw.use(clusterMode());
    fw.handle('/bench', {});
    const { port } = await fw.listen(0, '127.0.0.1');
    return {
      port,
      connections: () => fw.resources.size,
      publish: (m) => void fw.broadcasters.lookup('/fw/bench', true).broadcast(m),
      close: () => fw.close(),
    };
  }
  const http = createServer();
  const pub = new Redis(redisUrl);
  const sub = pub.duplicate();
  const io = new SocketIoServer(http, { transports: ['websocket'], serveClient: false, adapter: createAdapter(pub, sub, { key: prefix }) });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', 511, r));
  return {
    port: (http.address() as AddressInfo).port,
    connections: () => io.engine.clientsCount,
    publish: (m) => void io.emit('m', m),
    close: async () => {
      await new Promise((r) => io.close(() => r(undefined)));
      pub.disconnect();
      sub.disconnect();
    },
  };
}

const [kind, redisUrl, prefix, node] = process.argv.slice(2) as [ClusterKind, string, string, string];
const target = await start(kind, redisUrl, prefix, node);

serveParent({
  connections: () => ({ type: 'connections', connections: target.connections() }),
  cpu: () => {
    const c = process.cpuUsage();
    return { type: 'cpu', us: c.user + c.system };
  },
  /** `burst`: `perTick` messages per event-loop turn until `count`; `paced`: one every `intervalMs`. */
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
process.on('SIGTERM', () => void target.close().finally(() => process.exit(0)));
process.send!({ type: 'ready', port: target.port });
