import { ROOM_LIMITS } from '@fw/protocol';
import { FwError } from '../errors.js';

/**
 * The client's part of its member metadata: `?meta=` on the connection, a JSON object of at most
 * `maxBytes` characters (and never more than the protocol's ceiling). Anything else is a 400 that
 * says what was wrong, before a socket exists.
 */
export function clientMeta(raw: string | null, maxBytes: number): Record<string, unknown> {
  if (raw === null || raw === '') return {};
  const limit = Math.min(maxBytes, ROOM_LIMITS.maxMetaBytes);
  if (raw.length > limit) throw invalid(`'meta' is ${raw.length} characters; at most ${limit} (fw.rooms.max-meta-bytes)`);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalid("'meta' is not JSON");
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid("'meta' must be a JSON object");
  return value as Record<string, unknown>;
}

function invalid(detail: string): FwError {
  return new FwError('invalid_room_meta', detail, 400, { parameter: 'meta' });
}
