/**
 * `@fw/client`, browser entry. Bundled (scripts/bundle.mjs) into the one ES module the runtime
 * serves at `/fw/client.js` and the IIFE at `/fw/client.global.js`; it must stay free of Node
 * built-ins (the Node entry, node.ts, adds `ws`).
 */
export { connect, FwClient, DEFAULT_TRANSPORTS } from './client.js';
export type {
  ClientState,
  ConnectOptions,
  MessageMeta,
  MessageListener,
  StateListener,
  CloseListener,
  GapListener,
  ErrorListener,
  Recovery,
  RecoveryListener,
  MessageMap,
  MessageOut,
  MessageIn,
  JsonListener,
} from './client.js';
export { ClientError, type ClientErrorCode } from './errors.js';
export type { ClientLogger } from './default-logger.js';
export { backoffDelay, DEFAULT_RECONNECT, type ReconnectOptions } from './backoff.js';
export type { TransportName, Gap, GapReason } from '@fw/protocol';
export { FINAL_CLOSE_CODES } from '@fw/protocol';
export type { ToolCall, ToolHandler } from './tool-bridge.js';
export type { WebSocketConstructor, WebSocketLike, FetchLike } from './transport.js';
