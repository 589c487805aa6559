import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import type { Outgoing } from '../broadcast/outgoing.js';
import type { FwResource } from '../resource/resource.js';
import { jsonDepthExceeds } from '../security/json-depth.js';
import { CloseCode, encodeClose, HEARTBEAT_FRAME, parseClientFrame } from '@fw/protocol';
import type { Connection } from './connection.js';

const OPEN = 1;
const CONNECTION = Symbol('fw.connection');
type Tagged = WebSocket & { [CONNECTION]?: WebSocketConnection };

// Shared listeners (`this` is the WebSocket): no closures per connection.
function onMessage(this: Tagged, data: RawData): void {
  this[CONNECTION]?.received(data as Buffer);
}
function onClose(this: Tagged, code: number): void {
  this[CONNECTION]?.ended(code);
}
function onError(this: Tagged, err: Error & { code?: string }): void {
  // ws has already answered the peer (1009 for a frame over maxPayload, 1002/1007 otherwise).
  this[CONNECTION]?.resource?.terminate(
    err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? 'message too large' : `protocol error: ${err.message}`,
  );
}

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
    /** The runtime's open WebSockets (for draining on close). */
    private readonly sockets: Set<WebSocket>,
  ) {
    (ws as Tagged)[CONNECTION] = this;
    sockets.add(ws);
    ws.on('message', onMessage);
    ws.on('close', onClose);
    ws.on('error', onError);
  }

  /** A client frame: the message itself for raw clients, an fw frame (`m`, `hb` or `tool-response`) otherwise. */
  received(data: Buffer): void {
    const r = this.resource;
    if (r === undefined) return;
    const text = data.toString('utf8');
    if (!this.fw) {
      r.receive(text);
      return;
    }
    // Checked before parsing (fw.limits.json-depth): a deep frame costs one scan, never a stack.
    if (jsonDepthExceeds(text, r.runtime.settings.jsonDepth)) {
      r.close('malformed frame: JSON nests too deep (fw.limits.json-depth)', 1007);
      return;
    }
    const frame = parseClientFrame(text);
    if (frame === undefined) r.close('malformed frame', CloseCode.invalidPayload);
    else if (frame.t === 'm') r.receive(frame.d);
    else if (frame.t === 'hb') r.heard = true;
    else r.receiveToolResponse(frame.d);
  }

  ended(code: number): void {
    this.sockets.delete(this.ws);
    const r = this.resource;
    if (r === undefined) return;
    // 1000/1001: the client ended on purpose (its close(), a page going away); anything else may come back.
    if (code === 1000 || code === 1001) r.terminate('client closed');
    else r.detach(this, 'connection lost');
  }

  bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  /**
   * A batch of frames is corked into one write. A single raw frame (always one shared buffer) is
   * written as is: cork and uncork add a writev's bookkeeping to what is one plain write. An fw
   * frame may be two chunks (a long message's shared tail), so it is corked anyway.
   */
  begin(single = false): void {
    this.corked = !single || this.fw;
    if (this.corked) (this.socket as Socket).cork();
  }

  private corked = false;

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
    if (!this.corked) return;
    this.corked = false;
    (this.socket as Socket).uncork();
  }

  heartbeat(): void {
    if (this.fw) this.ws.send(HEARTBEAT_FRAME);
    else this.ws.ping();
  }

  close(reason: string, code = 4000): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    if (this.fw) this.ws.send(encodeClose(reason));
    this.ws.close(code, truncate(reason));
  }

  goAway(reason: string): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.ws.close(CloseCode.serviceRestart, truncate(reason));
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
