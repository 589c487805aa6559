/**
 * The part of Bun's API fw uses, typed here rather than through `@types/bun`: the runtime is
 * compiled and type-checked on Node, where `Bun` does not exist, and a dependency for a handful
 * of signatures would be one more thing every Node user installs.
 */

/** `ServerWebSocket` (Bun's server-side socket of `Bun.serve`'s `websocket` handlers). */
export interface BunServerWebSocket<T> {
  /** Set by `upgrade`; fw replaces it with the connection once the socket opens. */
  data: T;
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  readonly remoteAddress: string;
  /** -1: queued behind backpressure, 0: dropped (closed), else the bytes sent. */
  sendText(data: string, compress?: boolean): number;
  ping(data?: string | ArrayBufferView): number;
  close(code?: number, reason?: string): void;
  terminate(): void;
  getBufferedAmount(): number;
  /** Everything sent inside `fn` leaves in one write. */
  cork<R>(fn: (ws: BunServerWebSocket<T>) => R): R;
  /** Adds the socket to a topic of `server.publish`. */
  subscribe(topic: string): void;
  unsubscribe(topic: string): void;
}

export interface BunSocketAddress {
  address: string;
  family: 'IPv4' | 'IPv6';
  port: number;
}

export interface BunServer {
  readonly port: number;
  readonly hostname: string;
  readonly url: URL;
  upgrade<T>(request: Request, options: { data: T; headers?: HeadersInit }): boolean;
  requestIP(request: Request): BunSocketAddress | null;
  /** Sets the idle timeout (seconds) of one request's connection; 0 turns it off. */
  timeout(request: Request, seconds: number): void;
  stop(closeActiveConnections?: boolean): Promise<void>;
  /** Sends `data` to every socket subscribed to `topic` (framed once, in C++); the bytes sent, or 0. */
  publish(topic: string, data: string | ArrayBufferView, compress?: boolean): number;
  readonly pendingRequests: number;
  readonly pendingWebSockets: number;
}

export interface BunWebSocketHandlers<T> {
  open(ws: BunServerWebSocket<T>): void;
  message(ws: BunServerWebSocket<T>, message: string | Uint8Array): void;
  close(ws: BunServerWebSocket<T>, code: number, reason: string): void;
  drain(ws: BunServerWebSocket<T>): void;
  /** A ping from the client (Bun has answered it). */
  ping(ws: BunServerWebSocket<T>, data: Uint8Array): void;
  /** A pong from the client, answering a ping the server sent. */
  pong(ws: BunServerWebSocket<T>, data: Uint8Array): void;
  maxPayloadLength: number;
  backpressureLimit: number;
  closeOnBackpressureLimit: boolean;
  idleTimeout: number;
  sendPings: boolean;
  publishToSelf: boolean;
  perMessageDeflate: boolean;
}

export interface BunServeOptions<T> {
  port: number;
  hostname: string;
  /** Seconds a connection may stay idle (0: never cut; fw's heartbeats and long-poll timeout bound them). */
  idleTimeout: number;
  /** Bytes of a request body (fw's routes bound their bodies themselves, with named keys). */
  maxRequestBodySize: number;
  development: boolean;
  fetch(request: Request, server: BunServer): Response | undefined | Promise<Response | undefined>;
  error(err: Error): Response;
  websocket: BunWebSocketHandlers<T>;
}

export interface BunGlobal {
  readonly version: string;
  serve<T>(options: BunServeOptions<T>): BunServer;
}

/** Bun's global when running on Bun, else undefined. */
export function bunRuntime(): BunGlobal | undefined {
  return (globalThis as { Bun?: BunGlobal }).Bun;
}
