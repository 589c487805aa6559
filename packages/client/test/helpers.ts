/** Shared by the tests that run the client against the real runtime. */
import type { Socket } from 'node:net';
import { Framework } from '@fw/runtime';
import type { ClientState, FwClient } from '../dist/node.js';

export interface Served {
  fw: Framework;
  url: (path: string) => string;
  /** Destroys every TCP socket the server holds: a network drop as the client sees it. */
  killSockets(): number;
  close(): Promise<void>;
}

export async function serve(options: Record<string, unknown> = {}, setup: (fw: Framework) => void = () => {}): Promise<Served> {
  const fw = new Framework({ configFile: false, ...options });
  setup(fw);
  const addr = await fw.listen(0, '127.0.0.1');
  const sockets = new Set<Socket>();
  for (const s of fw.listeningServers) {
    s.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
  }
  return {
    fw,
    url: (path) => `http://127.0.0.1:${addr.port}${path}`,
    killSockets() {
      const n = sockets.size;
      for (const s of sockets) s.destroy();
      return n;
    },
    close: () => fw.close(),
  };
}

export function until(client: FwClient, state: ClientState, ms = 10_000): Promise<void> {
  if (client.state === state) return Promise.resolve();
  return within(ms, `state ${state} (is ${client.state})`, (resolve) => {
    const off = client.onStateChange((s) => {
      if (s === state) {
        off();
        resolve();
      }
    });
  });
}

/** A promise settled by `start`, or rejected after `ms` naming what did not happen. */
export function within<T = void>(ms: number, what: string | (() => string), start: (resolve: (value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`)), ms);
    start((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}
