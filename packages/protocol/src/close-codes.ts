/** WebSocket close codes with a meaning in fw (docs/protocol.md, "Close codes"). */
export const CloseCode = {
  /** The client ended the connection on purpose (its close()). */
  normal: 1000,
  /** A page going away (a browser client's close); older servers also sent it on shutdown. A drop: reconnect. */
  goingAway: 1001,
  /** The server shuts down (`fw.close()`, SIGTERM): the client reconnects, to another node if need be, and resumes. */
  serviceRestart: 1012,
  /** The client sent a frame that is not fw protocol (or nests deeper than fw.limits.json-depth). */
  invalidPayload: 1007,
  /** Policy violation: the credential the socket was opened with expired or was revoked (reason `credential_expired` / `credential_revoked`). */
  policyViolation: 1008,
  /** A client frame larger than fw.websocket.max-payload. */
  messageTooBig: 1009,
  /** The server ended the resource on purpose; the reason is in the close frame's reason. */
  closedByServer: 4000,
} as const;

/**
 * Codes after which a client must not reconnect: the server ended the resource on purpose
 * (4000), or refused what this client sends (1002 protocol error, 1003 unsupported data, 1007
 * invalid payload, 1008 policy violation, 1009 message too big: sending it again would end the
 * same way). Every other code (1001 going away, 1006 dropped, 1011 server error, 1012 restart,
 * 1013 try again later, …) is a drop: the client reconnects and resumes.
 */
export const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([
  CloseCode.closedByServer,
  1002,
  1003,
  CloseCode.invalidPayload,
  CloseCode.policyViolation,
  CloseCode.messageTooBig,
]);

/**
 * Reasons of a server close (a `close` frame, or WebSocket 1008) because the credential the
 * connection was opened with stopped being good. The resource is kept for `fw.resume.grace`: a
 * client that can get a new credential reconnects with it and resumes; one that cannot stops.
 */
export const CredentialReason = {
  expired: 'credential_expired',
  revoked: 'credential_revoked',
} as const;

export type CredentialReasonName = (typeof CredentialReason)[keyof typeof CredentialReason];

export function isCredentialReason(reason: string): reason is CredentialReasonName {
  return reason === CredentialReason.expired || reason === CredentialReason.revoked;
}
