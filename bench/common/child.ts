import { fork, type ChildProcess } from 'node:child_process';

/** A message between a bench and its child: a `type` and anything JSON can carry. */
export interface BenchMessage {
  type: string;
  [key: string]: unknown;
}

/**
 * A child process running one side of a benchmark (a server under test, a load generator),
 * driven over the IPC channel with request/reply messages. Each child is its own process so
 * that its CPU and memory are its own; `stop()` kills it if it has not exited by itself.
 */
export class BenchChild {
  private readonly proc: ChildProcess;
  private readonly waiting: { type: string; resolve: (m: BenchMessage) => void; reject: (e: Error) => void }[] = [];
  private exited: Error | undefined;

  constructor(
    readonly name: string,
    script: string | URL,
    args: string[] = [],
    execArgv: string[] = ['--expose-gc'],
    /** Another runtime for the child (a Bun binary: Bun speaks Node's IPC); default this Node. */
    execPath?: string,
  ) {
    this.proc = fork(script instanceof URL ? script.pathname : script, args, {
      execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      ...(execPath ? { execPath } : {}),
    });
    this.proc.on('message', (m: BenchMessage) => {
      const i = this.waiting.findIndex((w) => w.type === m.type);
      if (i >= 0) this.waiting.splice(i, 1)[0]!.resolve(m);
    });
    this.proc.on('exit', (code, signal) => {
      this.exited = new Error(`${name} exited (${signal ?? code})`);
      for (const w of this.waiting.splice(0)) w.reject(this.exited);
    });
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  send(message: BenchMessage): void {
    this.proc.send(message);
  }

  /** The next message of `type`, or a rejection after `timeoutMs` or when the child exits. */
  next(type: string, timeoutMs = 60_000): Promise<BenchMessage> {
    if (this.exited) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => {
      const w = {
        type,
        resolve: (m: BenchMessage) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (e: Error) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(w), 1);
        reject(new Error(`${this.name}: no '${type}' within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.push(w);
    });
  }

  /** Sends `message` and waits for the reply of type `replyType` (default: the same type). */
  request(message: BenchMessage, replyType = message.type, timeoutMs?: number): Promise<BenchMessage> {
    const reply = this.next(replyType, timeoutMs);
    this.send(message);
    return reply;
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((r) => this.proc.once('exit', () => r()));
    this.proc.kill('SIGTERM');
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 3000);
    await gone;
    clearTimeout(t);
  }
}

/** In a child: answers requests from the parent; a handler's return value is sent back. */
export function serveParent(
  handlers: Record<string, (m: BenchMessage) => BenchMessage | Promise<BenchMessage> | void | Promise<void>>,
): void {
  process.on('message', (m: BenchMessage) => {
    const h = handlers[m.type];
    if (!h) return;
    Promise.resolve(h(m)).then(
      (reply) => reply && process.send!(reply),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
  // The parent going away (a crash, Ctrl-C) ends the child too; SIGTERM (`stop()`) exits normally,
  // so that `--cpu-prof` and the like get to write their output.
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}
