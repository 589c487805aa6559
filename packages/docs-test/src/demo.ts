import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** The repository's demo, which the docs mean by `localhost:8080`, on a free port for the test. */
export interface RunningDemo {
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts `examples/demo` (built) the way `npm start` does, on a free port, quiet (no simulated
 * traffic), with its state in memory; resolves once fw logs that it listens and a visitor sits in
 * #lobby (see `visitLobby`).
 */
export function startDemo(root: string, env: NodeJS.ProcessEnv): Promise<RunningDemo> {
  const child: ChildProcess = spawn(process.execPath, [join(root, 'examples/demo/dist/src/main.js'), '--port', '0'], {
    cwd: root,
    env: { ...env, FW_DATA_DIR: '', DEMO_SIMULATION: 'false', FW_ADMIN_MCP_WRITE_TOOLS: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(kill);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the demo did not start within 60 s:\n${output}`));
    }, 60_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output += `${line}\n`;
      const url = /"fw listening on (http:\/\/127\.0\.0\.1:(\d+)\/)/.exec(line);
      if (!url) return;
      clearTimeout(timer);
      const port = Number(url[2]);
      visitLobby(port).then(
        (leave) =>
          resolve({
            port,
            stop: async () => {
              leave();
              await stop();
            },
          }),
        (err: Error) => {
          void stop();
          reject(new Error(`nobody could join #lobby on the demo: ${err.message}\n${output}`));
        },
      );
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the demo exited (${code}) before listening:\n${output}`));
    });
  });
}

/**
 * The docs speak of the demo as `npm start` shows it: someone is in #lobby (there, the simulated
 * participants). Quiet, nobody would be, and `/fw/chat/lobby` would exist only while an example
 * program happened to be connected: the examples that broadcast to it would pass or fail by
 * timing. One SSE visitor stays there until the demo stops; resolves once it is connected.
 */
async function visitLobby(port: number): Promise<() => void> {
  const leave = new AbortController();
  const res = await fetch(`http://127.0.0.1:${port}/fw/chat/lobby?transport=sse&fw=1`, { signal: leave.signal });
  if (!res.ok || !res.body) throw new Error(`GET /fw/chat/lobby answered ${res.status}`);
  const reader = res.body.getReader();
  // The first event is the handshake: by then the broadcaster exists.
  await reader.read();
  // Read on, so the demo's writes never back up; the stream ends when the visitor leaves.
  void (async () => {
    while (!(await reader.read().catch(() => ({ done: true }))).done);
  })();
  return () => leave.abort();
}
