/**
 * Starts three fw nodes and nginx in front of them, on loopback, with a generated nginx config
 * in a temporary directory (nginx runs as the current user, no root, no system config).
 *
 * The recipe (docs/cluster.md, "Behind a load balancer"): stickiness by client address,
 * `hash $remote_addr consistent`. A WebSocket needs none (one connection), but an SSE or
 * long-polling client POSTs its messages and re-polls by tracking id, and an MCP session is
 * addressed by `Mcp-Session-Id`: each must reach the node that holds it. Broadcasts cross the
 * nodes through Redis, so a client on any node gets every room's messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const NGINX = process.env.NGINX ?? '/usr/sbin/nginx';
export const nginxInstalled = (): boolean => existsSync(NGINX);

export interface RunningCluster {
  url: string;
  nodes: { name: string; port: number }[];
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as { port: number };
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

export function nginxConfig(dir: string, port: number, nodePorts: number[]): string {
  return `worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  map $http_upgrade $connection_upgrade { default upgrade; '' ''; }
  upstream fw {
    # Sticky by client address: SSE/long-polling POSTs and MCP sessions reach the node that holds them.
    hash $remote_addr consistent;
${nodePorts.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://fw;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      # SSE and long-polling: pass bytes as they come, and hold a poll longer than fw does.
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 3600s;
      # Which node answered (for the example's test and for debugging stickiness).
      add_header X-Fw-Upstream $upstream_addr always;
    }
  }
}
`;
}

export async function startCluster(options: { redisUrl?: string; prefix?: string } = {}): Promise<RunningCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-cluster-'));
  const here = dirname(fileURLToPath(import.meta.url));
  const prefix = options.prefix ?? `fw-example-cluster-${process.pid}`;
  const children: ChildProcess[] = [];
  const nodes: { name: string; port: number }[] = [];
  const stop = async (): Promise<void> => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? once(c, 'exit') : undefined)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const name of ['node-a', 'node-b', 'node-c']) {
      const port = await freePort();
      const child = spawn(
        process.execPath,
        [join(here, 'node.js'), String(port), name, options.redisUrl ?? 'redis://127.0.0.1:6379', prefix],
        { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
      );
      children.push(child);
      const [msg] = (await Promise.race([once(child, 'message'), once(child, 'exit').then(() => [undefined])])) as unknown[];
      if (msg !== 'ready') throw new Error(`${name} did not start`);
      nodes.push({ name, port });
    }
    const port = await freePort();
    writeFileSync(
      join(dir, 'nginx.conf'),
      nginxConfig(
        dir,
        port,
        nodes.map((n) => n.port),
      ),
    );
    const nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.push(nginx);
    // Ready once it answers the readiness probe through the balancer.
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if (nginx.exitCode !== null) throw new Error('nginx exited; see its error log above');
      try {
        if ((await fetch(`${url}/fw/ready`)).status === 200) break;
      } catch {
        // not listening yet
      }
      if (i > 300) throw new Error('nginx did not become ready');
      await new Promise((r) => setTimeout(r, 50));
    }
    return { url, nodes, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
