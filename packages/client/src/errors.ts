/**
 * Every error the client reports on purpose carries a stable machine-readable `code` (switch on
 * it, never on the message) and, when it came from an HTTP answer, the `status`. The client has no
 * runtime dependency, so this mirrors the server's FwError instead of importing it.
 */
export type ClientErrorCode =
  /** `send()` after `close()`, or the client was closed while the call was pending. */
  | 'client_closed'
  /** `send()` while the outgoing queue already holds `maxQueue` messages. */
  | 'send_queue_full'
  /** The server no longer holds the resource named by `tracking` (its resume grace passed). */
  | 'unknown_tracking_id'
  /** No handshake frame within `connectTimeout`. */
  | 'handshake_timeout'
  /** Nothing (frame, heartbeat, keep-alive) arrived within `heartbeatTimeout`. */
  | 'heartbeat_timeout'
  /** The transport could not be opened or dropped (network error, socket closed, stream ended). */
  | 'connection_lost'
  /** The server answered an HTTP request with an error status. */
  | 'http_error'
  /** The transport is not available in this environment (no WebSocket, no fetch streaming). */
  | 'transport_unavailable'
  /** The server sent something that is not fw protocol. */
  | 'protocol_error'
  /** The server closed the resource on purpose (close frame or WebSocket code 4000). */
  | 'closed_by_server'
  /** `registerTool()` for a name that already has a handler. */
  | 'duplicate_tool'
  /** `onJson()`: a message that is not JSON (it is not passed on). */
  | 'invalid_message'
  /**
   * A `send()` the server may or may not have taken: it was sent, and the server lost the
   * connection's state before confirming it (a crash, or a resume grace that passed). Not resent.
   */
  | 'send_unconfirmed'
  /** The server refused the credential (401), e.g. an expired or revoked token. */
  | 'unauthorized'
  /** The credential the connection was opened with expired (the server closed it, WebSocket 1008). */
  | 'credential_expired'
  /** The credential the connection was opened with was revoked (the server closed it, WebSocket 1008). */
  | 'credential_revoked';

export class ClientError extends Error {
  readonly code: ClientErrorCode;
  /** HTTP status when the error came from an HTTP answer. */
  readonly status: number | undefined;
  /** The problem+json `code` of an HTTP error answer, when the server sent one. */
  readonly problemCode: string | undefined;

  constructor(code: ClientErrorCode, message: string, status?: number, problemCode?: string) {
    super(message);
    this.name = 'ClientError';
    this.code = code;
    this.status = status;
    this.problemCode = problemCode;
  }
}

/** A frame that failed to decode (`@fw/protocol`'s ProtocolError) as the client's `protocol_error`. */
export function protocolError(error: unknown): ClientError {
  return error instanceof ClientError ? error : new ClientError('protocol_error', error instanceof Error ? error.message : String(error));
}
