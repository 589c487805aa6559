import type { NativeSocket } from '../transport/native-upgrade.js';
import type { BunServerWebSocket } from './bun-api.js';

const OPEN = 1;

/**
 * A NativeSocket over Bun's `ServerWebSocket`, for upgrade routes other than fw's real-time
 * endpoints (MCP over WebSocket). Bun frames, bounds and answers pings itself; what the route
 * needs is text both ways, its own pings (a keep-alive that finds dead peers) and close.
 */
export class BunNativeSocket implements NativeSocket {
  onMessage: ((text: string) => void) | undefined;
  onPong: (() => void) | undefined;
  onClose: ((code: number) => void) | undefined;

  constructor(private readonly ws: BunServerWebSocket<unknown>) {}

  get isOpen(): boolean {
    return this.ws.readyState === OPEN;
  }

  send(text: string): void {
    if (this.isOpen) this.ws.sendText(text);
  }

  ping(): void {
    if (this.isOpen) this.ws.ping();
  }

  close(code: number, reason: string): void {
    if (this.isOpen) this.ws.close(code, reason);
  }

  terminate(): void {
    this.ws.terminate();
  }
}
