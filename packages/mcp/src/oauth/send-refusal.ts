import type { ServerResponse } from 'node:http';
import { sendError, sendProblem } from '@fw/runtime';
import { RpcCode } from '../errors.js';
import type { RequestId } from '../protocol/jsonrpc.js';
import { OAuthRefusal } from './challenge.js';

/**
 * Answers a refused MCP request: an OAuthRefusal as problem+json with its `WWW-Authenticate`
 * challenge and a JSON-RPC `error` member (so both HTTP tooling and MCP clients can read it, like
 * every other refusal on an MCP endpoint); any other error as the runtime answers it.
 */
export function sendRefusal(res: ServerResponse, err: unknown, id: RequestId | null = null): void {
  if (!(err instanceof OAuthRefusal)) return sendError(res, err);
  const data = {
    status: err.status,
    ...(err.bearerError ? { error: err.bearerError } : {}),
    ...(err.scopes.length ? { scope: err.scopes.join(' ') } : {}),
  };
  sendProblem(
    res,
    err.status,
    err.code,
    err.message,
    { jsonrpc: '2.0', id, error: { code: RpcCode.ServerError, message: err.message, data } },
    err.headers,
  );
}
