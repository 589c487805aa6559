import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { isLoopback } from '../security/loopback.js';

/**
 * The socket a route reads from a request on Bun (`req.socket.remoteAddress`, `localAddress`,
 * `encrypted`: what the security policy, `clientAddress` and the tenancy shares read). Ending it
 * ends the response, as ending a node:http socket would.
 */
export class BunRequestSocket {
  readonly encrypted = false;
  onEnd: (() => void) | undefined;

  constructor(
    readonly remoteAddress: string | undefined,
    readonly remotePort: number | undefined,
    /** The address listened on (a wildcard, or the very address). */
    private readonly listened: string,
    readonly localPort: number,
  ) {}

  get remoteFamily(): string {
    return this.remoteAddress?.includes(':') ? 'IPv6' : 'IPv4';
  }

  /** The address the client reached: a loopback peer reached a loopback address; any other, the address listened on. */
  get localAddress(): string {
    const peer = this.remoteAddress;
    return isLoopback(peer) ? (peer!.includes(':') ? '::1' : '127.0.0.1') : this.listened;
  }

  end(): void {
    this.onEnd?.();
  }

  destroy(): void {
    this.onEnd?.();
  }

  setTimeout(): this {
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }
}

/**
 * A fetch `Request` seen as a `node:http` `IncomingMessage`: method, URL (path and query),
 * lower-cased headers, the socket's addresses, and the body as a readable stream pulled from the
 * request's body on demand (so `fw.websocket.max-payload`-style limits stop reading, not buffer).
 * fw's routes, the admin plane, MCP and the agents take this object unchanged: one code path for
 * every route on Node and on Bun.
 */
export class BunIncomingMessage extends Readable {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly httpVersion = '1.1';
  readonly httpVersionMajor = 1;
  readonly httpVersionMinor = 1;
  complete = false;
  aborted = false;
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

  constructor(
    readonly request: Request,
    readonly socket: BunRequestSocket,
  ) {
    super();
    this.method = request.method;
    this.url = requestTarget(request);
    this.headers = nodeHeaders(request);
    if (request.body === null) {
      this.complete = true;
      this.push(null);
    }
  }

  /** The socket under another name, as node:http has it. */
  get connection(): BunRequestSocket {
    return this.socket;
  }

  get rawHeaders(): string[] {
    return rawHeaders(this.request);
  }

  override _read(): void {
    const body = this.request.body;
    if (body === null) return;
    this.reader ??= body.getReader();
    this.reader.read().then(
      ({ done, value }) => {
        if (done) {
          this.complete = true;
          this.push(null);
        } else {
          this.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
        }
      },
      (err: unknown) => {
        // The client went away mid-body: as on node:http, 'aborted' and 'close'; an 'error' only for a reader listening for one.
        this.aborted = true;
        this.emit('aborted');
        this.destroy(this.listenerCount('error') > 0 ? (err instanceof Error ? err : new Error(String(err))) : undefined);
      },
    );
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    if (this.reader !== undefined && !this.complete) this.reader.cancel().catch(() => {});
    callback(err);
  }

  /** What fw's routes and helpers are typed against. */
  asNode(): IncomingMessage {
    return this as unknown as IncomingMessage;
  }
}

/**
 * The request target as node:http has it: path and query. Bun's `request.url` is absolute and
 * already normalized, so the target is what follows its authority, up to a fragment (which no
 * request target has): one slice, where a `URL` would parse the whole of it again.
 */
function requestTarget(request: Request): string {
  const url = request.url;
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  if (slash < 0) return '/';
  const hash = url.indexOf('#', slash);
  return hash < 0 ? url.slice(slash) : url.slice(slash, hash);
}

/** A fetch request's headers as node:http has them: lower-cased names, the first value of a repeated one (`set-cookie`: every value). */
function nodeHeaders(request: Request): IncomingHttpHeaders {
  const headers: Record<string, string | string[]> = {};
  request.headers.forEach((value, name) => {
    const prior = headers[name];
    if (prior === undefined) headers[name] = value;
    else if (name === 'set-cookie') headers[name] = Array.isArray(prior) ? [...prior, value] : [prior, value];
  });
  return headers as IncomingHttpHeaders;
}

/** node:http's `rawHeaders`: names and values in turn, as received. Made only when read: fw never reads it. */
function rawHeaders(request: Request): string[] {
  const raw: string[] = [];
  request.headers.forEach((value, name) => raw.push(name, value));
  return raw;
}

/**
 * A WebSocket upgrade as node:http's `upgrade` event has it: method, target, headers and socket,
 * no body. Not a stream: it is read by the screening, the authenticators and the interceptors,
 * then let go; a refused upgrade's answer uses a `BunIncomingMessage`.
 */
class BunUpgradeRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;

  constructor(
    private readonly request: Request,
    readonly socket: BunRequestSocket,
  ) {
    this.method = request.method;
    this.url = requestTarget(request);
    this.headers = nodeHeaders(request);
  }

  get rawHeaders(): string[] {
    return rawHeaders(this.request);
  }

  get connection(): BunRequestSocket {
    return this.socket;
  }

  get httpVersion(): string {
    return '1.1';
  }

  get complete(): boolean {
    return true;
  }

  get aborted(): boolean {
    return false;
  }
}

export function upgradeRequest(request: Request, socket: BunRequestSocket): IncomingMessage {
  return new BunUpgradeRequest(request, socket) as unknown as IncomingMessage;
}
