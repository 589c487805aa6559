import type { OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import type { BunIncomingMessage, BunRequestSocket } from './node-request.js';

/** Bytes the response body's stream holds before a write waits (and `writableLength` grows): a slow reader shows. */
const STREAM_HIGH_WATER_MARK = 64 * 1024;

/** An SSE comment line: what makes Bun send an event stream's headers before its first event. */
const OPENING_COMMENT = new TextEncoder().encode(':\n\n');

type HeaderValue = number | string | readonly string[];

/**
 * A `node:http` `ServerResponse` whose answer is a fetch `Response` (`response`), for Bun's fetch
 * handler. The status and headers are committed at the first write, `flushHeaders()` or `end()`,
 * as node:http commits them; a body given whole to `end()` is the Response's body (with its
 * length), anything written before is a `ReadableStream` that Bun pulls as the client reads.
 * A write waits while the stream holds more than 64 KiB, so `writableLength` counts what the
 * client has not taken: the slow-consumer policy of SSE and streaming works as on Node. The
 * client going away (the request's signal, or the stream cancelled) destroys it: `close` fires.
 */
export class BunServerResponse extends Writable {
  statusCode = 200;
  statusMessage = '';
  shouldKeepAlive = true;
  sendDate = true;
  readonly response: Promise<Response>;
  private deliver!: (response: Response) => void;
  private readonly fields = new Map<string, { name: string; value: HeaderValue }>();
  private committed = false;
  private wrote = false;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** A write's callback, held until the stream wants more. */
  private waiting: (() => void) | undefined;

  constructor(
    readonly req: BunIncomingMessage,
    readonly socket: BunRequestSocket,
    /** Called when the response becomes a stream (its connection's idle timeout is then fw's business). */
    private readonly streaming?: () => void,
  ) {
    super({ highWaterMark: 16 * 1024 });
    this.response = new Promise((resolve) => {
      this.deliver = resolve;
    });
    // Ending the socket after `end()` lets the answer finish (Bun then closes the stream); before it, it cuts the response.
    socket.onEnd = () => {
      if (!this.writableEnded) this.destroy();
    };
  }

  /** Ends the response when the client goes away (the request's signal); not for a WebSocket upgrade's refusal. */
  watchClient(): this {
    this.req.request.signal.addEventListener('abort', () => this.clientGone(), { once: true });
    return this;
  }

  get connection(): BunRequestSocket {
    return this.socket;
  }

  get headersSent(): boolean {
    return this.committed;
  }

  setHeader(name: string, value: HeaderValue): this {
    this.fields.set(name.toLowerCase(), { name, value });
    return this;
  }

  appendHeader(name: string, value: string | readonly string[]): this {
    const prior = this.fields.get(name.toLowerCase())?.value;
    const more = typeof value === 'string' ? [value] : value;
    const values = prior === undefined ? more : [...(Array.isArray(prior) ? prior : [String(prior)]), ...more];
    return this.setHeader(name, values);
  }

  getHeader(name: string): HeaderValue | undefined {
    return this.fields.get(name.toLowerCase())?.value;
  }

  getHeaders(): OutgoingHttpHeaders {
    const out: OutgoingHttpHeaders = {};
    for (const [key, { value }] of this.fields) out[key] = value as OutgoingHttpHeader;
    return out;
  }

  getHeaderNames(): string[] {
    return [...this.fields.keys()];
  }

  hasHeader(name: string): boolean {
    return this.fields.has(name.toLowerCase());
  }

  removeHeader(name: string): void {
    this.fields.delete(name.toLowerCase());
  }

  writeHead(status: number, message?: string | OutgoingHttpHeaders | OutgoingHttpHeader[], headers?: OutgoingHttpHeaders): this {
    this.statusCode = status;
    let given = headers;
    if (typeof message === 'string') this.statusMessage = message;
    else given = message as OutgoingHttpHeaders | undefined;
    if (Array.isArray(given)) {
      for (let i = 0; i + 1 < given.length; i += 2) this.setHeader(String(given[i]), given[i + 1] as HeaderValue);
    } else if (given) {
      for (const [name, value] of Object.entries(given)) if (value !== undefined) this.setHeader(name, value as HeaderValue);
    }
    return this;
  }

  /**
   * Commits the status and headers and starts the body stream. Bun sends a streamed response's
   * headers with its first bytes, not before: an event stream gets an SSE comment (which
   * EventSource ignores) so that its client sees the response open at once, as on node:http.
   * Other streams open with their first write (fw-protocol streams with their handshake).
   */
  flushHeaders(): void {
    if (this.committed) return;
    this.startStream();
    if (!String(this.getHeader('content-type') ?? '').startsWith('text/event-stream')) return;
    // Only when nothing else is written in this turn (an fw stream's handshake is).
    setImmediate(() => {
      if (!this.wrote && !this.writableEnded && !this.destroyed) this.controller?.enqueue(OPENING_COMMENT);
    });
  }

  /** What fw's routes and helpers are typed against. */
  asNode(): ServerResponse {
    return this as unknown as ServerResponse;
  }

  override end(...args: unknown[]): this {
    const [chunk] = args;
    // The whole body in one call: a plain Response with its length, no stream.
    if (!this.committed && !this.writableEnded && typeof chunk !== 'function') {
      const body = chunk === undefined || chunk === null ? null : typeof chunk === 'string' ? chunk : (chunk as Uint8Array);
      this.commit(body);
      const done = args.find((a) => typeof a === 'function') as (() => void) | undefined;
      return super.end(done);
    }
    return super.end(...(args as [() => void]));
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (!this.committed) this.startStream();
    this.wrote = true;
    const controller = this.controller;
    if (controller === undefined) return callback();
    try {
      controller.enqueue(chunk);
    } catch (err) {
      return callback(err as Error);
    }
    if ((controller.desiredSize ?? 1) > 0) callback();
    else this.waiting = () => callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.committed) this.commit(null);
    try {
      this.controller?.close();
    } catch {
      // Already cancelled by the client.
    }
    callback();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.committed) {
      // Nothing was answered: the connection is cut without a response.
      this.committed = true;
      this.deliver(new Response(new ReadableStream({ start: (c) => c.error(new Error('response destroyed')) })));
    } else if (this.controller !== undefined && !this.writableFinished) {
      try {
        this.controller.error(err ?? new Error('response destroyed'));
      } catch {
        // The stream is already closed or cancelled.
      }
    }
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
    callback(err);
  }

  private clientGone(): void {
    if (this.writableFinished || this.destroyed) return;
    if (!this.req.complete) {
      this.req.aborted = true;
      this.req.emit('aborted');
    }
    this.req.destroy();
    this.destroy();
  }

  private startStream(): void {
    this.streaming?.();
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => {
          const waiting = this.waiting;
          this.waiting = undefined;
          waiting?.();
        },
        cancel: () => this.clientGone(),
      },
      { highWaterMark: STREAM_HIGH_WATER_MARK, size: (chunk) => chunk?.byteLength ?? 0 },
    );
    this.commit(body);
  }

  private commit(body: ReadableStream<Uint8Array> | string | Uint8Array | null): void {
    this.committed = true;
    const headers = new Headers();
    for (const { name, value } of this.fields.values()) {
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else headers.set(name, String(value));
    }
    if (!this.shouldKeepAlive) headers.set('connection', 'close');
    // A stream's length is what it turns out to be.
    if (body instanceof ReadableStream) headers.delete('content-length');
    const bodiless = this.statusCode === 204 || this.statusCode === 304 || this.req.method === 'HEAD';
    this.deliver(
      new Response(bodiless ? null : (body as BodyInit | null), {
        status: this.statusCode,
        statusText: this.statusMessage || undefined,
        headers,
      }),
    );
  }
}
