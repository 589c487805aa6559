/**
 * `@fw/client/node`: everything from the browser entry, with the `ws` package as the default
 * WebSocket (Node 20 has no global WebSocket).
 */
import WebSocket from 'ws';
import { FwClient, type ConnectOptions, type MessageMap } from './client.js';
import type { WebSocketConstructor } from './transport.js';

export * from './index.js';

/** `connect` with `ws` as the default WebSocket implementation. */
export function connect<M extends MessageMap = MessageMap>(
  url: string | URL | ReadonlyArray<string | URL>,
  options: ConnectOptions = {},
): FwClient<M> {
  return new FwClient<M>(url, { WebSocket: WebSocket as unknown as WebSocketConstructor, ...options });
}
export { room, Room, type RoomOptions, type RoomHistory } from './room.js';
