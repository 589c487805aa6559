import { BadRequestError } from '@fw/runtime';

/** Parses an optional integer query parameter; anything else is a 400 naming the parameter. */
export function intParam(url: URL, name: string, opts: { min: number; max: number; default: number }): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return opts.default;
  const n = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < opts.min || n > opts.max) {
    throw new BadRequestError(`query parameter '${name}' must be an integer from ${opts.min} to ${opts.max}`, { field: name, value: raw });
  }
  return n;
}

/** An optional time bound: ISO-8601 or epoch milliseconds. */
export function timeParam(url: URL, name: string): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  const t = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(t))
    throw new BadRequestError(`query parameter '${name}' must be an ISO-8601 time or epoch milliseconds`, { field: name, value: raw });
  return t;
}

/** An optional string parameter; empty counts as absent. */
export function strParam(url: URL, name: string): string | undefined {
  const raw = url.searchParams.get(name);
  return raw === null || raw === '' ? undefined : raw;
}

/** An optional parameter that must be one of `allowed`. */
export function enumParam<T extends string>(url: URL, name: string, allowed: readonly T[]): T | undefined {
  const raw = strParam(url, name);
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new BadRequestError(`query parameter '${name}' must be one of ${allowed.join(', ')}`, { field: name, value: raw });
  }
  return raw as T;
}

/** A required string member of a JSON body. */
export function requireString(body: Record<string, unknown>, field: string): string {
  const v = body[field];
  if (typeof v !== 'string' || v === '') throw new BadRequestError(`body member '${field}' must be a non-empty string`, { field });
  return v;
}

/** A message to send: a string, or a JSON object/array sent as its JSON text. */
export function requireMessage(body: Record<string, unknown>, field = 'message'): string | object {
  const v = body[field];
  if (typeof v === 'string' || (v !== null && typeof v === 'object')) return v;
  throw new BadRequestError(`body member '${field}' must be a string or a JSON object`, { field });
}

export function asObject(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new BadRequestError('request body must be a JSON object', { field: 'body' });
  return body as Record<string, unknown>;
}
