import { LOG_LEVELS, type LogLevel } from '../context.js';
import { RpcCode } from '../errors.js';
import { errorResponse, type JsonRpcErrorResponse, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import { META, MODERN_VERSIONS, ModernCode } from './era.js';

/** What a 2026-07-28 request declared in its `_meta` (basic/index: RequestMetaObject). */
export interface Envelope {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo: { name: string; version: string } | undefined;
  logLevel: LogLevel | undefined;
}

/** A refusal: the JSON-RPC error and the HTTP status the spec gives it. */
export interface Refusal {
  status: number;
  reply: JsonRpcErrorResponse;
}

/**
 * Validates the per-request `_meta` (specification 2026-07-28, basic/versioning and
 * transports/streamable-http "Protocol Version Header"): protocolVersion and
 * clientCapabilities are required (-32602, HTTP 400); clientInfo is optional; a version fw does
 * not serve statelessly is -32022 with the supported list. `headerVersion` (HTTP only) must equal
 * the body's version (-32020). The header-mismatch check runs before the version check so a
 * client that sent two different versions learns that first.
 */
export function readEnvelope(req: JsonRpcRequest, headerVersion: string | undefined): Envelope | Refusal {
  const meta = req.params?._meta;
  const bad = (code: number, message: string, data?: unknown): Refusal => ({
    status: 400,
    reply: errorResponse(req.id, code, message, data),
  });
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
    return bad(
      RpcCode.InvalidParams,
      `params._meta is required under the 2026-07-28 revision (with '${META.protocolVersion}' and '${META.clientCapabilities}')`,
    );
  }
  const m = meta as Record<string, unknown>;
  const version = m[META.protocolVersion];
  if (typeof version !== 'string' || version === '')
    return bad(RpcCode.InvalidParams, `params._meta['${META.protocolVersion}'] is required`);
  const caps = m[META.clientCapabilities];
  if (caps === null || typeof caps !== 'object' || Array.isArray(caps))
    return bad(RpcCode.InvalidParams, `params._meta['${META.clientCapabilities}'] is required (an object; {} declares none)`);
  if (headerVersion !== undefined && headerVersion !== version) {
    return bad(
      ModernCode.HeaderMismatch,
      `Header mismatch: MCP-Protocol-Version header '${headerVersion}' does not match _meta protocolVersion '${version}'`,
    );
  }
  if (!(MODERN_VERSIONS as readonly string[]).includes(version)) {
    return bad(ModernCode.UnsupportedProtocolVersion, `Unsupported protocol version '${version}'`, {
      supported: [...MODERN_VERSIONS],
      requested: version,
    });
  }
  const level = m[META.logLevel];
  if (level !== undefined && (typeof level !== 'string' || !(LOG_LEVELS as readonly string[]).includes(level))) {
    return bad(RpcCode.InvalidParams, `params._meta['${META.logLevel}'] must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const info = m[META.clientInfo] as { name?: unknown; version?: unknown } | undefined;
  return {
    protocolVersion: version,
    clientCapabilities: caps as Record<string, unknown>,
    clientInfo:
      info && typeof info === 'object' && typeof info.name === 'string'
        ? { name: info.name, version: String(info.version ?? '') }
        : undefined,
    logLevel: level as LogLevel | undefined,
  };
}

export function isRefusal(v: Envelope | Refusal): v is Refusal {
  return 'reply' in v;
}
