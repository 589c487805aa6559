/**
 * A PostgreSQL server of a chaos test's own (never the shared one): initdb into a temp directory,
 * started and stopped with pg_ctl on the test's port, so a test can take it away under load and
 * bring it back. Undefined when no PostgreSQL binaries are installed (the test skips). As root
 * (initdb refuses it) the server runs as the `postgres` user.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PostgresServer {
  readonly url: string;
  readonly port: number;
  /** Fast shutdown: connected clients get 57P01, new connections are refused. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server (immediately) and removes its data directory. */
  destroy(): Promise<void>;
}

function binaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  for (const version of readdirSync(root).sort((a, b) => Number(b) - Number(a))) {
    const bin = join(root, version, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  return undefined;
}

/** The uid/gid of `postgres` when running as root (initdb refuses root), else undefined. */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (userInfo().uid !== 0) return undefined;
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: g } = await run('id', ['-g', 'postgres']);
  return { uid: Number(stdout.trim()), gid: Number(g.trim()) };
}

export async function startPostgres(port: number): Promise<PostgresServer | undefined> {
  const bin = binaries();
  if (!bin) return undefined;
  let user: { uid: number; gid: number } | undefined;
  try {
    user = await serverUser();
  } catch {
    return undefined; // root without a postgres user: nothing to run the server as
  }
  const dir = mkdtempSync(join(tmpdir(), 'fw-chaos-pg-'));
  const data = join(dir, 'data');
  if (user) chownSync(dir, user.uid, user.gid);
  const pg = (tool: string, args: string[]) =>
    run(join(bin, tool), args, { ...(user ? { uid: user.uid, gid: user.gid } : {}), cwd: dir, timeout: 60_000 });
  await pg('initdb', ['-D', data, '-U', 'fw', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=50`;
  const start = async () => {
    await pg('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  };
  await start();
  return {
    url: `postgres://fw@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop: async () => {
      await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
    },
    destroy: async () => {
      await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
