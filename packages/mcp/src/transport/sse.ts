import type { ServerResponse } from 'node:http';

/** One open SSE response: JSON-RPC messages as `message` events, keep-alive comments. */
const STREAM_PREFIX = Date.now().toString(36);
let streams = 0;

export class SseStream {
  private seq = 0;
  closed = false;

  /**
   * `prime` (protocol 2025-11-25+): start with an event that has an id, a `retry` hint and no
   * data, as that revision asks, so clients know the stream's position from the first byte.
   */
  constructor(readonly res: ServerResponse, headers: Record<string, string>, prime = false) {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...headers,
    });
    res.flushHeaders();
    if (prime) res.write(`id: ${STREAM_PREFIX}-${++streams}-0\nretry: 1000\ndata: \n\n`);
    res.on('close', () => {
      this.closed = true;
    });
  }

  send(message: unknown): boolean {
    if (this.closed || this.res.writableEnded) return false;
    this.res.write(`event: message\nid: ${++this.seq}\ndata: ${JSON.stringify(message)}\n\n`);
    return true;
  }

  comment(text: string): void {
    if (!this.closed && !this.res.writableEnded) this.res.write(`: ${text}\n\n`);
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.res.writableEnded) this.res.end();
  }
}
