import type { IncomingMessage } from 'node:http';
import { FwError } from '../errors.js';
import { readBody } from '../http/body.js';
import { jsonDepthExceeds } from './json-depth.js';
import { requestSource } from './request-source.js';

/** 400 `json_too_deep`: the JSON nests deeper than `fw.limits.json-depth`. */
export class JsonTooDeepError extends FwError {
  constructor(limit: number) {
    super('json_too_deep', `the JSON nests deeper than ${limit} levels (fw.limits.json-depth)`, 400, { limit });
  }
}

/** 400 `invalid_json`: not JSON at all. */
export class InvalidJsonError extends FwError {
  constructor(reason: string) {
    super('invalid_json', `request body is not valid JSON: ${reason}`, 400);
  }
}

/** 415 `unsupported_media_type`: a state-changing JSON endpoint got something other than JSON. */
export class UnsupportedMediaTypeError extends FwError {
  constructor(got: string | undefined) {
    super('unsupported_media_type', `Content-Type must be application/json (or a +json type), got '${got ?? ''}'`, 415, {
      contentType: got ?? null,
    });
  }
}

/** True for `application/json` and any `application/…+json` (RFC 6839), parameters ignored. */
export function isJsonContentType(value: string | undefined): boolean {
  const type = (value ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The content-type rule of every state-changing JSON endpoint: a JSON type, or no type and no
 * body at all (a bodiless POST such as a cancel). A form or `text/plain` POST, the kind a page on
 * another site may send without a CORS preflight, is a 415 before any handler runs.
 */
export function requireJsonContentType(req: IncomingMessage): void {
  const type = req.headers['content-type'];
  if (type === undefined ? !hasBody(req) : isJsonContentType(type)) return;
  req.resume();
  throw new UnsupportedMediaTypeError(type);
}

/** `JSON.parse` behind the depth limit: `JsonTooDeepError` or `InvalidJsonError` instead of a stack overflow. */
export function parseJson(text: string, maxDepth: number): unknown {
  if (jsonDepthExceeds(text, maxDepth)) throw new JsonTooDeepError(maxDepth);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InvalidJsonError((err as Error).message);
  }
}

export interface JsonBodyLimits {
  /** Largest body in bytes (413 `payload_too_large` past it). */
  maxBytes: number;
  /** Deepest nesting (400 `json_too_deep` past it); `fw.limits.json-depth`. */
  maxDepth: number;
}

/**
 * Reads a JSON request body: content type (415), size (413), depth (400 `json_too_deep`, checked
 * before parsing) and syntax (400 `invalid_json`), each a typed FwError.
 */
export async function readJsonBody(req: IncomingMessage, limits: JsonBodyLimits): Promise<unknown> {
  requireJsonContentType(req);
  const text = await readBody(req, limits.maxBytes);
  if (text.length === 0) throw new InvalidJsonError('the body is empty');
  return parseJson(text, limits.maxDepth);
}

/**
 * `readJsonBody` with the depth limit of the framework that screened the request
 * (`fw.limits.json-depth`; its default for a request fw did not screen).
 */
export function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  return readJsonBody(req, { maxBytes, maxDepth: requestSource(req).jsonDepth });
}
