/**
 * A message encoded once, whoever receives it. The fw frame of a message is
 * `{"t":"m","id":<id>` + tail, where only `<id>` differs between recipients, so the tail (with the
 * JSON-escaped payload, broadcaster id and broadcaster sequence) is built once, lazily, and shared.
 * Raw encodings (the payload bytes, a complete WebSocket frame, SSE data lines) are likewise built
 * at most once.
 *
 * WebSocket frames from a server are not masked, so they are the same bytes for every recipient:
 * a raw client's frame is one shared Buffer written as is to each socket, and so is an fw client's
 * frame without its id (`sharedFrame`, for clients that number frames themselves: `ids=implicit`).
 * An fw frame with its id differs only in the id digits: per recipient, one small buffer (frame
 * header + `{"t":"m","id":N`) is built and the shared tail bytes follow it (copied into the same
 * buffer when short).
 */
import {
  MESSAGE_FRAME_HEAD,
  SEQUEL_FRAME_HEAD,
  SHARED_MESSAGE_FRAME_HEAD,
  SHARED_TOOL_CALL_FRAME_HEAD,
  TOOL_CALL_FRAME_HEAD,
} from '@fw/protocol';

/** Up to this many tail bytes are copied into the per-recipient buffer; longer tails are written as a second, shared chunk. */
const COPY_TAIL_MAX = 1024;

export interface FrameSink {
  write(chunk: Buffer): unknown;
}

/**
 * Where a connection with implicit ids stands in its broadcasts: the broadcaster and sequence of
 * the last message written to it that had both (docs/protocol.md, *Implicit ids*). The next
 * broadcast of that broadcaster, in sequence, goes as a sequel frame (`Outgoing.follows`).
 */
export interface Sequenced {
  seqB: string | undefined;
  seqBid: number;
}

export class Outgoing {
  private tail: string | undefined;
  private tailBytes: Buffer | undefined;
  private raw: Buffer | undefined;
  private rawFrame: Buffer | undefined;
  private shared: string | undefined;
  private sharedWebSocketFrame: Buffer | undefined;
  private data: string | undefined;
  private sequel: string | undefined;
  private sequelWebSocketFrame: Buffer | undefined;
  private sse: string | undefined;

  constructor(
    readonly payload: string,
    /** Broadcaster id and sequence: both absent for unicast, no sequence for a subset broadcast (never replayed). */
    readonly broadcaster?: string,
    readonly bid?: number,
    /** `m` for application messages; `tool-call` for a bridge call, which an fw client never hands to the app. */
    readonly type: 'm' | 'tool-call' = 'm',
  ) {}

  static from(message: string | object, broadcaster?: string, bid?: number): Outgoing {
    return new Outgoing(typeof message === 'string' ? message : JSON.stringify(message), broadcaster, bid);
  }

  /** The fw message frame for one recipient. */
  frame(id: number): string {
    return this.head() + id + this.fwTail();
  }

  /**
   * The fw frame without its id, the same for every recipient: for a client that numbers frames
   * itself (`ids=implicit`, docs/protocol.md), when this frame's id is the one after the last it got.
   */
  sharedFrame(): string {
    return (this.shared ??= (this.type === 'm' ? SHARED_MESSAGE_FRAME_HEAD : SHARED_TOOL_CALL_FRAME_HEAD) + this.fwTail());
  }

  /**
   * Whether this message is the broadcast after `seqBid` of `seqB` (the last sequenced broadcast
   * on a connection): then a client with implicit ids gets it as a sequel frame.
   */
  follows(at: Sequenced): boolean {
    return this.bid !== undefined && this.bid === at.seqBid + 1 && this.broadcaster === at.seqB;
  }

  /** Moves a connection's place (`Sequenced`) past this message, when it is a sequenced broadcast. */
  passes(at: Sequenced): void {
    if (this.bid === undefined) return;
    at.seqB = this.broadcaster;
    at.seqBid = this.bid;
  }

  /**
   * The sequel frame `{"t":"s","d":…}`: the shared frame without `b` and `bid`, for a client with
   * implicit ids whose last sequenced broadcast this message follows (`follows`).
   */
  sequelFrame(): string {
    return (this.sequel ??= `${SEQUEL_FRAME_HEAD}${this.dataField()}}`);
  }

  /** The payload as UTF-8 bytes, shared by all recipients. */
  bytes(): Buffer {
    return (this.raw ??= Buffer.from(this.payload, 'utf8'));
  }

  /** SSE `data:` lines for a raw client: a payload with newlines becomes several lines. */
  sseData(): string {
    return (this.sse ??= `data: ${this.payload.split(/\r\n|\r|\n/).join('\ndata: ')}\n`);
  }

  /** Writes the complete WebSocket text frame of the raw payload (built once, shared). */
  writeRawWebSocketFrame(sink: FrameSink): void {
    sink.write(this.rawWebSocketFrame());
  }

  /** The complete WebSocket text frame of the raw payload (built once, shared). */
  rawWebSocketFrame(): Buffer {
    return (this.rawFrame ??= textFrame(this.bytes()));
  }

  /** The complete WebSocket text frame of `sharedFrame()` (built once, shared). */
  sharedFwWebSocketFrame(): Buffer {
    return (this.sharedWebSocketFrame ??= textFrame(Buffer.from(this.sharedFrame(), 'utf8')));
  }

  /** The complete WebSocket text frame of `sequelFrame()` (built once, shared). */
  sequelFwWebSocketFrame(): Buffer {
    return (this.sequelWebSocketFrame ??= textFrame(Buffer.from(this.sequelFrame(), 'utf8')));
  }

  /**
   * The frame without its id for a connection with implicit ids at `at`, which it moves on: a
   * sequel when this message follows its last sequenced broadcast, the shared frame otherwise.
   */
  implicitFwWebSocketFrame(at: Sequenced): Buffer {
    const frame = this.follows(at) ? this.sequelFwWebSocketFrame() : this.sharedFwWebSocketFrame();
    this.passes(at);
    return frame;
  }

  /** Writes the WebSocket text frame of the fw frame with this recipient's id. */
  writeFwWebSocketFrame(sink: FrameSink, id: number): void {
    const tail = (this.tailBytes ??= Buffer.from(this.fwTail(), 'utf8'));
    const digits = String(id);
    const head = this.head();
    const length = head.length + digits.length + tail.length;
    const header = headerLength(length);
    const copy = tail.length <= COPY_TAIL_MAX;
    const buf = Buffer.allocUnsafe(header + head.length + digits.length + (copy ? tail.length : 0));
    let at = writeHeader(buf, length);
    at += buf.write(head, at, 'latin1');
    at += buf.write(digits, at, 'latin1');
    if (copy) {
      tail.copy(buf, at);
      sink.write(buf);
    } else {
      sink.write(buf);
      sink.write(tail);
    }
  }

  private head(): string {
    return this.type === 'm' ? MESSAGE_FRAME_HEAD : TOOL_CALL_FRAME_HEAD;
  }

  /** `,"d":<the payload as a JSON string>`, escaped once. */
  private dataField(): string {
    return (this.data ??= `,"d":${JSON.stringify(this.payload)}`);
  }

  private fwTail(): string {
    return (this.tail ??=
      this.dataField() +
      (this.broadcaster === undefined
        ? '}'
        : this.bid === undefined
          ? `,"b":${JSON.stringify(this.broadcaster)}}`
          : `,"b":${JSON.stringify(this.broadcaster)},"bid":${this.bid}}`));
  }
}

/**
 * The WebSocket frames of consecutive messages of a resource's ring (`from`…`to - 1`), raw or
 * shared fw frames, as one buffer: built for the first socket that gets exactly these in a turn
 * and written as it is to the next ones (a broadcast stream to sockets in step), so that a
 * socket's turn is one write of shared bytes, not one write per message. One per runtime; it
 * holds the last batch only (the sockets of a fan-out flush one after another), checked entry by
 * entry, so a socket whose messages differ anywhere gets its own.
 */
export class FrameBatches {
  private fw = false;
  private outs: Outgoing[] = [];
  private bytes: Buffer | undefined;
  /** Where the last batch's sockets stood before it (fw: which frames are sequels) and after it. */
  private readonly before: Sequenced = { seqB: undefined, seqBid: 0 };
  private readonly after: Sequenced = { seqB: undefined, seqBid: 0 };

  /** The frames of `from`…`to - 1`; for fw frames, `at` is where the socket stands, moved past them. */
  frames(ring: { get(id: number): Outgoing | undefined }, from: number, to: number, fw: boolean, at?: Sequenced): Buffer {
    const outs = this.outs;
    if (
      this.bytes !== undefined &&
      this.fw === fw &&
      outs.length === to - from &&
      (!fw || (at!.seqB === this.before.seqB && at!.seqBid === this.before.seqBid))
    ) {
      let same = true;
      for (let i = 0; same && i < outs.length; i++) same = outs[i] === ring.get(from + i);
      if (same) {
        if (fw) setSequenced(at!, this.after);
        return this.bytes;
      }
    }
    if (fw) setSequenced(this.before, at!);
    const next: Outgoing[] = [];
    const frames: Buffer[] = [];
    for (let id = from; id < to; id++) {
      const out = ring.get(id)!;
      next.push(out);
      frames.push(fw ? out.implicitFwWebSocketFrame(at!) : out.rawWebSocketFrame());
    }
    if (fw) setSequenced(this.after, at!);
    this.fw = fw;
    this.outs = next;
    this.bytes = Buffer.concat(frames);
    return this.bytes;
  }

  /** Lets the last batch go (the flush queue is empty: nobody will ask for it again). */
  clear(): void {
    this.outs = [];
    this.bytes = undefined;
  }
}

function setSequenced(to: Sequenced, from: Sequenced): void {
  to.seqB = from.seqB;
  to.seqBid = from.seqBid;
}

/** A complete, unmasked WebSocket text frame of these bytes. */
function textFrame(body: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(headerLength(body.length) + body.length);
  body.copy(frame, writeHeader(frame, body.length));
  return frame;
}

function headerLength(length: number): number {
  return length < 126 ? 2 : length < 65536 ? 4 : 10;
}

/** An unmasked, final text frame header (RFC 6455 §5.2); returns its length. */
function writeHeader(buf: Buffer, length: number): number {
  buf[0] = 0x81;
  if (length < 126) {
    buf[1] = length;
    return 2;
  }
  if (length < 65536) {
    buf[1] = 126;
    buf.writeUInt16BE(length, 2);
    return 4;
  }
  buf[1] = 127;
  buf.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
  buf.writeUInt32BE(length >>> 0, 6);
  return 10;
}
