/**
 * `@fw/client`, browser entry. Served as-is by the runtime at `/fw/client.js`, so neither this
 * file nor anything it imports may use a bare module specifier.
 */
export { connect, FwClient, DEFAULT_TRANSPORTS } from './client.js';
export type { ClientState, ConnectOptions, MessageMeta, MessageListener, StateListener, CloseListener, GapListener, ErrorListener, Recovery, RecoveryListener } from './client.js';
export { ClientError, type ClientErrorCode } from './errors.js';
export { backoffDelay, DEFAULT_RECONNECT, type ReconnectOptions } from './backoff.js';
export type { TransportName, Gap, GapReason } from './frames.js';
export { FINAL_CLOSE_CODES } from './transports/websocket.js';
export type { ToolCall, ToolHandler } from './tool-bridge.js';
export type { WebSocketConstructor, WebSocketLike, FetchLike } from './transport.js';
