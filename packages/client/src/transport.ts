/**
 * What the client needs from a transport: open a connection to one endpoint, hand every decoded
 * frame to the sink, report the end exactly once, send messages in order. The connection state
 * machine (handshake, heartbeat, resume, reconnect) lives in the client, not here.
 */
import type { ClientError } from './errors.js';
import type { ServerFrame, TransportName, UpstreamKind } from '@fw/protocol';

export interface TransportSink {
  frame(frame: ServerFrame): void;
  /**
   * Something arrived that is not a frame the core decodes (an SSE comment, an empty long-poll):
   * the peer lives. `other`: a frame of another kind (its text, or its object from a long-poll),
   * for the client's `onOtherFrame` listeners.
   */
  alive(other?: string | Record<string, unknown>): void;
  /** The connection is over (never called after `close()`). */
  end(error: ClientError): void;
}

/** The parts of the browser WebSocket API the client uses; `ws` in Node provides them too. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

export type FetchLike = typeof fetch;

export interface TransportEnvironment {
  WebSocket: WebSocketConstructor | undefined;
  fetch: FetchLike | undefined;
}

export interface OpenRequest {
  /** The endpoint (any scheme); the transport picks its own. */
  endpoint: URL;
  /** `fw=1` plus tracking/last or since, as the client decided. */
  params: Record<string, string | undefined>;
  sink: TransportSink;
  env: TransportEnvironment;
  /** The heartbeat interval of the last handshake (ms), for transports that resume without one. */
  heartbeat: number;
  /** The credential: `?access_token=` on a WebSocket (browsers cannot set its headers), `Authorization: Bearer` on HTTP. */
  token: string | undefined;
}

export interface TransportConnection {
  /**
   * Sends one message (its text), or with `kind` `tool-response` a bridge answer, numbered `seq`
   * (the server takes each number once). Resolves once handed over (WebSocket) or taken (HTTP
   * POST); rejects with the server's answer (`status`) or, with no answer, a network error.
   */
  send(data: string, kind: UpstreamKind, seq: number): Promise<void>;
  /** True when `send` resolving means the server took it (HTTP); false when an `ack` frame says so (WebSocket). */
  readonly confirms: boolean;
  /** Sends a heartbeat where the transport has an upstream channel of its own (WebSocket). */
  heartbeat?(): void;
  /**
   * Closes without reporting an end. `final`: the client is done, so the server should end the
   * resource now (WebSocket code 1000, or `DELETE ?tracking`) instead of keeping it for a resume.
   */
  close(final: boolean): void;
  /** False when silence is normal for this transport (a held long-poll): no heartbeat watch by default. */
  readonly watchesSilence: boolean;
}

export type TransportOpener = (request: OpenRequest) => TransportConnection;

export type { TransportName };
