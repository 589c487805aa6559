import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Outgoing } from '../broadcast/outgoing.js';
import type { FwResource } from '../resource/resource.js';
import { closeFrame, HEARTBEAT_FRAME, type Connection } from './connection.js';

const OPEN = 1;

/**
 * A WebSocket connection. A batch is written between `cork()` and `uncork()` of the TCP socket,
 * so one tick's frames leave in one write. Message frames are written straight to the socket from
 * bytes encoded once per broadcast (see Outgoing): `ws` handles the handshake, inbound frames,
 * pings and the closing handshake; with permessage-deflate off its sender writes synchronously to
 * the same socket, so frame order is kept and `bufferedAmount` still counts everything.
 */
export class WebSocketConnection implements Connection {
  readonly transport = 'websocket' as const;
  resource: FwResource | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly socket: Duplex,
    private readonly fw: boolean,
  ) {}

  bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  begin(): void {
    (this.socket as Socket).cork();
  }

  message(out: Outgoing, id: number): void {
    // No data frames after a close frame (RFC 6455 §5.5.1).
    if (this.ws.readyState !== OPEN) return;
    if (this.fw) out.writeFwWebSocketFrame(this.socket, id);
    else out.writeRawWebSocketFrame(this.socket);
  }

  control(frame: string): void {
    this.ws.send(frame);
  }

  end(): void {
    (this.socket as Socket).uncork();
  }

  heartbeat(): void {
    if (this.fw) this.ws.send(HEARTBEAT_FRAME);
    else this.ws.ping();
  }

  close(reason: string, code = 4000): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    if (this.fw) this.ws.send(closeFrame(reason));
    this.ws.close(code, truncate(reason));
  }

  destroy(): void {
    this.ws.terminate();
  }
}

/** A WebSocket close reason is at most 123 bytes of UTF-8. */
function truncate(reason: string): string {
  let r = reason;
  while (Buffer.byteLength(r) > 123) r = r.slice(0, -1);
  return r;
}
