export type {
  TransportName,
  HandshakeFrame,
  AckFrame,
  MessageFrame,
  ToolCallFrame,
  HeartbeatFrame,
  GapReason,
  Gap,
  GapFrame,
  RecoveryFrame,
  CloseFrame,
  ReconnectFrame,
  RoomMember,
  PresenceFrame,
  MembersFrame,
  RefusalReason,
  RefusedFrame,
  RoomFrame,
  ServerFrame,
  UpstreamKind,
  UpstreamFrame,
  ClientFrame,
} from './frames.js';
export {
  MESSAGE_FRAME_HEAD,
  TOOL_CALL_FRAME_HEAD,
  SHARED_MESSAGE_FRAME_HEAD,
  SHARED_TOOL_CALL_FRAME_HEAD,
  SEQUEL_FRAME_HEAD,
  HEARTBEAT_FRAME,
  encodeHandshake,
  encodeGap,
  encodeRecovery,
  encodeClose,
  encodeReconnect,
  encodeUpstream,
  encodeAck,
  encodePresence,
  encodeMembers,
  encodeRefused,
} from './encode.js';
export { ROOM_LIMITS } from './limits.js';
export { checkRoomFrame } from './rooms.js';
export type { ImplicitIds } from './decode.js';
export { ProtocolError, parseServerFrame, checkServerFrame, parseClientFrame, isUpstreamKind, isSeq } from './decode.js';
export { CloseCode, FINAL_CLOSE_CODES, CredentialReason, isCredentialReason, type CredentialReasonName } from './close-codes.js';
