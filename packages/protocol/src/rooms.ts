/**
 * The room frames' checked decoder (docs/rooms.md), apart from the core decoder: the browser
 * client's core stays within its size budget, and only the room layer (`@fw/client/room`) carries
 * these checks.
 */
import { ProtocolError } from './decode.js';
import type { RoomFrame } from './frames.js';
import { ROOM_LIMITS } from './limits.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * A room member as a server describes it: an id, a principal or null, a join time and a metadata
 * object no larger than the protocol's ceiling (a server's own limit is lower: `fw.rooms.max-meta-bytes`).
 */
function isMember(v: unknown): boolean {
  return (
    isObject(v) &&
    typeof v.id === 'string' &&
    (v.principal === null || typeof v.principal === 'string') &&
    Number.isSafeInteger(v.joinedAt) &&
    isObject(v.meta) &&
    JSON.stringify(v.meta).length <= ROOM_LIMITS.maxMetaBytes
  );
}

/**
 * Checks a parsed frame that may be a room's: returns it when it is a well-formed `presence`,
 * `members` or `refused` frame, undefined when it is another kind, and throws a ProtocolError
 * when it is a room frame of the wrong shape or past the protocol's ceilings (a member list
 * longer than `ROOM_LIMITS.maxMembersListed`, metadata larger than `ROOM_LIMITS.maxMetaBytes`).
 */
export function checkRoomFrame(f: Record<string, unknown>): RoomFrame | undefined {
  const t = f.t;
  if (t !== 'presence' && t !== 'members' && t !== 'refused') return undefined;
  let ok = typeof f.b === 'string';
  if (t === 'presence') ok &&= (f.ev === 'join' || f.ev === 'leave') && isMember(f.m);
  else if (t === 'members') {
    const m = f.m;
    ok &&= Array.isArray(m) && m.length <= ROOM_LIMITS.maxMembersListed && m.every(isMember) && isCount(f.total) && f.total >= m.length;
  } else ok &&= f.action === 'publish' && typeof f.reason === 'string' && (f.retryAfter === undefined || isCount(f.retryAfter));
  if (!ok) {
    const text = JSON.stringify(f);
    throw new ProtocolError(`not an fw room frame: ${text.length > 80 ? `${text.slice(0, 80)}…` : text}`);
  }
  return f as unknown as RoomFrame;
}
