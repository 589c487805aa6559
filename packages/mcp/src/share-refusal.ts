import type { ShareExceededError } from '@fw/runtime';
import { RpcCode } from './errors.js';
import { errorResponse, type JsonRpcErrorResponse, type RequestId } from './protocol/jsonrpc.js';

/**
 * A caller past its fair share (429) or an endpoint at its whole capacity (503), as the JSON-RPC
 * error of the request that was refused. A WebSocket has no HTTP status per message, so `data`
 * carries it, with the limit's key, the share that ran out and when to retry.
 */
export function shareRefusal(id: RequestId, err: ShareExceededError): JsonRpcErrorResponse {
  return errorResponse(id, RpcCode.ServerError, err.message, {
    status: err.status,
    code: err.code,
    ...err.details,
    retryAfter: Number(err.headers?.['retry-after'] ?? 1),
  });
}
