import type { IncomingHttpHeaders } from 'node:http';
import type { JsonSchema } from '../schema.js';

/**
 * The request metadata headers of Streamable HTTP under 2026-07-28 (transports/streamable-http
 * "Request Metadata"): `Mcp-Method` and `Mcp-Name` mirror the body, and a tool parameter whose
 * schema carries `x-mcp-header: Name` is mirrored in `Mcp-Param-Name`. Values that are not plain
 * visible ASCII travel as `=?base64?…?=` and are decoded before comparison. Any mismatch, missing
 * required header or invalid value is a HeaderMismatch (-32020, HTTP 400).
 */

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
/** RFC 9110 field values: visible ASCII, space and tab. */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;

/** The decoded header value, or undefined when it is not a valid header value. */
export function decodeHeaderValue(raw: string): string | undefined {
  if (!FIELD_VALUE.test(raw)) return undefined;
  // Only a value with both markers is encoded; anything else is a literal (Value Encoding).
  if (!raw.startsWith('=?base64?') || !raw.endsWith('?=') || raw.length < 11) return raw;
  const m = SENTINEL.exec(raw);
  // Strict Base64 (RFC 4648 §4, padded): Node's decoder would accept a missing '=' silently.
  if (!m || (m[1] as string).length % 4 !== 0) return undefined;
  const bytes = Buffer.from(m[1] as string, 'base64');
  const text = new TextDecoder('utf-8', { fatal: true });
  try {
    return text.decode(bytes);
  } catch {
    return undefined;
  }
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** What is wrong with the standard headers of a request, or undefined. */
export function checkStandardHeaders(
  headers: IncomingHttpHeaders,
  method: string,
  params: Record<string, unknown> | undefined,
): string | undefined {
  const mcpMethod = header(headers, 'mcp-method');
  if (mcpMethod === undefined) return 'the Mcp-Method header is required';
  if (mcpMethod !== method) return `Mcp-Method header value '${mcpMethod}' does not match body method '${method}'`;
  // SEP-2663 "Streamable HTTP: Routing Headers": tasks/get, tasks/update and tasks/cancel carry the taskId.
  const source =
    method === 'tools/call' || method === 'prompts/get'
      ? params?.name
      : method === 'resources/read'
        ? params?.uri
        : method === 'tasks/get' || method === 'tasks/update' || method === 'tasks/cancel'
          ? params?.taskId
          : undefined;
  const rawName = header(headers, 'mcp-name');
  if (typeof source !== 'string') return undefined;
  if (rawName === undefined) return `the Mcp-Name header is required for ${method}`;
  const name = decodeHeaderValue(rawName);
  if (name === undefined) return 'the Mcp-Name header value is not valid (plain visible ASCII or =?base64?…?=)';
  if (name !== source) return `Mcp-Name header value '${rawName}' does not match body value '${source}'`;
  return undefined;
}

/** One `x-mcp-header` annotation: the header name part and the property path to its value. */
export interface HeaderParam {
  name: string;
  path: string[];
  type: string | undefined;
}

/** The annotated parameters of an input schema, reachable through `properties` chains only. */
export function headerParams(schema: JsonSchema, path: string[] = []): HeaderParam[] {
  const out: HeaderParam[] = [];
  const props = schema.properties;
  if (props === null || typeof props !== 'object') return out;
  for (const [key, sub] of Object.entries(props as Record<string, unknown>)) {
    if (sub === null || typeof sub !== 'object') continue;
    const s = sub as JsonSchema;
    if (typeof s['x-mcp-header'] === 'string')
      out.push({ name: s['x-mcp-header'], path: [...path, key], type: typeof s.type === 'string' ? s.type : undefined });
    out.push(...headerParams(s, [...path, key]));
  }
  return out;
}

/** What is wrong with the `Mcp-Param-*` headers of a tools/call, or undefined. */
export function checkParamHeaders(headers: IncomingHttpHeaders, params: HeaderParam[], args: unknown): string | undefined {
  for (const p of params) {
    let value: unknown = args;
    for (const k of p.path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[k] : undefined;
    const raw = header(headers, `mcp-param-${p.name.toLowerCase()}`);
    if (value === undefined || value === null) continue;
    if (raw === undefined) return `the Mcp-Param-${p.name} header is required: argument '${p.path.join('.')}' is in the body`;
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return `the Mcp-Param-${p.name} header value is not valid`;
    const same =
      typeof value === 'number'
        ? decoded.trim() !== '' && Number(decoded) === value
        : typeof value === 'boolean'
          ? decoded === String(value)
          : typeof value === 'string'
            ? decoded === value
            : false;
    if (!same) return `Mcp-Param-${p.name} header value '${raw}' does not match argument '${p.path.join('.')}'`;
  }
  return undefined;
}
