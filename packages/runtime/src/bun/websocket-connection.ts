import { CloseCode, encodeClose, HEARTBEAT_FRAME } from '@fw/protocol';
import type { Outgoing, Sequenced } from '../broadcast/outgoing.js';
import type { FwResource } from '../resource/resource.js';
import type { Connection } from '../transport/connection.js';
import { closeReason, receiveWebSocketText } from '../transport/websocket-inbound.js';
import type { BunServerWebSocket } from './bun-api.js';
import { topicName } from '../broadcast/topics.js';

const OPEN = 1;
// `flags` bits.
const FW = 1;
const IMPLICIT = 2;
const TOPICS = 4;

/**
 * A WebSocket connection on Bun: fw's `Connection` over Bun's native `ServerWebSocket`. A batch
 * is collected between `begin` and `end` and sent inside one `cork()`, so one tick's frames leave
 * in one write, as on Node. Bun frames each send itself: an fw frame is one `sendText` with the
 * recipient's own id (the tail built once per broadcast, see Outgoing), or without it when the
 * client numbers frames itself (`ids=implicit`) and it follows the last one sent; a raw client's
 * text is the shared payload string. Broadcasts to a socket in step with its resource come from
 * its broadcaster's topic instead (`joinTopic`, see Cohort): one `server.publish` for all.
 *
 * Backpressure is Bun's `getBufferedAmount()`: fw's slow-consumer policy reads it before every
 * flush exactly as it reads `bufferedAmount` on Node, and Bun's own backpressure limit is set
 * out of the way (see serve.ts) so that no frame is ever dropped silently below fw's policy. A
 * send Bun refuses (0: the socket is closing) is a drop: the resource waits for a resume and
 * replays from its ring, so nothing is lost without a gap.
 */
export class BunWebSocketConnection implements Connection, Sequenced {
  resource: FwResource | undefined;
  /**
   * The batch between `begin` and `end`: `null` when begun and empty, one frame as itself (the
   * common case, a broadcast's single message: no array), several as an array; `undefined`
   * outside a batch, where a frame is sent at once.
   */
  private queued: string | string[] | null | undefined;
  private drains: (() => void)[] | undefined;
  /** The id of the last numbered frame sent on this connection (0: none yet; the first always carries its id). */
  private wire = 0;
  /** The last sequenced broadcast sent (implicit ids: the next one of its broadcaster goes as a sequel frame). */
  seqB: string | undefined = undefined;
  seqBid = 0;
  /** The broadcaster whose topic this socket is subscribed to (see Topics), if any. */
  topic: string | undefined;

  /** `FW`, `IMPLICIT` and `TOPICS` as bits of one small integer: one slot instead of three. */
  private readonly flags: number;

  constructor(
    private readonly ws: BunServerWebSocket<unknown>,
    fw: boolean,
    /** The client numbers frames without an id itself (`ids=implicit`). */
    implicitIds = false,
    /** Whether broadcasts may reach this socket through topics (off: every frame is sent to it alone). */
    topics = false,
  ) {
    this.flags = (fw ? FW : 0) | (implicitIds ? IMPLICIT : 0) | (topics ? TOPICS : 0);
  }

  private get fw(): boolean {
    return (this.flags & FW) !== 0;
  }

  private get implicitIds(): boolean {
    return (this.flags & IMPLICIT) !== 0;
  }

  /** A client text frame (Bun has decoded and bounded it by `maxPayloadLength`). */
  received(text: string): void {
    const r = this.resource;
    if (r !== undefined) receiveWebSocketText(r, this.fw, text);
  }

  /** The socket closed: 1000/1001 is the client's goodbye, anything else a drop that may come back. */
  ended(code: number): void {
    const r = this.resource;
    this.drains = undefined;
    if (r === undefined) return;
    if (code === 1000 || code === 1001) r.terminate('client closed');
    else if (code === CloseCode.messageTooBig) r.terminate('message too large');
    else r.detach(this, 'connection lost');
  }

  /**
   * A client's ping (Bun answers it with a pong itself). A client that pings without reading the
   * pongs gets the slow-consumer bound, as on Node: past `fw.slow-consumer.high-water-mark` bytes
   * unread, the connection and its resource end, counted as a slow-consumer disconnect.
   */
  pinged(): void {
    const r = this.resource;
    if (r === undefined || this.ws.getBufferedAmount() <= r.runtime.settings.highWaterMark) return;
    r.runtime.counters.slowConsumerDisconnects++;
    r.terminate('slow consumer: pongs not read (fw.slow-consumer.high-water-mark)');
    this.ws.terminate();
  }

  /**
   * Bun's `drain` handler. Bun calls it whenever the socket took some of what was buffered; fw's
   * drain means all of it (node:net's `drain`), so the waiters run once nothing is left.
   */
  drained(): void {
    if (this.ws.getBufferedAmount() > 0) return;
    const fns = this.drains;
    this.drains = undefined;
    if (fns !== undefined) for (const fn of fns) fn();
  }

  /** A getter, not a field: one slot less in every connection. */
  get transport(): 'websocket' {
    return 'websocket';
  }

  bufferedBytes(): number {
    return this.ws.getBufferedAmount();
  }

  onDrain(fn: () => void): void {
    (this.drains ??= []).push(fn);
  }

  begin(): void {
    this.queued = null;
  }

  message(out: Outgoing, id: number): void {
    if (!this.fw) return this.push(out.payload);
    if (id !== this.wire + 1 || !this.implicitIds || this.wire === 0) this.push(out.frame(id));
    else this.push(out.follows(this) ? out.sequelFrame() : out.sharedFrame());
    out.passes(this);
    this.wire = id;
  }

  control(frame: string): void {
    this.push(frame);
  }

  end(): void {
    const queued = this.queued;
    this.queued = undefined;
    if (queued == null || this.ws.readyState !== OPEN) return;
    if (typeof queued === 'string') this.send(queued);
    else
      this.ws.cork(() => {
        for (const frame of queued) if (!this.send(frame)) break;
      });
  }

  /**
   * Takes the broadcaster's topic, if this socket may (`fw.bun.topics`) and, for an fw client, the
   * topic's frame, a sequel (`{"t":"s"}`), is the next one for it: the client numbers frames
   * itself (`ids=implicit`), the last frame it got on this socket, numbered, was the last one
   * written (`flushed`), and its last sequenced broadcast was this broadcaster's before `bid`.
   */
  joinTopic(broadcaster: string, flushed: number, bid: number): boolean {
    if (this.topic === broadcaster) return true;
    if (!this.takesTopics || this.ws.readyState !== OPEN) return false;
    if (this.fw && !(this.wire > 0 && this.wire === flushed && this.seqB === broadcaster && this.seqBid === bid - 1)) return false;
    this.topic = broadcaster;
    this.ws.subscribe(topicName(this.fw, broadcaster));
    return true;
  }

  /**
   * A getter, not a field (one slot less per connection): whether this socket can ever take a
   * topic. An fw client that did not ask for implicit ids cannot (a published frame has no id),
   * and is written to one by one, inside the flush queue's slices, as before topics.
   */
  get takesTopics(): boolean {
    return (this.flags & TOPICS) !== 0 && (!this.fw || this.implicitIds);
  }

  /** The topic sent this socket frames up to `id`, the last one broadcast `bid` of `broadcaster`. */
  tookFromTopic(id: number, broadcaster: string, bid: number): void {
    this.wire = id;
    this.seqB = broadcaster;
    this.seqBid = bid;
  }

  leaveTopic(): void {
    const topic = this.topic;
    if (topic === undefined) return;
    this.topic = undefined;
    if (this.ws.readyState === OPEN) this.ws.unsubscribe(topicName(this.fw, topic));
  }

  heartbeat(): void {
    if (this.ws.readyState !== OPEN) return;
    if (this.fw) this.send(HEARTBEAT_FRAME);
    else this.ws.ping();
  }

  closeWith(reason: string, code = 4000): void {
    if (this.ws.readyState !== OPEN) return;
    if (this.fw) this.ws.sendText(encodeClose(reason));
    this.ws.close(code, closeReason(reason));
  }

  goAway(reason: string): void {
    if (this.ws.readyState !== OPEN) return;
    this.end();
    this.ws.close(CloseCode.serviceRestart, closeReason(reason));
  }

  destroy(): void {
    this.ws.terminate();
  }

  private push(frame: string): void {
    const queued = this.queued;
    if (queued === undefined) {
      if (this.ws.readyState === OPEN) this.send(frame);
    } else if (queued === null) this.queued = frame;
    else if (typeof queued === 'string') this.queued = [queued, frame];
    else queued.push(frame);
  }

  /**
   * One frame; false when Bun dropped it: the socket is closing (its backpressure limit is out of
   * reach), and its close handler detaches the resource, which replays from its ring on resume.
   * An empty frame reports 0 bytes sent.
   */
  private send(frame: string): boolean {
    return this.ws.sendText(frame) !== 0 || frame.length === 0;
  }
}
