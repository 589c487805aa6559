/**
 * The fw wire protocol (docs/protocol.md): every frame both sides exchange, defined once for the
 * server (`@fw/runtime`) and the client (`@fw/client`). A frame is a JSON object whose `t` names
 * its kind; a newer peer may add kinds, which an older one ignores.
 */

export type TransportName = 'websocket' | 'sse' | 'long-polling' | 'streaming';

/** The first frame on every connection: the resource's id, and whether a resume was accepted. */
export interface HandshakeFrame {
  t: 'hs';
  uuid: string;
  transport: TransportName;
  /** Heartbeat interval in ms (0: none). */
  heartbeat: number;
  resumed: boolean;
  /** The server's epoch: it changes when a server restarts without a durable replay store. */
  epoch?: string;
  /**
   * The sequence number (`s`) of the last client message this resource has taken (0: none). A
   * server that sends it deduplicates numbered client messages and acknowledges them (`ack`);
   * the client resends what is above it and forgets what is not. Absent: an older server.
   */
  ack?: number;
}

/**
 * An application message. `id` numbers the resource's messages (the resume cursor); `b`/`bid`
 * name the broadcaster and its sequence (a unicast has neither, a subset broadcast no `bid`).
 * On a WebSocket opened with `ids=implicit` the server may leave `id` out when it is the previous
 * numbered frame's id + 1 (docs/protocol.md, *Implicit ids*), and send the next broadcast of the
 * same broadcaster as a sequel frame (`{"t":"s","d":…}`) without `b` and `bid`; the decoder puts
 * them back (`ImplicitIds`), so a decoded frame always has its id and a sequel is an `m`.
 */
export interface MessageFrame {
  t: 'm';
  id: number;
  d: string;
  b?: string;
  bid?: number;
}

/** A bidirectional-tool-bridge call: `d` is the `tool-call` JSON; `id` is in the message sequence. */
export interface ToolCallFrame {
  t: 'tool-call';
  id: number;
  d: string;
}

export interface HeartbeatFrame {
  t: 'hb';
}

/** Why messages are missing (the `gap` frame); a newer server may name other reasons. */
export type GapReason = 'replay-window-exceeded' | 'server-restarted' | 'grace-expired' | 'slow-consumer-dropped' | 'cluster-link-lost';

/**
 * Messages the client will not get. With `b`, `from`…`to` are that broadcaster's sequences
 * (`bid`); without it, the resource's own message ids. `lost` (the count) or the range may be
 * absent when the server cannot know them (a restarted server without a durable store). A server
 * sends one of the reasons it knows (`Gap<GapReason>`); a client accepts any, since a newer
 * server may name others.
 */
export interface Gap<Reason extends string = GapReason | (string & {})> {
  reason: Reason;
  lost?: number;
  b?: string;
  from?: number;
  to?: number;
}

export interface GapFrame extends Gap {
  t: 'gap';
}

/** After a resume or a `since` replay: whether the client now has everything it missed. */
export interface RecoveryFrame {
  t: 'rec';
  recovered: boolean;
}

/** The server ended the resource on purpose; the client does not reconnect. */
export interface CloseFrame {
  t: 'close';
  reason: string;
}

/**
 * The server is shutting down (`fw.close()`): the stream ends right after, and the client
 * reconnects with backoff and resumes — to another node behind the balancer, or to this one once
 * it is back. The HTTP transports' counterpart of the WebSocket close code 1012.
 */
export interface ReconnectFrame {
  t: 'reconnect';
  reason: string;
}

/**
 * Client messages up to sequence number `s` (inclusive) have been taken by the server, each once
 * (WebSocket only: over the HTTP transports the answer to a POST is its acknowledgement).
 */
export interface AckFrame {
  t: 'ack';
  s: number;
}

/**
 * One member of a room (docs/rooms.md): `id` is its resource's uuid (a virtual member's own id),
 * `principal` who it is (null: anonymous), `meta` what the server set from the principal merged
 * with what the client asked for within the room's limits (the server's keys win).
 */
export interface RoomMember {
  id: string;
  principal: string | null;
  meta: Record<string, unknown>;
  /** Epoch milliseconds. */
  joinedAt: number;
}

/** A member joined or left the room `b` (sent to the members that may see presence). */
export interface PresenceFrame {
  t: 'presence';
  b: string;
  ev: 'join' | 'leave';
  m: RoomMember;
}

/**
 * The members of room `b` when the resource joined it: at most `fw.rooms.members-listed` of them
 * (`m`), and how many there are (`total`): a large room is counted, not listed.
 */
export interface MembersFrame {
  t: 'members';
  b: string;
  m: RoomMember[];
  total: number;
}

/** Why a room turned an action down: the authorizer said no, or the connection's publish rate was exceeded. */
export type RefusalReason = 'not_allowed' | 'rate_limited';

/**
 * The room `b` refused what the client did (`action`: `publish`; a refused join never opens, it is
 * a 403 `room_join_refused`). The message was not taken. `retryAfter`: ms until a publish is taken
 * again (`rate_limited`).
 */
export interface RefusedFrame {
  t: 'refused';
  b: string;
  action: 'publish';
  reason: RefusalReason | (string & {});
  retryAfter?: number;
}

/** Every frame a server sends. */
export type ServerFrame =
  | HandshakeFrame
  | AckFrame
  | MessageFrame
  | ToolCallFrame
  | HeartbeatFrame
  | GapFrame
  | RecoveryFrame
  | CloseFrame
  | ReconnectFrame;

/**
 * The frames of a room (docs/rooms.md). Not among {@link ServerFrame}: a client that does not use
 * rooms never decodes them (`parseServerFrame` skips them as unknown kinds); the room layer checks
 * them with `checkRoomFrame`.
 */
export type RoomFrame = PresenceFrame | MembersFrame | RefusedFrame;

/**
 * What a client sends: an application message (`m`) or a bridge answer (`tool-response`), which
 * reaches only the pending tool call and never the application's message handlers. Over
 * WebSocket each is a frame; HTTP transports POST the text itself with `frame=m|tool-response`.
 */
export type UpstreamKind = 'm' | 'tool-response';

export interface UpstreamFrame {
  t: UpstreamKind;
  d: string;
  /**
   * The client's sequence number of this message (1, 2, 3… per resource; a resent message keeps
   * its number). The server takes each number once and acknowledges it; absent: not deduplicated
   * (older clients). Over HTTP the same number is the POST's `seq` query parameter.
   */
  s?: number;
}

/** Every frame a client sends over WebSocket. */
export type ClientFrame = UpstreamFrame | HeartbeatFrame;
