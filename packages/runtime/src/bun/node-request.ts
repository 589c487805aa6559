import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

/**
 * The socket a route reads from a request on Bun (`req.socket.remoteAddress`, `localAddress`,
 * `encrypted`: what the security policy, `clientAddress` and the tenancy shares read). Ending it
 * ends the response, as ending a node:http socket would.
 */
export class BunRequestSocket {
  readonly encrypted = false;
  readonly remoteFamily: string | undefined;
  onEnd: (() => void) | undefined;

  constructor(
    readonly remoteAddress: string | undefined,
    readonly remotePort: number | undefined,
    readonly localAddress: string,
    readonly localPort: number,
  ) {
    this.remoteFamily = remoteAddress?.includes(':') ? 'IPv6' : 'IPv4';
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
  readonly rawHeaders: string[];
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
    const { headers, rawHeaders } = nodeHeaders(request);
    this.headers = headers;
    this.rawHeaders = rawHeaders;
    if (request.body === null) {
      this.complete = true;
      this.push(null);
    }
  }

  /** The socket under another name, as node:http has it. */
  get connection(): BunRequestSocket {
    return this.socket;
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

/** The request target as node:http has it: path and query. */
function requestTarget(request: Request): string {
  const url = new URL(request.url);
  return url.pathname + url.search;
}

/** A fetch request's headers as node:http has them: lower-cased names, and the raw list. */
function nodeHeaders(request: Request): { headers: IncomingHttpHeaders; rawHeaders: string[] } {
  const headers: Record<string, string | string[]> = {};
  const rawHeaders: string[] = [];
  request.headers.forEach((value, name) => {
    rawHeaders.push(name, value);
    const prior = headers[name];
    if (prior === undefined) headers[name] = value;
    else if (name === 'set-cookie') headers[name] = Array.isArray(prior) ? [...prior, value] : [prior, value];
  });
  return { headers: headers as IncomingHttpHeaders, rawHeaders };
}

/**
 * A WebSocket upgrade as node:http's `upgrade` event has it: method, target, headers and socket,
 * no body. A plain object rather than a stream: it is read by the screening, the authenticators
 * and the interceptors, then let go; a refused upgrade's answer uses a `BunIncomingMessage`.
 */
export function upgradeRequest(request: Request, socket: BunRequestSocket): IncomingMessage {
  const { headers, rawHeaders } = nodeHeaders(request);
  const view = {
    method: request.method,
    url: requestTarget(request),
    headers,
    rawHeaders,
    httpVersion: '1.1',
    complete: true,
    aborted: false,
    socket,
    connection: socket,
  };
  return view as unknown as IncomingMessage;
}
