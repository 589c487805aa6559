/** JSON-RPC 2.0 message shapes as they travel on every MCP transport. */
export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcSuccess {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string; data?: unknown };
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** What a parsed inbound item is; `invalid` carries the error response to send back. */
export type Classified =
  | { kind: 'request'; msg: JsonRpcRequest }
  | { kind: 'notification'; msg: JsonRpcNotification }
  | { kind: 'response'; msg: JsonRpcResponse }
  | { kind: 'invalid'; reply: JsonRpcErrorResponse };

export function classify(value: unknown): Classified {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { kind: 'invalid', reply: errorResponse(null, -32600, 'invalid request: not a JSON-RPC object') };
  }
  const m = value as Record<string, unknown>;
  const id = m.id;
  const idOk = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  if (m.jsonrpc !== '2.0') {
    return { kind: 'invalid', reply: errorResponse(idOk ? (id as RequestId) : null, -32600, 'invalid request: jsonrpc must be "2.0"') };
  }
  if (typeof m.method === 'string') {
    if (m.params !== undefined && (m.params === null || typeof m.params !== 'object' || Array.isArray(m.params))) {
      return {
        kind: 'invalid',
        reply: errorResponse(idOk ? (id as RequestId) : null, -32600, 'invalid request: params must be an object'),
      };
    }
    if (id === undefined) return { kind: 'notification', msg: m as unknown as JsonRpcNotification };
    if (!idOk) return { kind: 'invalid', reply: errorResponse(null, -32600, 'invalid request: id must be a string or a number') };
    return { kind: 'request', msg: m as unknown as JsonRpcRequest };
  }
  if (idOk && ('result' in m || 'error' in m)) return { kind: 'response', msg: m as unknown as JsonRpcResponse };
  return { kind: 'invalid', reply: errorResponse(idOk ? (id as RequestId) : null, -32600, 'invalid request: no method, result or error') };
}

export function errorResponse(id: RequestId | null, code: number, message: string, data?: unknown): JsonRpcErrorResponse {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

export function notification(method: string, params?: Record<string, unknown>): JsonRpcNotification {
  return params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method };
}
