/**
 * The protocol's own ceilings on room frames (docs/rooms.md). A server's configured limits
 * (`fw.rooms.max-meta-bytes`, `fw.rooms.members-listed`) must stay at or below them; a peer's
 * frame past them is not an fw frame, so neither side holds an unbounded member list or blob.
 */
export const ROOM_LIMITS = {
  /** Largest member metadata, as JSON characters. */
  maxMetaBytes: 8192,
  /** Most members one `members` frame lists. */
  maxMembersListed: 1000,
} as const;
