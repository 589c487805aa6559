import type { ServerResponse } from 'node:http';
import type { Outgoing } from '../broadcast/outgoing.js';
import type { TransportName } from '../events.js';
import type { FwResource } from '../resource/resource.js';
import { encodeClose, encodeReconnect, HEARTBEAT_FRAME } from '@fw/protocol';
import type { Connection } from './connection.js';

/**
 * The two one-response-per-connection HTTP transports: `sse` (text/event-stream) and `streaming`
 * (one frame per line). A batch becomes a single `res.write`.
 */
export class HttpStreamConnection implements Connection {
  resource: FwResource | undefined;
  private buf = '';

  constructor(
    readonly transport: Extract<TransportName, 'sse' | 'streaming'>,
    private readonly res: ServerResponse,
    private readonly fw: boolean,
  ) {}

  bufferedBytes(): number {
    return this.res.writableLength;
  }

  onDrain(fn: () => void): void {
    this.res.once('drain', fn);
  }

  begin(): void {
    this.buf = '';
  }

  message(out: Outgoing, id: number): void {
    if (this.transport === 'sse') {
      this.buf += this.fw ? `id: ${id}\ndata: ${out.frame(id)}\n\n` : `id: ${id}\n${out.sseData()}\n`;
    } else {
      this.buf += this.fw ? `${out.frame(id)}\n` : `${out.payload}\n`;
    }
  }

  control(frame: string): void {
    this.buf += this.transport === 'sse' ? `data: ${frame}\n\n` : `${frame}\n`;
  }

  end(): void {
    if (this.buf && !this.res.writableEnded) this.res.write(this.buf);
    this.buf = '';
  }

  heartbeat(): void {
    if (this.res.writableEnded) return;
    if (this.fw) this.res.write(this.transport === 'sse' ? `data: ${HEARTBEAT_FRAME}\n\n` : `${HEARTBEAT_FRAME}\n`);
    else if (this.transport === 'sse') this.res.write(':\n\n');
  }

  closeWith(reason: string): void {
    if (this.res.writableEnded) return;
    if (this.fw) {
      this.begin();
      this.control(encodeClose(reason));
      this.res.end(this.buf);
      this.buf = '';
    } else {
      this.res.end();
    }
  }

  goAway(reason: string): void {
    if (this.res.writableEnded) return;
    // An fw client is told why the stream ends (it reconnects either way); a plain EventSource
    // reconnects by itself when the stream ends.
    if (this.fw) this.control(encodeReconnect(reason));
    const socket = this.res.socket;
    this.res.end(this.buf);
    this.buf = '';
    // The server is going: the connection is not for another request (one sent on it as the
    // server closes it could not tell whether it was taken).
    socket?.end();
  }

  destroy(): void {
    this.res.destroy();
  }
}
