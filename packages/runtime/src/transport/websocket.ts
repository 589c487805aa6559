import type { Socket } from 'node:net';
import { WebSocket } from 'ws';
import type { FrameRing } from '../broadcast/frame-ring.js';
import type { Outgoing, Sequenced } from '../broadcast/outgoing.js';
import type { FwResource } from '../resource/resource.js';
import { CloseCode, encodeClose, HEARTBEAT_FRAME } from '@fw/protocol';
import type { Connection } from './connection.js';
import { closeReason, receiveWebSocketText } from './websocket-inbound.js';

const OPEN = 1;
const CLOSED = 3;
// `flags` bits: one small integer instead of two boolean fields.
const FW = 1;
const CORKED = 2;
/** The client numbers frames without an id itself (`ids=implicit`). */
const IMPLICIT = 4;

/** What `trimChunks` reads of `ws`'s frame parser (private fields of `ws` 8; a test checks they are there). */
interface ReceiverChunks {
  _bufferedBytes: number;
  _buffers: Buffer[];
}

/**
 * A WebSocket connection: `ws`'s own WebSocket object, extended (the server's `WebSocket` option
 * makes `ws` construct this class), so that an idle connection is one object, not a WebSocket
 * plus a connection object pointing at it (~80 bytes each). Its methods are named apart from
 * `ws`'s (`closeWith`, `bufferedBytes`), which `ws` itself calls.
 *
 * A batch is written between `cork()` and `uncork()` of the TCP socket, so one tick's frames leave
 * in one write. Message frames are written straight to the socket from bytes encoded once per
 * broadcast (see Outgoing): `ws` handles the handshake, inbound frames, sending pings and pongs and
 * the closing handshake (fw decides when to answer a ping, see `answer`); with permessage-deflate off its sender writes synchronously to the same socket, so
 * frame order is kept and `bufferedAmount` still counts everything.
 */
export class WebSocketConnection extends WebSocket implements Connection, Sequenced {
  private carried: FwResource | undefined;
  private flags = 0;
  /** The id of the last numbered frame written on this connection (0: none yet; the first always carries its id). */
  private wire = 0;
  /** The last sequenced broadcast written (implicit ids: the next one of its broadcaster goes as a sequel frame). */
  seqB: string | undefined = undefined;
  seqBid = 0;
  /**
   * The runtime's open WebSockets that carry no resource (between the upgrade and the attach, or
   * closing), for draining on close: the others are reached through the registry. Only they get
   * an entry, not every idle connection (~28 bytes each).
   */
  private loose: Set<WebSocketConnection> | undefined;

  /**
   * Called once `ws` has completed the upgrade: `fw` says whether the client speaks the fw
   * protocol, `implicitIds` whether it numbers frames without an id itself.
   */
  accept(fw: boolean, implicitIds: boolean, loose: Set<WebSocketConnection>): this {
    if (fw) this.flags |= implicitIds ? FW | IMPLICIT : FW;
    this.loose = loose;
    loose.add(this);
    return this;
  }

  /**
   * `ws` tells its WebSocket what happened by emitting events on it; fw handles them here rather
   * than through listeners: a listener for `pong` made every pinged connection's listener table
   * 96 bytes larger (bench/scale/heap), and an error can never go unheard (EventEmitter throws
   * those), even before `accept`, when the events find no resource and do nothing. A listener
   * someone adds still hears them.
   */
  override emit(event: string | symbol, a?: unknown, b?: unknown): boolean {
    switch (event) {
      case 'message':
        this.received(a as Buffer);
        break;
      case 'close':
        this.ended(a as number);
        break;
      case 'error':
        this.failed(a as Error & { code?: string });
        // Without a listener, EventEmitter would throw it: fw has handled it.
        if (this.listenerCount('error') === 0) return true;
        break;
      case 'ping':
        this.answer(a as Buffer);
        break;
      case 'pong':
        this.trimChunks();
        break;
    }
    return this.listenerCount(event) > 0 ? super.emit(event, a, b) : true;
  }

  /** The resource on this connection. One that carries none and is still open is `loose`. */
  get resource(): FwResource | undefined {
    return this.carried;
  }
  set resource(r: FwResource | undefined) {
    this.carried = r;
    if (r !== undefined) this.loose?.delete(this);
    else if (this.readyState !== CLOSED) this.loose?.add(this);
  }

  /** A getter, not a field: one slot less in every connection. */
  get transport(): 'websocket' {
    return 'websocket';
  }

  private get fw(): boolean {
    return (this.flags & FW) !== 0;
  }

  /** The TCP socket (`ws` keeps it as `_socket`; frames are written to it directly). */
  private get socket(): Socket {
    return (this as unknown as { _socket: Socket })._socket;
  }

  /** A client frame: the message itself for raw clients, an fw frame (`m`, `hb` or `tool-response`) otherwise. */
  private received(data: Buffer): void {
    const r = this.resource;
    if (r !== undefined) receiveWebSocketText(r, this.fw, data.toString('utf8'));
  }

  /** `ws` has already answered the peer (1009 for a frame over maxPayload, 1002/1007 otherwise). */
  private failed(err: Error & { code?: string }): void {
    this.resource?.terminate(err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? 'message too large' : `protocol error: ${err.message}`);
  }

  /**
   * A ping gets a pong with the same data (RFC 6455 §5.5.2; none once closing, §5.5.1). The
   * runtime turns `ws`'s own answering off (`autoPong: false`): it keeps a closure and three
   * fields on every connection to count pongs not yet written and cut off a client that pings
   * without reading them. fw applies its slow-consumer bound to that client instead: past
   * `fw.slow-consumer.high-water-mark` bytes unread, the connection and its resource end, counted
   * as a slow-consumer disconnect.
   */
  private answer(data: Buffer): void {
    if (this.readyState !== OPEN) return;
    const r = this.resource;
    if (r !== undefined && this.bufferedAmount > r.runtime.settings.highWaterMark) {
      r.runtime.counters.slowConsumerDisconnects++;
      r.terminate('slow consumer: pongs not read (fw.slow-consumer.high-water-mark)');
      this.terminate();
      return;
    }
    this.pong(data);
  }

  /**
   * A pong, a raw client's answer to fw's heartbeat ping, is a frame: `ws`'s parser pushes it on
   * its chunk list and shifts it off, and the emptied list keeps the backing store it grew (~150
   * bytes, kept while the connection stays idle, which is when it gets pinged). Set to length 0
   * in the same turn, the list lets it go while it is young, without an allocation.
   */
  private trimChunks(): void {
    const receiver = (this as unknown as { _receiver?: ReceiverChunks })._receiver;
    if (receiver?._bufferedBytes === 0 && Array.isArray(receiver._buffers)) receiver._buffers.length = 0;
  }

  private ended(code: number): void {
    this.loose?.delete(this);
    const r = this.resource;
    if (r === undefined) return;
    // 1000/1001: the client ended on purpose (its close(), a page going away); anything else may come back.
    if (code === 1000 || code === 1001) r.terminate('client closed');
    else r.detach(this, 'connection lost');
  }

  bufferedBytes(): number {
    return this.bufferedAmount;
  }

  onDrain(fn: () => void): void {
    this.socket.once('drain', fn);
  }

  /**
   * A batch of frames is corked into one write. A single raw frame, or an fw frame without its id
   * (both one shared buffer) is written as is: cork and uncork add a writev's bookkeeping to what
   * is one plain write. An fw frame with its id may be two chunks (a long message's shared tail),
   * so it is corked.
   */
  begin(single = false): void {
    const corked = !single || (this.fw && !this.sharesFrames());
    if (corked) {
      this.flags |= CORKED;
      this.socket.cork();
    }
  }

  message(out: Outgoing, id: number): void {
    // No data frames after a close frame (RFC 6455 §5.5.1).
    if (this.readyState !== OPEN) return;
    if (!this.fw) return out.writeRawWebSocketFrame(this.socket);
    if (id === this.wire + 1 && this.sharesFrames()) this.socket.write(out.implicitFwWebSocketFrame(this));
    else {
      out.writeFwWebSocketFrame(this.socket, id);
      out.passes(this);
    }
    this.wire = id;
  }

  /** Several messages in one turn: one write of a buffer shared with the sockets that get the same (FrameBatches). */
  messages(ring: FrameRing<Outgoing>, from: number, to: number): boolean {
    if (this.readyState !== OPEN) return false;
    const fw = this.fw;
    if (fw && !(from === this.wire + 1 && this.sharesFrames())) return false;
    this.socket.write(this.resource!.runtime.frameBatches.frames(ring, from, to, fw, this));
    if (fw) this.wire = to - 1;
    return true;
  }

  /** Whether the next frame in sequence goes out without its id: the client numbers it (`ids=implicit`) from an earlier one. */
  private sharesFrames(): boolean {
    return (this.flags & IMPLICIT) !== 0 && this.wire > 0;
  }

  control(frame: string): void {
    this.send(frame);
  }

  end(): void {
    if ((this.flags & CORKED) === 0) return;
    this.flags &= ~CORKED;
    this.socket.uncork();
  }

  heartbeat(): void {
    if (this.fw) this.send(HEARTBEAT_FRAME);
    else this.ping();
  }

  closeWith(reason: string, code = 4000): void {
    if (this.readyState !== OPEN) return;
    if (this.fw) this.send(encodeClose(reason));
    this.close(code, closeReason(reason));
  }

  goAway(reason: string): void {
    if (this.readyState !== OPEN) return;
    this.close(CloseCode.serviceRestart, closeReason(reason));
  }

  destroy(): void {
    this.terminate();
  }
}
