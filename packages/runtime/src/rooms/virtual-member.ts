/**
 * A virtual member (docs/rooms.md, *Virtual members*): a member of a room that is not a
 * connection — an agent, a bot. It is in the room's presence like any member, hears every message
 * the room takes from this node's members, and speaks by publishing to the room (a reply streamed
 * as chunks is a run of publishes). What it does runs as the room's server-side principal, never
 * as the member whose message it answers.
 */
export interface VirtualMember {
  /** How messages address it (`@name`) and its member id (`virtual:<name>`). Unique per room. */
  name: string;
  /** Its metadata in the member list (`virtual: true` is added). */
  meta?: Record<string, unknown>;
  /** The principal it acts as; default `room:<room name>`, the room's own. */
  principal?: string;
  /**
   * A message the room took (after its rules and the sender's rate), called after the message is
   * on its way to the members: a reply published from here comes after it.
   */
  message(data: string, from: MessageSender, room: RoomHandle): void;
}

/** Who sent a message a virtual member hears. */
export interface MessageSender {
  /** The sender's member id (its resource uuid). */
  member: string;
  principal: string | null;
}

/** What a virtual member may do in its room. */
export interface RoomHandle {
  readonly name: string;
  /** The principal the virtual member acts as. */
  readonly principal: string;
  /** Broadcasts to the room's members (every node's, in cluster mode); returns how many this node reached. */
  publish(message: string | object): number;
  /** Whether the member is still in the room (a reply in progress stops when it is not). */
  readonly present: boolean;
}

/** Whether `text` addresses the member `name`: `@name` as a word of its own (case-insensitive). */
export function addresses(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w@])@${escaped}(?![\\w-])`, 'i').test(text);
}
