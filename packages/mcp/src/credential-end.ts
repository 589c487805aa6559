import type { CredentialEnd } from '@fw/runtime';
import { RpcCode } from './errors.js';
import { errorResponse, type JsonRpcErrorResponse, type RequestId } from './protocol/jsonrpc.js';

/**
 * What a client is told when the credential an open socket or stream was opened with stops being
 * good (`fw.credentials.watch`: its `exp` passed, or an operator revoked it). A socket or stream
 * is authenticated once, when it opens, so without this an expired or revoked token would go on
 * receiving (and, on a WebSocket, acting) for as long as the connection lives.
 */

/** The WebSocket close reason (code 1008, policy violation); also the text of the errors below. */
export function credentialEndReason(reason: CredentialEnd): string {
  return reason === 'expired' ? 'access token expired' : 'credentials revoked';
}

/** RFC 6750 §3.1: the challenge a client reads to know it must get a new token. */
export function credentialEndChallenge(reason: CredentialEnd): Record<string, string> {
  return { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${credentialEndReason(reason)}"` };
}

/**
 * The JSON-RPC error a request still open on the stream gets before the stream ends. A stream has
 * no per-message HTTP status, so `data` carries it, as the WebSocket's scope refusals do.
 */
export function credentialEndError(id: RequestId | null, reason: CredentialEnd): JsonRpcErrorResponse {
  return errorResponse(id, RpcCode.ServerError, `the request's credential ended: ${credentialEndReason(reason)}`, {
    status: 401,
    error: 'invalid_token',
    reason,
  });
}
