import type { RoomMember } from '@fw/protocol';
import type { MessageSender } from './virtual-member.js';

export type { RoomMember };

/**
 * Who is in which room: the seam a cluster module implements so members of every node count
 * (docs/rooms.md, *Cluster*). The runtime's own, {@link LocalPresence}, knows this node's members.
 * `join` of a member already present replaces it (a resume does not join twice).
 */
export interface RoomPresence {
  join(room: string, member: RoomMember): void;
  /** Returns the member that left, or undefined when it was not there. */
  leave(room: string, memberId: string): RoomMember | undefined;
  /** The members of `room`, oldest first, at most `limit`, and how many there are. */
  members(room: string, limit: number): { members: RoomMember[]; total: number };
  /** The rooms with at least one member. */
  rooms(): string[];
  /**
   * A cluster presence: members that joined or left on other nodes (a dead node's members leave
   * within the node timeout). The rooms layer tells its local members and emits the events.
   */
  watch?(listener: (room: string, ev: 'join' | 'leave', member: RoomMember, node: string) => void): () => void;
  /**
   * A cluster presence: a message a member of this node published in `room`, for the virtual
   * members of other nodes (sent only when another node has one there).
   */
  relay?(room: string, data: string, from: MessageSender): void;
  /** A cluster presence: messages members of other nodes published, for this node's virtual members. */
  onRelay?(listener: (room: string, data: string, from: MessageSender) => void): () => void;
}

/** This node's members, in join order (a Map keeps insertion order). A room with no member is forgotten. */
export class LocalPresence implements RoomPresence {
  private readonly byRoom = new Map<string, Map<string, RoomMember>>();

  join(room: string, member: RoomMember): void {
    let members = this.byRoom.get(room);
    if (members === undefined) this.byRoom.set(room, (members = new Map()));
    members.set(member.id, member);
  }

  leave(room: string, memberId: string): RoomMember | undefined {
    const members = this.byRoom.get(room);
    const member = members?.get(memberId);
    if (member === undefined) return undefined;
    members!.delete(memberId);
    if (members!.size === 0) this.byRoom.delete(room);
    return member;
  }

  members(room: string, limit: number): { members: RoomMember[]; total: number } {
    const members = this.byRoom.get(room);
    if (members === undefined) return { members: [], total: 0 };
    const listed: RoomMember[] = [];
    for (const m of members.values()) {
      if (listed.length >= limit) break;
      listed.push(m);
    }
    return { members: listed, total: members.size };
  }

  rooms(): string[] {
    return [...this.byRoom.keys()];
  }
}
