import type { Principal } from '../model.js';

/**
 * Who may do one thing in a room: a principal named in `principals`, or one with any of `roles`,
 * or one `allow` says yes to (any of the three). An absent rule lets everyone, anonymous callers
 * included: a room is as open as its handler until a rule says otherwise.
 */
export interface RoomRule {
  principals?: readonly string[];
  roles?: readonly string[];
  /** Decides by anything else (a claim, the room's name); must be synchronous and cheap: it runs on every publish. */
  allow?: (principal: Principal | undefined, room: string) => boolean;
}

/** The three things a room guards (docs/rooms.md, *Permissions*). */
export type RoomAction = 'join' | 'publish' | 'presence';

/**
 * The rules of the rooms whose path matches `pattern` (a handler pattern such as `/chat/{room}`,
 * under the framework path). `meta` sets the server's part of a member's metadata from its
 * principal (a display name, an avatar); the server's keys win over the client's.
 */
export interface RoomPolicy {
  pattern: string;
  join?: RoomRule;
  publish?: RoomRule;
  presence?: RoomRule;
  meta?: (principal: Principal | undefined) => Record<string, unknown>;
}

/** Whether `rule` lets `principal` act in `room`. A rule that throws refuses (fail closed). */
export function permits(rule: RoomRule | undefined, principal: Principal | undefined, room: string): boolean {
  if (rule === undefined) return true;
  if (principal !== undefined) {
    if (rule.principals?.includes(principal.id)) return true;
    const roles = principal.roles;
    if (rule.roles !== undefined && roles !== undefined && rule.roles.some((r) => roles.includes(r))) return true;
  }
  if (rule.allow === undefined) return false;
  try {
    return rule.allow(principal, room) === true;
  } catch {
    return false;
  }
}
