/**
 * A message encoded once, whoever receives it. The fw frame of a message is
 * `{"t":"m","id":<id>` + tail, where only `<id>` differs between recipients, so the tail (with the
 * JSON-escaped payload, broadcaster id and broadcaster sequence) is built once, lazily, and shared.
 * Raw encodings (the payload bytes, SSE data lines) are likewise built at most once.
 */
export const FRAME_HEAD = '{"t":"m","id":';

export class Outgoing {
  private tail: string | undefined;
  private raw: Buffer | undefined;
  private sse: string | undefined;

  constructor(
    readonly payload: string,
    /** Broadcaster id and sequence: both absent for unicast, no sequence for a subset broadcast (never replayed). */
    readonly broadcaster?: string,
    readonly bid?: number,
  ) {}

  static from(message: string | object, broadcaster?: string, bid?: number): Outgoing {
    return new Outgoing(typeof message === 'string' ? message : JSON.stringify(message), broadcaster, bid);
  }

  /** The fw message frame for one recipient. */
  frame(id: number): string {
    this.tail ??= `,"d":${JSON.stringify(this.payload)}` +
      (this.broadcaster === undefined ? '}'
        : this.bid === undefined ? `,"b":${JSON.stringify(this.broadcaster)}}`
        : `,"b":${JSON.stringify(this.broadcaster)},"bid":${this.bid}}`);
    return FRAME_HEAD + id + this.tail;
  }

  /** The payload as UTF-8 bytes (raw WebSocket frames), shared by all recipients. */
  bytes(): Buffer {
    return (this.raw ??= Buffer.from(this.payload, 'utf8'));
  }

  /** SSE `data:` lines for a raw client: a payload with newlines becomes several lines. */
  sseData(): string {
    return (this.sse ??= `data: ${this.payload.split(/\r\n|\r|\n/).join('\ndata: ')}\n`);
  }
}
