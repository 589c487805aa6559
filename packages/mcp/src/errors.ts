import { FwError } from '@fw/runtime';

/** JSON-RPC and MCP error codes fw answers with. */
export const RpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Implementation-defined server error (limits, refused requests). */
  ServerError: -32000,
  /** MCP: resources/read of an unknown URI. */
  ResourceNotFound: -32002,
  /** A server-to-client request that the client cancelled or that timed out. */
  RequestTimeout: -32001,
} as const;

/**
 * An error that becomes a JSON-RPC error response. `code` is fw's stable string code; `rpcCode`
 * the JSON-RPC number the client sees.
 */
export class McpError extends FwError {
  readonly rpcCode: number;
  readonly data: unknown;

  constructor(rpcCode: number, code: string, message: string, data?: unknown) {
    super(code, message, 400);
    this.rpcCode = rpcCode;
    this.data = data;
  }
}

export class InvalidParamsError extends McpError {
  constructor(message: string, data?: unknown) {
    super(RpcCode.InvalidParams, 'mcp_invalid_params', message, data);
  }
}

export class ResourceNotFoundError extends McpError {
  constructor(uri: string) {
    super(RpcCode.ResourceNotFound, 'mcp_resource_not_found', `resource not found: ${uri}`, { uri });
  }
}

/** A tool/prompt/resource name registered twice in one registry. */
export class McpRegistrationError extends FwError {
  constructor(message: string) {
    super('mcp_registration', message, 500);
  }
}
