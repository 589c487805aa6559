import type { IncomingMessage } from 'node:http';
import type { TransportName } from '../events.js';
import type { Principal, Resource } from '../model.js';
import { FrameRing } from '../broadcast/frame-ring.js';
import type { Cohort } from '../broadcast/cohort.js';
import { Outgoing } from '../broadcast/outgoing.js';
import { CloseCode, CredentialReason, encodeAck, encodeGap, encodeHandshake, encodeRecovery, type UpstreamKind } from '@fw/protocol';
import { expiryOf, type CredentialEnd } from '../auth/credentials.js';
import { FwError } from '../errors.js';
import type { Gap } from '../broadcast/replay-store.js';
import type { Connection } from '../transport/connection.js';
import type { HandlerEntry } from '../handler.js';
import type { Runtime } from '../runtime.js';
import { clientAddress } from '../security/request-source.js';
import { packAddress, unpackAddress } from './packed-address.js';
import type { Logger } from '../logging/logger.js';

export interface ResourceInit {
  transport: TransportName;
  protocol: 'fw' | 'raw';
  path: string;
  params: Readonly<Record<string, string>>;
  /** The request's query string (`?a=1`, or empty); `resource.query` is built from it on first use. */
  search?: string;
  /** Or the parsed query itself. */
  query?: URLSearchParams;
  req: IncomingMessage;
  principal: Principal | undefined;
  attributes: Map<string, unknown> | undefined;
}

/**
 * A control frame (a gap, the recovery summary) written before the message with id `at`, so that
 * it keeps its place among the messages. `keep`: written again when a resume starts before it
 * (a gap the client may not have received); otherwise forgotten once written.
 */
interface Mark {
  at: number;
  frame: string;
  sent: boolean;
  keep: boolean;
}

/** A resource's place in a cohort: its next id when it joined, the broadcast that took it, its topic. */
interface Seat {
  cohort: Cohort;
  bid: number;
  id: number;
  fw: boolean;
}

/** The origin of `connectedSince` (a constant, read once). */
const CLOCK_BASE = Date.now();
const smallInt = (n: number): number => (n < 0x3fffffff ? n | 0 : n);

/**
 * The ring of every resource that has not been sent a message yet: empty, numbering from 1, and
 * frozen (a push on it would throw). The first `deliver` gives the resource a ring of its own, so
 * an idle connection costs no ring object (64 bytes).
 */
const NO_RING = Object.freeze(new FrameRing<Outgoing>(0)) as FrameRing<Outgoing>;

// The resource's booleans, as bits of one small integer (`flags`): one field instead of five.
const CLOSED = 1;
const SCHEDULED = 2;
const WROTE = 4;
const HEARD = 8;
const SLOW_DROPPED = 16;
const RAW = 32;
/** `home` is `path` (almost always: the path's own broadcaster), so it needs no field. */
const HOME_IS_PATH = 64;
/** Holds a place of `fw.connections.*` (given back when it ends). */
const SHARED = 128;
/** Numbered client messages were taken since the last acknowledgement was written (WebSocket). */
const ACK_DUE = 256;
/** A drain of the connection is awaited to announce slow-consumer drops. */
const DRAIN_AWAITED = 512;

/**
 * What few resources have: attributes, a home other than the path, drops, a
 * watched credential. Allocated only for those.
 */
class Extras {
  query: URLSearchParams | undefined = undefined;
  attributes: Map<string, unknown> | undefined = undefined;
  home: string | null = null;
  dropped = 0;
  /** The bound on announcing slow-consumer drops (`fw.slow-consumer.gap-delay`). */
  dropTimer: NodeJS.Timeout | undefined = undefined;
  /** Stops watching the principal's credential (`fw.credentials`). */
  unwatch: (() => void) | undefined = undefined;
}

/**
 * One logical client connection. It outlives its physical connections: when an fw client's
 * connection drops, the resource stays registered (and a member of its broadcasters, buffering)
 * for `fw.resume.grace` ms, and a reconnect with its tracking id continues where it left off.
 *
 * Every message written gets the next id and goes into `ring`, the bounded resume buffer. Frames
 * are not copied into a send queue: `flushed` is the last id handed to the connection, and a
 * flush (once per tick, from the runtime's flush queue) writes `flushed+1 … ring.next-1`.
 */
export class FwResource implements Resource {
  readonly uuid: string;
  transport: TransportName;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  private extras: Extras | undefined;
  /** The query string it connected with (`?fw=1`…; shared with every resource that sent the same: QueryStrings). */
  private readonly search: string;
  /** The client's address: an IPv4 address as its 32 bits (no string per connection), any other as is. */
  private readonly address: number | string;
  /**
   * When it connected, as ms since this module loaded: a small integer V8 keeps inline, where
   * `Date.now()` would be a 16-byte heap number per connection. `| 0` makes it an int (the
   * difference of two doubles is a double even when whole); past 2^30 ms (12 days of uptime) it
   * stays a plain number, boxed again but still right.
   */
  private readonly connectedSince = smallInt(Date.now() - CLOCK_BASE);
  /**
   * Ids of the broadcasters joined: almost always one (the home broadcaster), kept as the id
   * itself; a Set only from the second on. A Set per resource costs ~260 bytes of heap, a quarter
   * of what fw adds to an idle WebSocket.
   */
  private joinedIds: string | Set<string> | undefined;
  principal: Principal | undefined;
  connection: Connection | undefined;
  /** The resume buffer: `NO_RING` until the first message. */
  ring: FrameRing<Outgoing> = NO_RING;
  flushed = 0;
  /** Its place in a broadcaster's cohort (Bun's topics), while it has one: see Cohort and `settle`. */
  seat: Seat | undefined;
  private flags = HEARD;
  messagesIn = 0;
  /**
   * The sequence number of the last numbered client message taken (docs/protocol.md, *Client
   * messages exactly once*): a number at or below it is a resend, answered but not taken again.
   */
  upstream = 0;
  /** Gap and recovery frames waiting for (or kept around) their place in the stream; undefined almost always. */
  private marks: Mark[] | undefined;
  /** Slow-consumer drops not yet announced: a gap goes out before the next message delivered. */
  private drops: Gap[] | undefined;
  /**
   * Per broadcaster: its live messages (and the gaps of its live stream, see `liveGap`) waiting
   * while an older part of its stream is read from the replay store (an array); or, once that
   * replay went past what this node had delivered, the sequence up to which its live messages are
   * repeats to drop (a number, until a newer one comes).
   */
  private holding: Map<string, (Outgoing | Gap)[] | number> | undefined;
  /** A (re)connection's recovery under way: gaps signalled so far, replay-store reads pending. */
  private recovery: { gaps: number; pending: number } | undefined;
  private graceTimer: NodeJS.Timeout | undefined;
  private messageListeners: ((data: string) => void)[] | undefined;
  private toolResponseListeners: ((data: string) => boolean)[] | undefined;
  private closeListeners: ((reason: string) => void)[] | undefined;
  cleanups: (() => void)[] | undefined;

  constructor(
    readonly runtime: Runtime,
    readonly handler: HandlerEntry,
    uuid: string,
    init: ResourceInit,
  ) {
    this.uuid = uuid;
    this.transport = init.transport;
    if (init.protocol === 'raw') this.flags |= RAW;
    this.path = init.path;
    this.params = init.params;
    this.search = init.search ? runtime.queryStrings.share(init.search) : '';
    if (init.query || init.attributes) {
      const extras = this.more();
      extras.query = init.query;
      extras.attributes = init.attributes;
    }
    // The client behind a trusted proxy (fw.security.trusted-proxies), not the proxy.
    this.address = packAddress(clientAddress(init.req) ?? '');
    this.principal = init.principal;
  }

  private more(): Extras {
    return (this.extras ??= new Extras());
  }

  /** The broadcaster joined on connect (the spec's owning broadcaster), or null. */
  get home(): string | null {
    return (this.flags & HOME_IS_PATH) !== 0 ? this.path : (this.extras?.home ?? null);
  }
  set home(id: string | null) {
    this.flag(HOME_IS_PATH, id === this.path);
    if (id !== this.path && (id !== null || this.extras !== undefined)) this.more().home = id;
  }

  /** Messages written to this resource: each took the next id of its ring. */
  get messagesOut(): number {
    const seat = this.seat;
    return seat === undefined ? this.ring.next - 1 : seat.id - 1 + seat.cohort.last - seat.bid + 1;
  }

  /** Messages dropped for this slow consumer (fw.slow-consumer.policy `drop`). */
  get dropped(): number {
    return this.extras?.dropped ?? 0;
  }

  /** `fw`: the fw protocol's frames; `raw`: the application's messages as they are. */
  get protocol(): 'fw' | 'raw' {
    return (this.flags & RAW) !== 0 ? 'raw' : 'fw';
  }

  get remoteAddress(): string {
    return unpackAddress(this.address);
  }

  /** Closed for good (terminated): it takes no more messages. */
  get closed(): boolean {
    return (this.flags & CLOSED) !== 0;
  }

  /** Waiting in the flush queue. */
  get scheduled(): boolean {
    return (this.flags & SCHEDULED) !== 0;
  }
  set scheduled(on: boolean) {
    this.flag(SCHEDULED, on);
  }

  /** Set on every flush, cleared by the heartbeat: a heartbeat goes only to quiet connections. */
  get wrote(): boolean {
    return (this.flags & WROTE) !== 0;
  }
  set wrote(on: boolean) {
    this.flag(WROTE, on);
  }

  /** Set on every inbound frame, cleared by the idle-timeout sweep. */
  get heard(): boolean {
    return (this.flags & HEARD) !== 0;
  }
  set heard(on: boolean) {
    this.flag(HEARD, on);
  }

  /** The last connection was cut because the client read too slowly (the resume's gap says so). */
  private get slowDropped(): boolean {
    return (this.flags & SLOW_DROPPED) !== 0;
  }
  private set slowDropped(on: boolean) {
    this.flag(SLOW_DROPPED, on);
  }

  private flag(bit: number, on: boolean): void {
    this.flags = on ? this.flags | bit : this.flags & ~bit;
  }

  get connectedAt(): number {
    return CLOCK_BASE + this.connectedSince;
  }

  /** Ids of the broadcasters this resource belongs to (a snapshot: join and leave through the broadcasters). */
  get broadcasters(): ReadonlySet<string> {
    const j = this.joinedIds;
    return new Set(j === undefined ? [] : typeof j === 'string' ? [j] : j);
  }

  isMemberOf(broadcaster: string): boolean {
    const j = this.joinedIds;
    return j === broadcaster || (typeof j === 'object' && j.has(broadcaster));
  }

  /** Called by the broadcaster it joins. */
  joined(broadcaster: string): void {
    const j = this.joinedIds;
    if (j === undefined) this.joinedIds = broadcaster;
    else if (typeof j === 'string') {
      if (j !== broadcaster) this.joinedIds = new Set([j, broadcaster]);
    } else j.add(broadcaster);
  }

  /** Called by the broadcaster it leaves. */
  left(broadcaster: string): void {
    if (this.seat?.cohort.broadcaster === broadcaster) this.settle();
    const j = this.joinedIds;
    if (j === broadcaster) this.joinedIds = undefined;
    else if (typeof j === 'object') {
      j.delete(broadcaster);
      if (j.size === 0) this.joinedIds = undefined;
    }
  }

  /** Parsed on first use: most resources never look, and a URLSearchParams per connection adds up. */
  get query(): URLSearchParams {
    const extras = this.more();
    return (extras.query ??= new URLSearchParams(this.search));
  }

  get attributes(): Map<string, unknown> {
    return (this.more().attributes ??= new Map());
  }

  write(message: string | object): boolean {
    return this.deliver(Outgoing.from(message));
  }

  writeToolCall(payload: string): boolean {
    return this.deliver(new Outgoing(payload, undefined, undefined, 'tool-call'));
  }

  writeControl(frame: string): boolean {
    if (this.closed || this.protocol !== 'fw') return false;
    this.mark(frame, false);
    return true;
  }

  /** The hot path: one message for this resource, encoded already. */
  deliver(out: Outgoing): boolean {
    if (this.seat !== undefined) this.settle();
    if (this.closed) return false;
    if (this.holding !== undefined && out.broadcaster !== undefined && this.hold(out)) return true;
    const rt = this.runtime;
    const conn = this.connection;
    if (conn !== undefined && conn.bufferedBytes() > rt.settings.highWaterMark) {
      if (rt.settings.slowConsumerPolicy === 'disconnect') {
        // Cut the connection, keep the resource: the client resumes and gets what it missed
        // from the resume buffer (a gap, `slow-consumer-dropped`, for what the buffer lost).
        rt.counters.slowConsumerDisconnects++;
        this.slowDropped = true;
        this.detach(conn, 'slow consumer');
        conn.destroy();
      } else {
        this.more().dropped++;
        rt.counters.dropped++;
        this.noteDrop(out, conn);
        return false;
      }
    }
    if (this.drops !== undefined) this.announceDrops();
    if (this.ring === NO_RING) this.ring = new FrameRing(rt.settings.resumeBuffer);
    // Waiting in the flush queue (a large fan-out is written in slices), the ring must not
    // overwrite what is not written yet: write it now rather than lose it.
    else if (this.scheduled && this.ring.next - this.flushed > this.ring.capacity && this.ring.capacity > 0) this.flush();
    this.ring.push(out);
    rt.counters.messagesOut++;
    if (conn !== undefined && !this.scheduled) {
      this.scheduled = true;
      rt.flushQueue.add(this);
    }
    return true;
  }

  /**
   * A full broadcast on a runtime with native topics (Bun, single node; see Cohort), for a member
   * not in the broadcaster's cohort. When its connection can take the topic of its home
   * broadcaster and is in step, what is waiting to be written goes first (sent directly: Bun
   * sends a socket what was published to it before anything sent to it after, so the order is
   * the ring's), then it joins the cohort with this broadcast, which it gets from the publish that
   * follows. A socket subscribes only here, just before the publish it is counted in, so that it
   * never gets a broadcast both ways. Otherwise this is `deliver`. True when delivered.
   */
  deliverByTopic(out: Outgoing, cohort: Cohort): boolean {
    const conn = this.connection;
    if (conn === undefined || conn.takesTopics !== true || this.home !== cohort.broadcaster) return this.deliver(out);
    if (this.scheduled) this.flush();
    if (!this.inStep(conn) || !conn.joinTopic!(cohort.broadcaster, this.flushed, out.bid!)) return this.deliver(out);
    if (this.ring === NO_RING) this.ring = new FrameRing(this.runtime.settings.resumeBuffer);
    const fw = this.protocol === 'fw';
    this.seat = { cohort, bid: out.bid!, id: this.ring.next, fw };
    cohort.join(this, fw);
    this.runtime.counters.messagesOut++;
    this.wrote = true;
    return true;
  }

  /**
   * Leaves the cohort (see Cohort): the broadcasts the topic sent since it joined enter the ring
   * (a raw resource only counts them), numbered as the client counted them, as if each had been
   * written here; the socket leaves the topic. Everything that writes to the resource, or reads
   * where its stream stands, calls this first.
   */
  settle(): void {
    const seat = this.seat;
    if (seat === undefined) return;
    this.seat = undefined;
    const { cohort } = seat;
    cohort.leave(this, seat.fw);
    this.connection?.leaveTopic?.();
    const count = cohort.last - seat.bid + 1;
    if (count <= 0) return;
    const ring = this.ring;
    if (!seat.fw) ring.startAt(seat.id + count);
    else {
      for (let bid = Math.max(seat.bid, cohort.last - ring.capacity + 1); bid <= cohort.last; bid++) {
        ring.skipTo(seat.id + (bid - seat.bid));
        ring.push(cohort.log.get(bid)!);
      }
    }
    // Numbering reaches the last broadcast even where the ring keeps none (fw.resume.buffer 0).
    ring.skipTo(seat.id + count);
    this.flushed = ring.next - 1;
    this.connection?.tookFromTopic?.(this.flushed, cohort.broadcaster, cohort.last);
  }

  /**
   * Whether the next broadcast can reach the connection as it is, without anything before it: all
   * written, no gap, ack or control frame to send first, no replay-store catch-up under way, and
   * the socket below the slow-consumer mark (past it, `deliver` applies the policy).
   */
  inStep(conn: Connection): boolean {
    return (
      (this.flags & (CLOSED | ACK_DUE | SLOW_DROPPED)) === 0 &&
      this.holding === undefined &&
      this.drops === undefined &&
      (this.marks === undefined || this.marks.every((m) => m.sent)) &&
      this.flushed === this.ring.next - 1 &&
      conn.bufferedBytes() <= this.runtime.settings.highWaterMark
    );
  }

  /** Called by the flush queue once per tick. */
  flushQueued(): void {
    if (this.scheduled) this.flush();
  }

  /** Writes everything not yet handed to the connection, preceded by `lead` (a handshake) if given. */
  flush(lead?: string): void {
    if (this.seat !== undefined) this.settle();
    this.scheduled = false;
    const conn = this.connection;
    if (conn === undefined) return;
    const ring = this.ring;
    const to = ring.next;
    let from = this.flushed + 1;
    const lost = from < ring.first ? ring.first - from : 0;
    const marks = this.marks;
    const ack = (this.flags & ACK_DUE) !== 0;
    if (lead === undefined && from >= to && marks === undefined && !ack) return;
    conn.begin(lead === undefined && lost === 0 && marks === undefined && !ack && to - from === 1);
    if (lead !== undefined) conn.control(lead);
    if (ack) {
      this.flags &= ~ACK_DUE;
      // A handshake carries the same number already.
      if (lead === undefined) conn.control(encodeAck(this.upstream));
    }
    if (lost > 0) {
      this.runtime.counters.gaps++;
      this.runtime.counters.lost += lost;
      if (this.recovery !== undefined) this.recovery.gaps++;
      const reason = this.slowDropped ? 'slow-consumer-dropped' : 'replay-window-exceeded';
      if (this.protocol === 'fw') conn.control(encodeGap({ lost, reason, from, to: ring.first - 1 }));
      from = ring.first;
    }
    this.slowDropped = false;
    if (marks === undefined) {
      if (to - from > 1 && conn.messages?.(ring, from, to)) from = to;
      for (; from < to; from++) conn.message(ring.get(from)!, from);
    } else {
      // The rare path: control frames interleaved at their places, then those after the last message.
      let i = 0;
      for (; from < to; from++) {
        for (; i < marks.length && marks[i]!.at <= from; i++) writeMark(conn, marks[i]!);
        conn.message(ring.get(from)!, from);
      }
      for (; i < marks.length && marks[i]!.at <= to; i++) writeMark(conn, marks[i]!);
      const kept = marks.filter((m) => !m.sent || (m.keep && m.at >= ring.first));
      this.marks = kept.length > 0 ? kept : undefined;
    }
    this.flushed = to - 1;
    if (this.protocol === 'raw') ring.release();
    this.wrote = true;
    conn.end();
  }

  /**
   * Puts the resource on a (new) connection. `last` is the id of the last message the client has
   * (resume, long-polling acknowledgment): everything after it is replayed once, in order.
   */
  attach(conn: Connection, last: number | undefined, handshake: { resumed: boolean } | undefined): void {
    if (this.seat !== undefined) this.settle();
    const old = this.connection;
    if (old !== undefined && old !== conn) {
      this.connection = undefined;
      old.resource = undefined;
      old.destroy();
    }
    if (this.graceTimer !== undefined) {
      this.runtime.timers.clear(this.graceTimer);
      this.graceTimer = undefined;
    }
    // A drain awaited on the old connection (slow-consumer drops) is the new one's to await.
    if (old !== conn) this.flags &= ~DRAIN_AWAITED;
    this.connection = conn;
    conn.resource = this;
    // Drops not announced yet (nothing was delivered since): a new connection is the next chance.
    if (this.drops !== undefined) this.announceDrops();
    // A (re)connection or a long-poll is a sign of life for the idle timeout.
    this.heard = true;
    if (conn.transport !== this.transport) this.runtime.resources.retransport(this, conn.transport);
    if (last !== undefined) {
      this.flushed = last;
      // A resume: gaps placed after what the client has may not have reached it.
      if (handshake !== undefined && this.marks !== undefined) for (const m of this.marks) if (m.at > last && m.keep) m.sent = false;
    }
    const hs =
      handshake && this.protocol === 'fw'
        ? encodeHandshake({
            uuid: this.uuid,
            transport: this.transport,
            heartbeat: this.runtime.settings.heartbeat,
            resumed: handshake.resumed,
            epoch: this.runtime.epoch,
            ack: this.upstream,
          })
        : undefined;
    this.flush(hs);
  }

  /** The connection ended without the resource being closed: keep it for a resume, or end it. */
  detach(conn: Connection, reason: string): void {
    if (this.seat !== undefined) this.settle();
    if (this.connection !== conn) return;
    this.connection = undefined;
    conn.resource = undefined;
    if (this.closed) return;
    if (this.protocol === 'raw') {
      this.terminate(reason);
      return;
    }
    this.graceTimer = this.runtime.timers.timeout(() => {
      this.graceTimer = undefined;
      this.terminate(`${reason} (not resumed within ${this.runtime.settings.grace} ms)`);
    }, this.runtime.settings.grace);
  }

  /** Closes on purpose: pending frames are flushed, an fw client gets the reason and does not reconnect. */
  close(reason = 'closed by server', code = 4000): void {
    if (this.closed) return;
    this.flush();
    const conn = this.connection;
    if (this.protocol === 'fw') this.runtime.resources.tombstone(this.uuid, reason);
    this.terminate(reason);
    conn?.closeWith(reason, code);
  }

  /**
   * Ends the resource because the server is shutting down. Unlike `close`, the client gets no
   * close frame and no tombstone is left, only a WebSocket close 1012 or a `reconnect` frame on
   * the HTTP transports: for the client it is a drop, and it reconnects (a
   * restarted node no longer knows the tracking id, so the client starts fresh with `since`).
   */
  shutdown(reason: string): void {
    if (this.closed) return;
    this.flush();
    const conn = this.connection;
    this.terminate(reason);
    conn?.goAway(reason);
  }

  /**
   * A client message or bridge answer (`kind`), numbered (`seq`) by an fw client that sends each
   * until it is acknowledged: taken once, in order. Returns false for a number already taken (a
   * resend whose acknowledgement was lost: the caller acknowledges it again); a number past the
   * next one is a 409 `out_of_order` (fw clients never skip one). Unnumbered: taken as it is.
   */
  receiveNumbered(kind: UpstreamKind, data: string, seq: number | undefined): boolean {
    if (this.closed) return false;
    if (seq !== undefined) {
      if (seq <= this.upstream) {
        this.heard = true;
        return false;
      }
      if (seq !== this.upstream + 1) {
        throw new FwError('out_of_order', `client message ${seq} arrived before ${this.upstream + 1}`, 409, {
          expected: this.upstream + 1,
        });
      }
      this.upstream = seq;
    }
    if (kind === 'tool-response') this.receiveToolResponse(data);
    else this.receive(data);
    return true;
  }

  /** Writes an acknowledgement of the client messages taken (WebSocket) with the next flush. */
  acknowledge(): void {
    this.flags |= ACK_DUE;
    if (this.connection !== undefined && !this.scheduled) {
      this.scheduled = true;
      this.runtime.flushQueue.add(this);
    }
  }

  /** A message from the client (already unframed). */
  receive(data: string): void {
    if (this.closed) return;
    this.messagesIn++;
    this.runtime.counters.messagesIn++;
    this.heard = true;
    // A raw client has no frame types: its bridge answers are messages of the §2.4 shape. Only
    // one that a pending call claims is kept from the application.
    if (
      this.protocol === 'raw' &&
      this.toolResponseListeners !== undefined &&
      data.includes('tool-response') &&
      this.offerToolResponse(data)
    )
      return;
    for (const i of this.handler.chain()) {
      if (i.inbound && i.inbound(this, data) === false) return;
    }
    if (this.messageListeners) for (const l of [...this.messageListeners]) guard(() => l(data), this.runtime.log);
    const h = this.handler.handler;
    if (h.message) {
      guard(() => h.message!(this, data), this.runtime.log);
    } else if (this.home !== null) {
      this.runtime.broadcasters.lookup(this.home)?.broadcast(data);
    }
  }

  /**
   * A `tool-response` frame from an fw client: it goes to the bridge listeners only, never to
   * the handler or a broadcaster, whether or not a pending call claims it.
   */
  receiveToolResponse(data: string): void {
    if (this.closed) return;
    this.heard = true;
    if (this.toolResponseListeners !== undefined) this.offerToolResponse(data);
  }

  private offerToolResponse(data: string): boolean {
    for (const l of [...this.toolResponseListeners!]) {
      try {
        if (l(data)) return true;
      } catch (err) {
        this.runtime.log.error({ err }, 'tool-response listener failed');
      }
    }
    return false;
  }

  /**
   * Tells the client it misses messages: a `gap` frame at the current place in its stream (before
   * the next message), kept for a resume until the resume buffer moves past it.
   */
  gap(gap: Gap): void {
    if (this.closed) return;
    const rt = this.runtime;
    rt.counters.gaps++;
    if (gap.lost !== undefined) rt.counters.lost += gap.lost;
    if (this.recovery !== undefined) this.recovery.gaps++;
    if (this.protocol === 'fw') this.mark(encodeGap(gap), true);
  }

  /**
   * Messages `from`…`to` of a broadcaster's live stream will never reach this node's members (a
   * cluster broadcast that never arrived). A resource catching up on that broadcaster accounts for
   * them itself, so they are not said blindly: while its replay-store read is under way the gap
   * waits with the held live messages (the replay may bring those messages back: a gap for them
   * would be false), and once a replay went past what this node had delivered, the part it covered
   * (replayed, or said lost already) is not said again.
   */
  liveGap(gap: Gap): void {
    const held = gap.b === undefined ? undefined : this.holding?.get(gap.b);
    if (held === undefined || gap.from === undefined || gap.to === undefined) return this.gap(gap);
    if (typeof held !== 'number') {
      held.push(gap);
      return;
    }
    if (gap.to <= held) return;
    const from = Math.max(gap.from, held + 1);
    this.gap({ ...gap, from, lost: gap.to - from + 1 });
  }

  /** A (re)connection starts recovering: gaps from here until `endRecovery` make `recovered` false. */
  beginRecovery(): void {
    this.recovery ??= { gaps: 0, pending: 0 };
  }

  /** A replay-store read the recovery must wait for. */
  recoveryPending(delta: 1 | -1): void {
    if (this.recovery === undefined) return;
    this.recovery.pending += delta;
    if (delta < 0) this.endRecovery();
  }

  /** Sends the recovery summary (`{"t":"rec","recovered":…}`) once nothing is pending any more. */
  endRecovery(): void {
    const rec = this.recovery;
    if (rec === undefined || rec.pending > 0) return;
    this.recovery = undefined;
    if (this.protocol === 'fw') this.mark(encodeRecovery(rec.gaps === 0), false);
  }

  /**
   * Holds this broadcaster's live messages back while the older part of its stream is read from
   * the replay store; `release` delivers them after the replayed ones.
   */
  holdBroadcaster(broadcaster: string): void {
    (this.holding ??= new Map()).set(broadcaster, []);
  }

  /** Ends a hold, returning what was held (to deliver after the replay with `deliverHeld`). */
  endHold(broadcaster: string): (Outgoing | Gap)[] {
    const held = this.holding?.get(broadcaster);
    if (held === undefined) return [];
    this.holding!.delete(broadcaster);
    if (this.holding!.size === 0) this.holding = undefined;
    return typeof held === 'number' ? [] : held;
  }

  /**
   * A replay went up to `upTo`, past what this node's broadcaster has delivered: its live copies of
   * those sequences are still on their way here and are dropped (they were replayed from the
   * store, or said lost), until the first newer one.
   */
  skipRepeats(broadcaster: string, upTo: number): void {
    (this.holding ??= new Map()).set(broadcaster, upTo);
  }

  /**
   * Delivers held live messages newer than `after`, in order; a jump past `after` + 1 is a gap. A
   * held live gap is said for the part the replay did not cover.
   */
  deliverHeld(broadcaster: string, held: readonly (Outgoing | Gap)[], after: number): void {
    let last = after;
    for (const out of held) {
      if (!(out instanceof Outgoing)) {
        if (out.to === undefined || out.to <= last) continue;
        const from = Math.max(out.from ?? last + 1, last + 1);
        this.gap({ ...out, from, lost: out.to - from + 1 });
        last = out.to;
        continue;
      }
      if (out.bid !== undefined && out.bid <= last) continue;
      if (out.bid !== undefined && out.bid > last + 1) {
        this.gap({ b: broadcaster, from: last + 1, to: out.bid - 1, lost: out.bid - 1 - last, reason: 'replay-window-exceeded' });
      }
      this.deliver(out);
      if (out.bid !== undefined) last = out.bid;
    }
  }

  private hold(out: Outgoing): boolean {
    const held = this.holding!.get(out.broadcaster!);
    if (held === undefined) return false;
    if (typeof held !== 'number') {
      held.push(out);
      return true;
    }
    if (out.bid !== undefined && out.bid <= held) return true; // a repeat (see skipRepeats)
    if (out.bid !== undefined) this.endHold(out.broadcaster!);
    return false;
  }

  private mark(frame: string, keep: boolean): void {
    if (this.seat !== undefined) this.settle();
    const at = this.ring.next;
    (this.marks ??= []).push({ at, frame, sent: false, keep });
    if (this.connection !== undefined && !this.scheduled) {
      this.scheduled = true;
      this.runtime.flushQueue.add(this);
    }
  }

  /**
   * Remembers a slow-consumer drop; consecutive drops of one broadcaster make one gap. The gap is
   * announced before the next message delivered, or when the connection drains, or after
   * `fw.slow-consumer.gap-delay` at the latest: a quiet room must not leave the drops unsaid.
   */
  private noteDrop(out: Outgoing, conn: Connection): void {
    if (this.drops === undefined) this.awaitDropAnnouncement(conn);
    const drops = (this.drops ??= []);
    const b = out.broadcaster;
    const bid = out.bid;
    const last = drops.at(-1);
    if (last !== undefined && last.b === (bid === undefined ? undefined : b) && (bid === undefined || last.to === bid - 1)) {
      last.lost!++;
      if (bid !== undefined) last.to = bid;
    } else {
      drops.push(
        bid === undefined
          ? { lost: 1, reason: 'slow-consumer-dropped' }
          : { lost: 1, reason: 'slow-consumer-dropped', b, from: bid, to: bid },
      );
    }
    if (b !== undefined) {
      const owner = this.runtime.broadcasters.lookup(b);
      if (owner !== undefined) owner.lost++;
    }
  }

  /** The first drop of a run: its gap goes out at the connection's drain, or when the bound passes. */
  private awaitDropAnnouncement(conn: Connection): void {
    const extras = this.more();
    if (extras.dropTimer === undefined) {
      extras.dropTimer = this.runtime.timers.timeout(() => {
        extras.dropTimer = undefined;
        if (this.drops !== undefined && !this.closed) this.announceDrops();
      }, this.runtime.settings.gapDelay);
    }
    // One listener per connection at most, however many runs of drops it sees.
    if ((this.flags & DRAIN_AWAITED) !== 0) return;
    this.flags |= DRAIN_AWAITED;
    conn.onDrain(() => {
      this.flags &= ~DRAIN_AWAITED;
      if (this.connection === conn && this.drops !== undefined && !this.closed) this.announceDrops();
    });
  }

  /** The drops are counted already (`dropped`): only the client is told. */
  private announceDrops(): void {
    const drops = this.drops!;
    this.drops = undefined;
    const extras = this.extras;
    if (extras?.dropTimer !== undefined) {
      this.runtime.timers.clear(extras.dropTimer);
      extras.dropTimer = undefined;
    }
    if (this.recovery !== undefined) this.recovery.gaps += drops.length;
    if (this.protocol === 'fw') for (const g of drops) this.mark(encodeGap(g), true);
  }

  /** The resource holds a place of `fw.connections.*` (taken by the endpoint); it gives it back when it ends. */
  holdsShare(): void {
    this.flags |= SHARED;
  }

  /**
   * Watches the credential the resource was opened (or last resumed) with: when it expires or is
   * revoked (`fw.credentials`), the connection closes (see `credentialEnded`). Anonymous: nothing.
   */
  watchCredential(): void {
    const principal = this.principal;
    if (principal === undefined) return;
    const extras = this.more();
    extras.unwatch?.();
    extras.unwatch = this.runtime.credentials.watch(principal, (why) => this.credentialEnded(why));
  }

  /**
   * A resume or a long-poll came with `principal` (the same id: the endpoint checked): a renewed
   * credential replaces the old one and is watched instead. An anonymous resource stays anonymous.
   */
  renewCredential(principal: Principal | undefined): void {
    const old = this.principal;
    if (old === undefined || principal === undefined || principal === old) return;
    if (this.extras?.unwatch !== undefined && expiryOf(principal) === expiryOf(old)) return;
    this.principal = principal;
    this.watchCredential();
  }

  /**
   * The credential stopped being good. An fw client's connection is closed on purpose with the
   * reason (a `close` frame; WebSocket code 1008), but the resource is kept for
   * `fw.resume.grace`: a client that gets a new credential resumes with it, without losing a
   * message; one that cannot stops there. A raw client's resource ends with its connection.
   */
  private credentialEnded(why: CredentialEnd): void {
    const extras = this.extras;
    if (extras !== undefined) extras.unwatch = undefined;
    if (this.closed) return;
    const hook = this.handler.handler.credentialEnded;
    if (hook) guard(() => hook.call(this.handler.handler, this, why), this.runtime.log);
    if (this.closed) return; // the handler ended it
    const reason = why === 'expired' ? CredentialReason.expired : CredentialReason.revoked;
    if (this.protocol === 'raw') {
      this.close(reason, CloseCode.policyViolation);
      return;
    }
    this.flush();
    const conn = this.connection;
    if (conn === undefined) return; // between polls, or already dropped: the next request is authenticated anew
    this.detach(conn, reason);
    conn.closeWith(reason, CloseCode.policyViolation);
  }

  /** Called by the heartbeat interceptor's sweep. */
  heartbeat(): void {
    if (this.connection === undefined) return;
    // A cohort's member is not told each broadcast: the cohort's last one says it was written to.
    if (this.seat !== undefined && Date.now() - this.seat.cohort.lastAt < this.runtime.settings.heartbeat) return;
    if (this.wrote) {
      this.wrote = false;
      return;
    }
    this.connection.heartbeat();
  }

  onMessage(listener: (data: string) => void): () => void {
    (this.messageListeners ??= []).push(listener);
    return () => remove(this.messageListeners, listener);
  }

  onToolResponse(listener: (data: string) => boolean): () => void {
    (this.toolResponseListeners ??= []).push(listener);
    return () => {
      remove(this.toolResponseListeners, listener);
      if (this.toolResponseListeners?.length === 0) this.toolResponseListeners = undefined;
    };
  }

  onClose(listener: (reason: string) => void): () => void {
    (this.closeListeners ??= []).push(listener);
    return () => remove(this.closeListeners, listener);
  }

  /** The end of the resource: it leaves its broadcasters and the registry; everyone is told once. */
  terminate(reason: string): void {
    if (this.closed) return;
    this.flags |= CLOSED;
    const rt = this.runtime;
    if (this.graceTimer !== undefined) {
      rt.timers.clear(this.graceTimer);
      this.graceTimer = undefined;
    }
    const conn = this.connection;
    this.connection = undefined;
    if (conn) conn.resource = undefined;
    if ((this.flags & SHARED) !== 0) rt.connections.giveBack({ principal: this.principal, address: this.remoteAddress });
    const extras = this.extras;
    if (extras !== undefined) {
      extras.unwatch?.();
      extras.unwatch = undefined;
      rt.timers.clear(extras.dropTimer);
      extras.dropTimer = undefined;
    }
    for (const id of this.broadcasters) rt.broadcasters.lookup(id)?.remove(this);
    rt.resources.remove(this);
    this.handler.resourceCount--;
    for (const i of this.handler.chain()) if (i.detach) guard(() => i.detach!(this), this.runtime.log);
    if (this.cleanups) for (const c of this.cleanups.splice(0)) guard(c, this.runtime.log);
    if (this.handler.handler.close) guard(() => this.handler.handler.close!(this, reason), this.runtime.log);
    if (this.closeListeners) for (const l of this.closeListeners.splice(0)) guard(() => l(reason), this.runtime.log);
    this.messageListeners = undefined;
    this.toolResponseListeners = undefined;
    this.ring.release();
    rt.events.emit('ResourceDisconnected', { uuid: this.uuid, reason });
  }
}

function writeMark(conn: Connection, m: Mark): void {
  if (m.sent) return;
  m.sent = true;
  conn.control(m.frame);
}

function remove<T>(list: T[] | undefined, item: T): void {
  const i = list ? list.indexOf(item) : -1;
  if (i >= 0) list!.splice(i, 1);
}

/** Application callbacks never break the runtime: errors (sync or async) are logged. */
export function guard(fn: () => unknown, log: Logger): void {
  try {
    const r = fn() as Promise<unknown> | undefined;
    if (r && typeof r.then === 'function') r.then(undefined, (err: unknown) => log.error({ err }, 'handler failed'));
  } catch (err) {
    log.error({ err }, 'handler failed');
  }
}
