/**
 * A real cluster for the admin attack tests: a throwaway redis-server on a port of its own (the
 * test may do anything to it; it is killed afterwards) and fw nodes in this process, each with the
 * admin plane, `fw.auth.tokens` and `@fw/redis` cluster mode, on loopback.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, connect as netConnect } from 'node:net';
import { Framework } from '@fw/runtime';
import { cluster } from '@fw/redis';
import { waitFor } from '@fw/testing';
import { admin, type AdminOptions } from '../../dist/index.js';
import { AUTH_TOKENS, bearer, TOKENS, type AdminApp } from './helpers.js';

export const redisServerMissing: string | false =
  spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0 ? false : 'redis-server is not on PATH';

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = netConnect(port, '127.0.0.1');
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

/** A redis-server of this test only, without persistence, on a free port below the ephemeral range. */
export class ThrowawayRedis {
  private constructor(
    readonly port: number,
    private readonly proc: ChildProcess,
  ) {}

  /** On a free port of `ports` (default 12000-31999; a suite may keep to a range of its own). */
  static async start(ports: { from: number; count: number } = { from: 12_000, count: 20_000 }): Promise<ThrowawayRedis> {
    for (let tries = 0; tries < 50; tries++) {
      const port = ports.from + Math.floor(Math.random() * ports.count);
      if (!(await portFree(port))) continue;
      const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      const r = new ThrowawayRedis(port, proc);
      try {
        await waitFor('throwaway redis-server answers', async () => ((await pings(port)) ? true : undefined), 5000);
        return r;
      } catch {
        await r.stop();
      }
    }
    throw new Error('could not start a throwaway redis-server');
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const gone = new Promise((r) => this.proc.once('exit', r));
    this.proc.kill('SIGKILL');
    await gone;
  }
}

export interface ClusterNode extends AdminApp {
  id: string;
}

/** One node: the admin plane (with `options`, e.g. its own authorizer), cluster mode on `redis`, a chat handler. */
export async function startNode(
  redis: ThrowawayRedis,
  prefix: string,
  id: string,
  options: AdminOptions = {},
  props: Record<string, unknown> = {},
): Promise<ClusterNode> {
  const fw = new Framework({
    configFile: false,
    'fw.auth.tokens': AUTH_TOKENS,
    'fw.admin.mcp-tools': false,
    'fw.heartbeat.interval': 0,
    'fw.cluster.redis-url': redis.url,
    'fw.cluster.prefix': prefix,
    'fw.cluster.node-id': id,
    'fw.cluster.heartbeat-interval': 300,
    'fw.cluster.node-timeout': 3000,
    'fw.cluster.request-timeout': 2000,
    ...props,
  });
  await fw.use(admin(options));
  await fw.use(cluster());
  fw.handle('/chat/{room}', {});
  const { port } = await fw.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  const send = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    fetch(base + path, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
  return {
    id,
    fw,
    base,
    ws: `ws://127.0.0.1:${port}`,
    get: (path, headers) => fetch(base + path, { headers }),
    send,
    audit: async (query = '', token = TOKENS.viewer) => {
      const res = await fetch(`${base}/api/admin/audit?limit=1000${query ? `&${query}` : ''}`, { headers: bearer(token) });
      if (res.status !== 200) throw new Error(`GET audit: ${res.status} ${await res.text()}`);
      return (await res.json()) as never;
    },
    close: () => fw.close(),
  };
}

/** Starts the nodes and waits until each one sees all of them. */
export async function startCluster(
  redis: ThrowawayRedis,
  specs: { id: string; options?: AdminOptions; props?: Record<string, unknown> }[],
): Promise<ClusterNode[]> {
  const prefix = `fwtest-admin-${randomBytes(4).toString('hex')}`;
  const nodes: ClusterNode[] = [];
  for (const spec of specs) nodes.push(await startNode(redis, prefix, spec.id, spec.options, spec.props));
  for (const node of nodes) {
    await waitFor(
      `node ${node.id} sees ${specs.length} nodes`,
      async () => {
        const res = await node.get('/api/admin/nodes', bearer(TOKENS.viewer));
        return res.status === 200 && ((await res.json()) as unknown[]).length === specs.length ? true : undefined;
      },
      15_000,
    );
  }
  return nodes;
}
