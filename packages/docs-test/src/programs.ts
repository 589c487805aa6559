import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Unit } from './compile.js';
import { failureAt, type Failure } from './failure.js';

/** The module each program runs with (port mapping and listening reports: hooks/ports.mjs). */
export const PORT_HOOKS = fileURLToPath(new URL('../hooks/ports.mjs', import.meta.url));

export interface RunSettings {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Ports of services the examples' "8080" means (the demo), mapped in each program's process. */
  ports: ReadonlyArray<readonly [number, number]>;
  /** Programs run at the same time. */
  concurrency: number;
}

/** How long a program gets: to exit or listen; to settle once it listens; a client to show it keeps running. */
const START_LIMIT_MS = 30_000;
const SETTLE_MS = 1_000;
const ALIVE_MS = 5_000;
/** How long a program whose port stopped answering gets to exit 0 (it was closing, not broken). */
const CLOSING_MS = 10_000;

/**
 * Runs each compiled program briefly against loopback. A program passes when it exits 0, or when
 * it is still running after it started listening (and every port it listens on answers HTTP), or,
 * for a client that never listens, when it is still running after a few seconds. It fails when
 * it exits with an error, or listens on a port that does not answer. Stopped with SIGTERM
 * (SIGKILL 5 s later).
 */
export async function runPrograms(programs: ReadonlyArray<{ unit: Unit; js: string }>, settings: RunSettings): Promise<Failure[]> {
  const failures: Failure[] = [];
  const queue = [...programs];
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const failure = await runOne(next.unit, next.js, settings);
      if (failure) failures.push(failure);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, settings.concurrency) }, worker));
  return failures;
}

function runOne(unit: Unit, js: string, settings: RunSettings): Promise<Failure | undefined> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', PORT_HOOKS, js], {
      cwd: settings.cwd,
      env: { ...settings.env, DOCS_TEST_PORTS: JSON.stringify(settings.ports), DOCS_TEST_FD: '3' },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (d: Buffer): void => {
      output = (output + d.toString()).slice(-64_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const listening: number[] = [];
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (failure: Failure | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) {
        const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => clearTimeout(kill));
        child.kill('SIGTERM');
        child.once('exit', () => resolve(failure));
      } else {
        resolve(failure);
      }
    };
    const tail = (): string => output.trimEnd().split('\n').slice(-15).join('\n');
    const probe = async (): Promise<void> => {
      for (const port of listening) {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(5_000) });
          await res.body?.cancel();
        } catch (err) {
          // A program that closes its servers and ends (exit 0) meanwhile has passed: its exit decides.
          // Ending can take a keep-alive timeout (5 s) after its last server closed.
          const failure = failureAt(unit.block, 'run', `listened on a port that does not answer HTTP (${(err as Error).message})`, tail());
          setTimeout(() => finish(failure), CLOSING_MS);
          return;
        }
      }
      finish(undefined);
    };
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => {
      for (const m of d.toString().matchAll(/listening (\d+) (\d+)/g)) listening.push(Number(m[2]));
      clearTimeout(timer);
      timer = setTimeout(() => void probe(), SETTLE_MS);
    });
    child.once('exit', (code, signal) => {
      if (code === 0) return finish(undefined);
      finish(failureAt(unit.block, 'run', `the program ended with ${signal ?? `exit code ${code}`}`, tail()));
    });
    child.once('error', (err) => finish(failureAt(unit.block, 'run', `could not start node: ${err.message}`)));
    // A server (the example calls listen) must listen; a client that never does passes when it is
    // still alive after ALIVE_MS: it did not crash on start.
    const server = /\.listen\(/.test(unit.block.code);
    if (!server) {
      timer = setTimeout(() => {
        if (listening.length === 0) finish(undefined);
      }, ALIVE_MS);
    }
    setTimeout(
      () => finish(failureAt(unit.block, 'run', `neither exited nor listened within ${START_LIMIT_MS / 1000} s`, tail())),
      START_LIMIT_MS,
    ).unref();
  });
}

/** A program started for a shell example below it: the port it got for each it asked for. */
export interface StartedProgram {
  ports: Map<number, number>;
  stop(): Promise<void>;
}

/**
 * Starts a program and resolves once it listens on `asked` (the port the shell example calls),
 * for a shell example of the same section to run against it; rejects with its output when it
 * ends or does not listen there within 30 s.
 */
export function startProgram(js: string, asked: number, settings: RunSettings): Promise<StartedProgram> {
  const child = spawn(process.execPath, ['--import', PORT_HOOKS, js], {
    cwd: settings.cwd,
    env: { ...settings.env, DOCS_TEST_PORTS: '[]', DOCS_TEST_FD: '3' },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (d: Buffer): void => {
    output = (output + d.toString()).slice(-16_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const ports = new Map<number, number>();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(kill);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the program above did not listen on ${asked} within 30 s\n${output}`));
    }, 30_000);
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => {
      for (const m of d.toString().matchAll(/listening (\d+) (\d+)/g)) ports.set(Number(m[1]), Number(m[2]));
      if (ports.has(asked)) {
        clearTimeout(timer);
        resolve({ ports, stop });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the program above ended (${signal ?? `exit code ${code}`}) before listening on ${asked}\n${output}`));
    });
  });
}
