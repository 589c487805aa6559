/**
 * Encoders. The server's hot path builds message frames from two fixed heads and a per-broadcast
 * tail (`@fw/runtime`'s Outgoing): only the id digits differ between recipients, so the heads are
 * exported as strings rather than built per frame.
 */
import type { Gap, GapReason, HandshakeFrame, RefusalReason, RoomMember, UpstreamKind } from './frames.js';

/** `{"t":"m","id":` — the head of a message frame; the id, then the encoded tail follow. */
export const MESSAGE_FRAME_HEAD = '{"t":"m","id":';

/** `{"t":"tool-call","id":` — the head of a tool-bridge call frame. */
export const TOOL_CALL_FRAME_HEAD = '{"t":"tool-call","id":';

/**
 * `{"t":"m"` — the head of a message frame without its id (an implicit id, docs/protocol.md): the
 * same bytes for every recipient, so a broadcast's frame is built once and shared.
 */
export const SHARED_MESSAGE_FRAME_HEAD = '{"t":"m"';

/**
 * `{"t":"s"` — the head of a sequel frame (docs/protocol.md, *Implicit ids*): the next broadcast
 * of the broadcaster of the last sequenced broadcast on the connection, without id, `b` or `bid`,
 * so that a broadcast to clients in step is its payload and 16 bytes.
 */
export const SEQUEL_FRAME_HEAD = '{"t":"s"';

/** `{"t":"tool-call"` — a tool-bridge call frame without its id. */
export const SHARED_TOOL_CALL_FRAME_HEAD = '{"t":"tool-call"';

/** The heartbeat frame, sent by both sides. */
export const HEARTBEAT_FRAME = '{"t":"hb"}';

/**
 * Written by hand, in the order of `HandshakeFrame`: one goes out per connection, and an object
 * spread plus `JSON.stringify` of it was the largest part of opening a resource. Strings are
 * still JSON-encoded (the uuid and epoch are the server's, but nothing here trusts that).
 */
export function encodeHandshake(frame: Omit<HandshakeFrame, 't'>): string {
  let s = `{"t":"hs","uuid":${JSON.stringify(frame.uuid)},"transport":${JSON.stringify(frame.transport)},"heartbeat":${jsonNumber(frame.heartbeat)},"resumed":${frame.resumed === true}`;
  if (frame.epoch !== undefined) s += `,"epoch":${JSON.stringify(frame.epoch)}`;
  if (frame.ack !== undefined) s += `,"ack":${jsonNumber(frame.ack)}`;
  return `${s}}`;
}

/** A number as JSON has it (`null` for NaN and the infinities, as `JSON.stringify` writes them). */
function jsonNumber(n: number): string {
  return Number.isFinite(n) ? String(n) : 'null';
}

export function encodeGap(gap: Gap<GapReason>): string {
  return JSON.stringify({ t: 'gap', ...gap });
}

export function encodeRecovery(recovered: boolean): string {
  return recovered ? '{"t":"rec","recovered":true}' : '{"t":"rec","recovered":false}';
}

export function encodeClose(reason: string): string {
  return JSON.stringify({ t: 'close', reason });
}

/** The server shuts down: reconnect (elsewhere) and resume. */
export function encodeReconnect(reason: string): string {
  return JSON.stringify({ t: 'reconnect', reason });
}

/** A client → server frame over WebSocket; `seq` numbers it for deduplication (absent: not numbered). */
export function encodeUpstream(data: string, kind: UpstreamKind = 'm', seq?: number): string {
  return JSON.stringify({ t: kind, d: data, s: seq });
}

/** Client messages up to `seq` taken (WebSocket). */
export function encodeAck(seq: number): string {
  return `{"t":"ack","s":${seq}}`;
}

/** A member joined or left room `room`. */
export function encodePresence(room: string, ev: 'join' | 'leave', member: RoomMember): string {
  return JSON.stringify({ t: 'presence', b: room, ev, m: member });
}

/** The members of `room` (at most the listed ones) and how many there are. */
export function encodeMembers(room: string, members: readonly RoomMember[], total: number): string {
  return JSON.stringify({ t: 'members', b: room, m: members, total });
}

/** The room refused a publish; `retryAfter` in ms when rate limited. */
export function encodeRefused(room: string, reason: RefusalReason, retryAfter?: number): string {
  return JSON.stringify({ t: 'refused', b: room, action: 'publish', reason, retryAfter });
}
