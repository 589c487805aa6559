/** The fw protocol frames (docs/protocol.md), decoded and checked. */
import { ClientError } from './errors.js';

export type TransportName = 'websocket' | 'sse' | 'long-polling' | 'streaming';

export interface HandshakeFrame { t: 'hs'; uuid: string; transport: TransportName; heartbeat: number; resumed: boolean; epoch?: string }
/** `b`/`bid`: broadcaster and its sequence; a unicast has neither, a subset broadcast no `bid`. */
export interface MessageFrame { t: 'm'; id: number; d: string; b?: string; bid?: number }
/** A bidirectional-tool-bridge call: `d` is the §2.4 `tool-call` JSON; `id` is in the message sequence. */
export interface ToolCallFrame { t: 'tool-call'; id: number; d: string }
export interface HeartbeatFrame { t: 'hb' }
/** Why messages are missing (docs/protocol.md, the `gap` frame); a newer server may name other reasons. */
export type GapReason =
  | 'replay-window-exceeded'
  | 'server-restarted'
  | 'grace-expired'
  | 'slow-consumer-dropped'
  | 'cluster-link-lost';

/**
 * Messages the client will not get. With `b`, `from`…`to` are that broadcaster's sequences
 * (`bid`); without it, the resource's own message ids. `lost` (the count) or the range may be
 * absent when the server cannot know them (a restarted server without a durable store).
 */
export interface Gap {
  reason: GapReason | (string & {});
  lost?: number;
  b?: string;
  from?: number;
  to?: number;
}
export interface GapFrame extends Gap { t: 'gap' }
/** After a resume or a `since` replay: whether the client now has everything it missed. */
export interface RecoveryFrame { t: 'rec'; recovered: boolean }
export interface CloseFrame { t: 'close'; reason: string }
export type ServerFrame = HandshakeFrame | MessageFrame | ToolCallFrame | HeartbeatFrame | GapFrame | RecoveryFrame | CloseFrame;

/** A client → server heartbeat over WebSocket. */
export const HEARTBEAT = '{"t":"hb"}';

/** What an upstream text is: an application message, or a bridge answer (docs/protocol.md). */
export type UpstreamKind = 'm' | 'tool-response';

/** A client → server frame over WebSocket (HTTP transports POST the text itself, `frame=` saying which). */
export function encodeMessage(data: string, kind: UpstreamKind = 'm'): string {
  return JSON.stringify({ t: kind, d: data });
}

const TRANSPORTS = new Set<string>(['websocket', 'sse', 'long-polling', 'streaming']);

function bad(text: string): ClientError {
  return new ClientError('protocol_error', `not an fw frame: ${text.length > 80 ? text.slice(0, 80) + '…' : text}`);
}

/**
 * Decodes one frame. Unknown frame types return undefined so that a newer server can add frames
 * without breaking older clients; anything malformed is a protocol_error.
 */
export function parseFrame(text: string): ServerFrame | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw bad(text);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(text);
  return checkFrame(v as Record<string, unknown>, text);
}

export function checkFrame(f: Record<string, unknown>, text = JSON.stringify(f)): ServerFrame | undefined {
  switch (f.t) {
    case 'm':
      if (!Number.isSafeInteger(f.id) || typeof f.d !== 'string') throw bad(text);
      // A subset broadcast names its broadcaster but has no sequence (it is never replayed).
      if (f.b !== undefined && typeof f.b !== 'string') throw bad(text);
      if (f.bid !== undefined && (f.b === undefined || !Number.isSafeInteger(f.bid))) throw bad(text);
      return f as unknown as MessageFrame;
    case 'tool-call':
      if (!Number.isSafeInteger(f.id) || typeof f.d !== 'string') throw bad(text);
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
      };
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
    default:
      if (typeof f.t !== 'string') throw bad(text);
      return undefined;
  }
}
