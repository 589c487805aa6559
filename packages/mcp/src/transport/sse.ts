import type { ServerResponse } from 'node:http';
import { whenClosed } from '@fw/runtime';

/**
 * One open SSE response (an HTTP connection): writes `message` events with the ids it is given,
 * the priming event, `retry` hints and keep-alive comments. Which stream an event belongs to, and
 * its id, is decided by the caller (see ReplayableStream); a connection may carry a stream for a
 * while and another connection may carry it on after a resume.
 */
export class SseStream {
  closed = false;

  constructor(
    readonly res: ServerResponse,
    headers: Record<string, string>,
  ) {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...headers,
    });
    res.flushHeaders();
    whenClosed(res, () => {
      this.closed = true;
    });
  }

  get open(): boolean {
    return !this.closed && !this.res.writableEnded;
  }

  /**
   * The priming event of MCP 2025-11-25 (basic/transports, "Sending Messages to the Server" 6):
   * an id, a `retry` hint and no data, so the client can resume from the first byte on.
   */
  prime(id: string, retryMs: number): void {
    if (this.open) this.res.write(`id: ${id}\nretry: ${retryMs}\ndata: \n\n`);
  }

  /** A JSON-RPC message as a `message` event; `id` undefined for events that cannot be resumed. */
  event(data: string, id?: string): boolean {
    if (!this.open) return false;
    this.res.write(id === undefined ? `event: message\ndata: ${data}\n\n` : `event: message\nid: ${id}\ndata: ${data}\n\n`);
    return true;
  }

  send(message: unknown): boolean {
    return this.event(JSON.stringify(message));
  }

  /** A bare `retry` field: how long the client waits before it reconnects (SSE polling). */
  retry(ms: number): void {
    if (this.open) this.res.write(`retry: ${ms}\n\n`);
  }

  comment(text: string): void {
    if (this.open) this.res.write(`: ${text}\n\n`);
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.res.writableEnded) this.res.end();
  }
}
