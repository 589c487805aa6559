export type {
  TransportName,
  HandshakeFrame,
  MessageFrame,
  ToolCallFrame,
  HeartbeatFrame,
  GapReason,
  Gap,
  GapFrame,
  RecoveryFrame,
  CloseFrame,
  ReconnectFrame,
  ServerFrame,
  UpstreamKind,
  UpstreamFrame,
  ClientFrame,
} from './frames.js';
export {
  MESSAGE_FRAME_HEAD,
  TOOL_CALL_FRAME_HEAD,
  HEARTBEAT_FRAME,
  encodeHandshake,
  encodeGap,
  encodeRecovery,
  encodeClose,
  encodeReconnect,
  encodeUpstream,
} from './encode.js';
export { ProtocolError, parseServerFrame, checkServerFrame, parseClientFrame, isUpstreamKind } from './decode.js';
export { CloseCode, FINAL_CLOSE_CODES } from './close-codes.js';
