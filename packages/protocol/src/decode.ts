/** Decoders, for each direction. Both check shapes: a peer's frame is untrusted input. */
import type { ClientFrame, GapFrame, MessageFrame, ServerFrame, TransportName } from './frames.js';

/** Text that is not an fw frame. `code` matches the client's error code for it. */
export class ProtocolError extends Error {
  readonly code = 'protocol_error';
}

const TRANSPORTS = new Set<string>(['websocket', 'sse', 'long-polling', 'streaming']);

function bad(text: string): ProtocolError {
  return new ProtocolError(`not an fw frame: ${text.length > 80 ? `${text.slice(0, 80)}…` : text}`);
}

function parseObject(text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw bad(text);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(text);
  return v as Record<string, unknown>;
}

/**
 * The numbering of one connection opened with `ids=implicit` (docs/protocol.md, *Implicit ids*):
 * a message or tool-call frame without `id` takes the id after the previous numbered frame's. The
 * first numbered frame on a connection always carries its id. A sequel frame (`s`) is a message
 * of the broadcaster of the last sequenced broadcast on the connection (`b`), with the sequence
 * after its (`bid`). One per connection: `{ last: 0 }`.
 */
export interface ImplicitIds {
  /** The id of the last numbered frame on this connection (0: none yet). */
  last: number;
  /** The broadcaster and sequence of the last message on this connection that had both. */
  b?: string;
  bid?: number;
}

/** The frame's id, given or implied (not a safe integer when neither: a malformed frame). */
function numbered(f: Record<string, unknown>, ids: ImplicitIds | undefined): unknown {
  const id = f.id ?? (ids?.last || Number.NaN) + 1;
  if (ids !== undefined && Number.isSafeInteger(id)) ids.last = id as number;
  return (f.id = id);
}

/**
 * Decodes one server frame. Unknown frame types return undefined so that a newer server can add
 * frames without breaking older clients; anything malformed throws a ProtocolError. `ids`: the
 * connection's implicit numbering, where it asked for it.
 */
export function parseServerFrame(text: string, ids?: ImplicitIds): ServerFrame | undefined {
  return checkServerFrame(parseObject(text), text, ids);
}

/** Checks an already parsed server frame (long-polling answers are JSON arrays of them). */
export function checkServerFrame(f: Record<string, unknown>, text = JSON.stringify(f), ids?: ImplicitIds): ServerFrame | undefined {
  switch (f.t) {
    case 'm':
      if (!Number.isSafeInteger(numbered(f, ids)) || typeof f.d !== 'string') throw bad(text);
      // A subset broadcast names its broadcaster but has no sequence (it is never replayed).
      if (f.b !== undefined && typeof f.b !== 'string') throw bad(text);
      if (f.bid !== undefined && (f.b === undefined || !Number.isSafeInteger(f.bid))) throw bad(text);
      if (ids !== undefined && f.bid !== undefined) {
        ids.b = f.b as string;
        ids.bid = f.bid as number;
      }
      return f as unknown as MessageFrame;
    case 's':
      // A sequel: only where the client numbers frames and a sequenced broadcast came before it.
      if (ids?.bid === undefined || typeof f.d !== 'string' || f.b !== undefined || f.bid !== undefined) throw bad(text);
      if (!Number.isSafeInteger(numbered(f, ids))) throw bad(text);
      ids.bid++;
      return { t: 'm', id: f.id as number, d: f.d, b: ids.b!, bid: ids.bid };
    case 'tool-call':
      if (!Number.isSafeInteger(numbered(f, ids)) || typeof f.d !== 'string') throw bad(text);
      return { t: 'tool-call', id: f.id as number, d: f.d };
    case 'hb':
      return { t: 'hb' };
    case 'hs':
      if (typeof f.uuid !== 'string' || typeof f.transport !== 'string' || !TRANSPORTS.has(f.transport)) throw bad(text);
      return {
        t: 'hs',
        uuid: f.uuid,
        transport: f.transport as TransportName,
        heartbeat: typeof f.heartbeat === 'number' && f.heartbeat > 0 ? f.heartbeat : 0,
        resumed: f.resumed === true,
        ...(typeof f.epoch === 'string' ? { epoch: f.epoch } : {}),
        ...(isSeq(f.ack, true) ? { ack: f.ack } : {}),
      };
    case 'ack':
      if (!isSeq(f.s, true)) throw bad(text);
      return { t: 'ack', s: f.s };
    case 'gap': {
      const gap: GapFrame = { t: 'gap', reason: typeof f.reason === 'string' ? f.reason : 'replay-window-exceeded' };
      if (Number.isSafeInteger(f.lost)) gap.lost = f.lost as number;
      if (typeof f.b === 'string') gap.b = f.b;
      if (Number.isSafeInteger(f.from)) gap.from = f.from as number;
      if (Number.isSafeInteger(f.to)) gap.to = f.to as number;
      return gap;
    }
    case 'rec':
      return { t: 'rec', recovered: f.recovered === true };
    case 'close':
      return { t: 'close', reason: typeof f.reason === 'string' ? f.reason : '' };
    case 'reconnect':
      return { t: 'reconnect', reason: typeof f.reason === 'string' ? f.reason : '' };
    default:
      if (typeof f.t !== 'string') throw bad(text);
      return undefined;
  }
}

/** A client message sequence number: a positive safe integer (0 too where `zero`: "none yet"). */
export function isSeq(value: unknown, zero = false): value is number {
  return Number.isSafeInteger(value) && (value as number) >= (zero ? 0 : 1);
}

/**
 * Decodes one client frame received over WebSocket (`m`, `tool-response` or `hb`); undefined for
 * anything else (a sequence number `s` that is not a positive integer included), which the
 * server answers by closing with 1007.
 */
export function parseClientFrame(text: string): ClientFrame | undefined {
  let f: { t?: unknown; d?: unknown; s?: unknown };
  try {
    f = JSON.parse(text) as { t?: unknown; d?: unknown; s?: unknown };
  } catch {
    return undefined;
  }
  if (typeof f !== 'object' || f === null) return undefined;
  if (f.t === 'hb') return { t: 'hb' };
  if ((f.t === 'm' || f.t === 'tool-response') && typeof f.d === 'string') {
    if (f.s === undefined) return { t: f.t, d: f.d };
    return isSeq(f.s) ? { t: f.t, d: f.d, s: f.s } : undefined;
  }
  return undefined;
}

/** The `frame=` query parameter of an HTTP POST: which upstream kind its body is. */
export function isUpstreamKind(value: unknown): value is 'm' | 'tool-response' {
  return value === 'm' || value === 'tool-response';
}
