import type { SseStream } from './sse.js';

/**
 * Resumability of Streamable HTTP (MCP 2025-03-26 … 2025-11-25, basic/transports, "Resumability
 * and Redelivery"): every SSE stream of a session (a POST's, or the standalone GET stream) is a
 * ReplayableStream that outlives the HTTP connection carrying it. Its events get ids
 * `<stream>-<seq>`: unique across all streams of the session, and naming the stream, so a
 * `Last-Event-ID` on a GET finds the stream it came from and replays only that stream's events
 * after it (never another stream's, as the spec requires).
 *
 * The events are kept in one bounded buffer per session (`fw.mcp.replay-buffer` events across all
 * of its streams, oldest dropped first). A stream is forgotten once it is finished and none of its
 * events are held any more.
 */
export class ReplayableStream {
  private seq = 0;
  /** Events held for replay, oldest first. */
  readonly held: { seq: number; data: string }[] = [];
  connection: SseStream | undefined;
  /** Nothing more will be written to it (all answers sent, cancelled, or replaced). */
  finished = false;
  /** Called when the connection goes (to drop its keep-alive and polling timer). */
  private detachConnection: (() => void) | undefined;

  constructor(
    readonly no: number,
    readonly kind: 'post' | 'standalone',
    private readonly log: SessionReplayLog,
  ) {}

  /** The id of the last event written (or of the priming position, `<no>-0`). */
  get lastId(): string {
    return `${this.no}-${this.seq}`;
  }

  /** How many events were written to it. */
  get written(): number {
    return this.seq;
  }

  /** Writes a message: onto the connection if there is one, into the replay buffer always. */
  send(message: unknown): boolean {
    if (this.finished) return false;
    const data = JSON.stringify(message);
    const seq = ++this.seq;
    this.log.hold(this, seq, data);
    this.connection?.event(data, `${this.no}-${seq}`);
    return true;
  }

  /**
   * Puts the stream on a (new) connection, replaying the held events after `afterSeq` first. A
   * finished stream ends the connection once the replay is written.
   */
  attach(conn: SseStream, afterSeq: number, onDetach: () => void, primeRetryMs?: number): void {
    // A resume while the old connection still looks open: the client has given up on it.
    this.detach(true);
    this.connection = conn;
    this.detachConnection = onDetach;
    for (const e of this.held) if (e.seq > afterSeq) conn.event(e.data, `${this.no}-${e.seq}`);
    // Priming (2025-11-25): an id and a retry hint before anything else may happen, so that the
    // client can come back to this stream even if this connection carries no event. On a resume
    // it names the position reached after the replay.
    if (primeRetryMs !== undefined) conn.prime(this.lastId, primeRetryMs);
    if (this.finished) this.detach(true);
  }

  /** The connection is gone (or is ended here with `end`); the stream stays resumable. */
  detach(end = false): void {
    const conn = this.connection;
    if (!conn) return;
    this.connection = undefined;
    const done = this.detachConnection;
    this.detachConnection = undefined;
    done?.();
    if (end) conn.end();
    this.log.forgetIfDone(this);
  }

  /** Connection-level close without ending the stream (SSE polling): the client comes back with Last-Event-ID. */
  release(retryMs: number): void {
    this.connection?.retry(retryMs);
    this.detach(true);
  }

  /** No more events: the connection (if any) ends, the held events stay for a late resume. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.connection) this.detach(true);
    else this.log.forgetIfDone(this);
  }

  /** Whether events after `seq` could have been dropped from the buffer before the client saw them. */
  hasGapAfter(seq: number): boolean {
    const first = this.held[0];
    return first ? first.seq > seq + 1 : this.seq > seq;
  }
}

/** The replay buffer of one session: its streams by number, and its held events in write order. */
export class SessionReplayLog {
  private nextNo = 0;
  private readonly streams = new Map<number, ReplayableStream>();
  private readonly order: ReplayableStream[] = [];
  /** Events dropped from the buffer to stay within capacity. */
  dropped = 0;

  constructor(private readonly capacity: number) {}

  open(kind: 'post' | 'standalone'): ReplayableStream {
    const s = new ReplayableStream(++this.nextNo, kind, this);
    this.streams.set(s.no, s);
    return s;
  }

  /**
   * Parses a `Last-Event-ID`: the stream it names and the sequence within it; `finished` for a
   * stream of this session that is over and forgotten (nothing of it is held any more); undefined
   * for an id this session never issued.
   */
  find(lastEventId: string): { stream: ReplayableStream; seq: number } | 'finished' | undefined {
    const m = /^(\d{1,9})-(\d{1,12})$/.exec(lastEventId.trim());
    if (!m) return undefined;
    const no = Number(m[1]);
    const seq = Number(m[2]);
    const stream = this.streams.get(no);
    if (!stream) return no >= 1 && no <= this.nextNo ? 'finished' : undefined;
    return seq <= stream.written ? { stream, seq } : undefined;
  }

  hold(stream: ReplayableStream, seq: number, data: string): void {
    if (this.capacity <= 0) return;
    stream.held.push({ seq, data });
    this.order.push(stream);
    while (this.order.length > this.capacity) {
      const oldest = this.order.shift()!;
      oldest.held.shift();
      this.dropped++;
      this.forgetIfDone(oldest);
    }
  }

  forgetIfDone(stream: ReplayableStream): void {
    if (stream.finished && !stream.connection && stream.held.length === 0) this.streams.delete(stream.no);
  }

  get size(): number {
    return this.order.length;
  }

  get streamCount(): number {
    return this.streams.size;
  }

  /** Every stream with a connection (for the idle check and for closing). */
  connected(): ReplayableStream[] {
    return [...this.streams.values()].filter((s) => s.connection !== undefined);
  }

  close(): void {
    for (const s of [...this.streams.values()]) {
      s.finished = true;
      s.detach(true);
    }
    this.streams.clear();
    this.order.length = 0;
  }
}
