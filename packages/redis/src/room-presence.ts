import type { MessageSender, RoomMember, RoomPresence } from '@fw/runtime';
import type { RedisLink } from './link.js';

/** A member as stored: which node holds its connection, so a dead node's members can be found. */
interface Entry {
  node: string;
  member: RoomMember;
}

type Watcher = (room: string, ev: 'join' | 'leave', member: RoomMember, node: string) => void;
type Relayed = (room: string, data: string, from: MessageSender) => void;

/** A virtual member's id (docs/rooms.md, *Virtual members*): the rooms layer names them so. */
const isVirtual = (member: RoomMember): boolean => member.id.startsWith('virtual:');

/**
 * Removes a member and, with its last member, the room: its hash and its name in the set of rooms
 * (so a room nobody is in keeps nothing in Redis). KEYS: the room's hash, the set of rooms, the
 * channel. ARGV: the fields to remove, then the room's name and the event to publish (last two).
 */
const LEAVE_SCRIPT = `
local n = #ARGV
for i = 1, n - 2 do redis.call('HDEL', KEYS[1], ARGV[i]) end
if redis.call('HLEN', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[n - 1]) end
if ARGV[n] ~= '' then redis.call('PUBLISH', KEYS[3], ARGV[n]) end
return 0`;

/**
 * Room presence across the cluster (docs/rooms.md, *Cluster*): one hash per room
 * (`<prefix>:room:<name>`, field `<node>|<member id>`), the set of rooms (`<prefix>:rooms`) and
 * a channel for joins and leaves. Each node keeps a mirror of every room in memory, so the
 * rooms layer reads members synchronously and nothing is asked of Redis on a read; the mirror is
 * loaded when the node subscribes (at start, after every reconnect) and kept by the channel.
 *
 * A node that dies takes its members with it: when the node presence reports it gone (no
 * heartbeat within `fw.cluster.node-timeout`), every node drops its members from its mirror, tells
 * its own members they left, and removes them from Redis (idempotent: each survivor may). Entries
 * of nodes that are not alive are also pruned at every load, so a cluster that restarted whole
 * keeps nothing of its past members: what is stored lives as long as a member or a node start.
 *
 * The same channel relays what members publish to the virtual members of other nodes (an agent in
 * a room on one node hears the members of every node), only for rooms where another node has one.
 */
export class ClusterRoomPresence implements RoomPresence {
  private readonly mirror = new Map<string, Map<string, Entry>>();
  private readonly watchers = new Set<Watcher>();
  private readonly relayed = new Set<Relayed>();
  /** Per room, how many virtual members other nodes have there: a message is relayed only to a room that has some. */
  private readonly remoteVirtual = new Map<string, number>();
  private readonly channel: string;
  private readonly onMessage = (channel: string, message: string): void => {
    if (channel === this.channel) this.receive(message);
  };

  constructor(
    private readonly link: RedisLink,
    private readonly prefix: string,
    private readonly nodeId: string,
    /** The ids of the live nodes (this one included). */
    private readonly liveNodes: () => Promise<string[]>,
  ) {
    this.channel = `${prefix}:rooms:events`;
    (link.cmd as unknown as { defineCommand(name: string, o: { numberOfKeys: number; lua: string }): void }).defineCommand('fwRoomLeave', {
      numberOfKeys: 3,
      lua: LEAVE_SCRIPT,
    });
    link.sub.on('message', this.onMessage);
  }

  private roomKey(room: string): string {
    return `${this.prefix}:room:${room}`;
  }

  private get roomsKey(): string {
    return `${this.prefix}:rooms`;
  }

  join(room: string, member: RoomMember): void {
    this.put(room, { node: this.nodeId, member });
    const entry = JSON.stringify({ node: this.nodeId, member });
    void this.link.cmd
      .multi()
      .hset(this.roomKey(room), `${this.nodeId}|${member.id}`, entry)
      .sadd(this.roomsKey, room)
      .publish(this.channel, JSON.stringify({ ev: 'join', room, node: this.nodeId, member }))
      .exec()
      .catch(() => undefined); // Redis away: the next load writes this node's members again
  }

  leave(room: string, memberId: string): RoomMember | undefined {
    const entry = this.take(room, `${this.nodeId}|${memberId}`);
    if (entry === undefined) return undefined;
    const event = JSON.stringify({ ev: 'leave', room, node: this.nodeId, member: entry.member });
    void this.remove(room, [`${this.nodeId}|${memberId}`], event);
    return entry.member;
  }

  members(room: string, limit: number): { members: RoomMember[]; total: number } {
    const entries = this.mirror.get(room);
    if (entries === undefined) return { members: [], total: 0 };
    const members: RoomMember[] = [];
    for (const e of entries.values()) {
      if (members.length >= limit) break;
      members.push(e.member);
    }
    return { members, total: entries.size };
  }

  rooms(): string[] {
    return [...this.mirror.keys()];
  }

  relay(room: string, data: string, from: MessageSender): void {
    if (!this.remoteVirtual.has(room)) return;
    void this.link.cmd.publish(this.channel, JSON.stringify({ ev: 'heard', room, node: this.nodeId, data, from })).catch(() => undefined);
  }

  onRelay(listener: Relayed): () => void {
    this.relayed.add(listener);
    return () => this.relayed.delete(listener);
  }

  watch(listener: Watcher): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  /**
   * Subscribes and loads every room (at start and after every reconnect: what happened while the
   * link was down is only in the hashes). This node's own members are written again (a Redis that
   * restarted empty lost them); other nodes' members that are new or gone are said to the watchers.
   */
  async start(): Promise<void> {
    await this.link.sub.subscribe(this.channel);
    const live = new Set(await this.liveNodes());
    live.add(this.nodeId);
    const cmd = this.link.cmd;
    const own: [string, Entry][] = [];
    for (const [room, entries] of this.mirror) for (const e of entries.values()) if (e.node === this.nodeId) own.push([room, e]);
    if (own.length > 0) {
      const m = cmd.multi();
      for (const [room, e] of own) m.hset(this.roomKey(room), `${this.nodeId}|${e.member.id}`, JSON.stringify(e)).sadd(this.roomsKey, room);
      await m.exec();
    }
    const seen = new Set<string>();
    for (const room of await cmd.smembers(this.roomsKey)) {
      const stored = await cmd.hgetall(this.roomKey(room));
      const dead: string[] = [];
      for (const [field, value] of Object.entries(stored)) {
        let e: Entry;
        try {
          e = JSON.parse(value) as Entry;
        } catch {
          dead.push(field);
          continue;
        }
        if (!live.has(e.node)) {
          dead.push(field);
          continue;
        }
        seen.add(`${room}\n${field}`);
        if (e.node !== this.nodeId && this.put(room, e)) this.tell(room, 'join', e);
      }
      if (dead.length > 0 || Object.keys(stored).length === 0) await this.remove(room, dead, '');
    }
    // Members of other nodes this mirror holds and Redis no longer does: they left meanwhile.
    for (const [room, entries] of [...this.mirror]) {
      for (const [field, e] of [...entries]) {
        if (e.node === this.nodeId || seen.has(`${room}\n${field}`)) continue;
        this.take(room, field);
        this.tell(room, 'leave', e);
      }
    }
  }

  /** A node left the cluster (no heartbeat within the node timeout): its members leave every room. */
  nodeLeft(node: string): void {
    for (const [room, entries] of [...this.mirror]) {
      const fields: string[] = [];
      for (const [field, e] of [...entries]) {
        if (e.node !== node) continue;
        fields.push(field);
        this.take(room, field);
        this.tell(room, 'leave', e);
      }
      if (fields.length > 0) void this.remove(room, fields, '');
    }
  }

  close(): void {
    this.link.sub.off('message', this.onMessage);
  }

  private receive(message: string): void {
    let e: { ev: 'join' | 'leave' | 'heard'; room: string; node: string; member: RoomMember; data: string; from: MessageSender };
    try {
      e = JSON.parse(message) as typeof e;
    } catch {
      return;
    }
    if (e.node === this.nodeId || typeof e.room !== 'string') return;
    if (e.ev === 'heard') {
      if (typeof e.data === 'string' && typeof e.from?.member === 'string') for (const l of this.relayed) l(e.room, e.data, e.from);
      return;
    }
    if (typeof e.member?.id !== 'string') return;
    const field = `${e.node}|${e.member.id}`;
    if (e.ev === 'join') {
      if (this.put(e.room, { node: e.node, member: e.member })) this.tell(e.room, 'join', { node: e.node, member: e.member });
    } else if (this.take(e.room, field) !== undefined) this.tell(e.room, 'leave', { node: e.node, member: e.member });
  }

  /** Adds or replaces an entry; true when it is new. */
  private put(room: string, e: Entry): boolean {
    let entries = this.mirror.get(room);
    if (entries === undefined) this.mirror.set(room, (entries = new Map()));
    const field = `${e.node}|${e.member.id}`;
    const fresh = !entries.has(field);
    entries.set(field, e);
    if (fresh && e.node !== this.nodeId && isVirtual(e.member)) this.remoteVirtual.set(room, (this.remoteVirtual.get(room) ?? 0) + 1);
    return fresh;
  }

  private take(room: string, field: string): Entry | undefined {
    const entries = this.mirror.get(room);
    const e = entries?.get(field);
    if (e === undefined) return undefined;
    entries!.delete(field);
    if (entries!.size === 0) this.mirror.delete(room);
    if (e.node !== this.nodeId && isVirtual(e.member)) {
      const left = (this.remoteVirtual.get(room) ?? 1) - 1;
      if (left > 0) this.remoteVirtual.set(room, left);
      else this.remoteVirtual.delete(room);
    }
    return e;
  }

  private tell(room: string, ev: 'join' | 'leave', e: Entry): void {
    for (const w of this.watchers) w(room, ev, e.member, e.node);
  }

  private async remove(room: string, fields: string[], event: string): Promise<void> {
    try {
      await (this.link.cmd as unknown as { fwRoomLeave(...args: string[]): Promise<unknown> }).fwRoomLeave(
        this.roomKey(room),
        this.roomsKey,
        this.channel,
        ...fields,
        room,
        event,
      );
    } catch {
      // Redis away: a dead entry is pruned at the next load on some node
    }
  }
}
