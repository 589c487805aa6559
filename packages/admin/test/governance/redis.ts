/**
 * A redis-server of the governance tests only (no persistence), on a free port of this suite's own
 * range (22000-22999), killed afterwards: a cluster test never touches the shared Redis.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect as netConnect, createServer } from 'node:net';
import { waitFor } from '@fw/testing';

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

export class GovernanceRedis {
  private constructor(
    readonly port: number,
    private readonly proc: ChildProcess,
  ) {}

  static async start(): Promise<GovernanceRedis> {
    for (let tries = 0; tries < 30; tries++) {
      const port = 22_000 + Math.floor(Math.random() * 1000);
      if (!(await portFree(port))) continue;
      const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      const r = new GovernanceRedis(port, proc);
      try {
        await waitFor('the throwaway redis-server answers', async () => ((await pings(port)) ? true : undefined), 5000);
        return r;
      } catch {
        await r.stop();
      }
    }
    throw new Error('could not start a throwaway redis-server in 22000-22999');
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
