/**
 * The recent messages of each chat room, kept in memory: the page shows them when it joins a room
 * (`GET /demo/rooms/{room}/messages`), and the MCP server reads and summarises them. Fed by an
 * interceptor that sees every message a client sends into a room, plus whatever the server posts
 * itself (`remember`). Bounded: the newest `demo.rooms.history` messages per room, and
 * `demo.rooms.max` rooms (the least recently active room is forgotten first).
 */
import type { Framework } from '@fw/runtime';
import { DEMO_CONFIG } from '../config.js';

export interface ChatMessage {
  user: string;
  text: string;
  at: number;
  simulated?: true;
}

export class RoomHistory {
  private readonly rooms = new Map<string, ChatMessage[]>();

  constructor(
    private readonly perRoom: number,
    private readonly maxRooms: number,
  ) {}

  remember(room: string, message: ChatMessage): void {
    const list = this.rooms.get(room) ?? [];
    this.rooms.delete(room); // re-inserted last: Map order is the activity order
    list.push(message);
    if (list.length > this.perRoom) list.splice(0, list.length - this.perRoom);
    this.rooms.set(room, list);
    while (this.rooms.size > this.maxRooms) this.rooms.delete(this.rooms.keys().next().value!);
  }

  recent(room: string): readonly ChatMessage[] {
    return this.rooms.get(room) ?? [];
  }

  names(): string[] {
    return [...this.rooms.keys()];
  }
}

const histories = new WeakMap<Framework, RoomHistory>();

/** The framework's room history, created (and its interceptor registered) on first use. */
export function roomHistory(fw: Framework): RoomHistory {
  const history = histories.get(fw);
  if (history) return history;
  fw.config.declare(DEMO_CONFIG);
  const created = new RoomHistory(fw.config.get('demo.rooms.history'), fw.config.get('demo.rooms.max'));
  histories.set(fw, created);
  const prefix = `${fw.path}/chat/`;
  fw.intercept({
    name: 'demo-room-history',
    inbound: (resource, data) => {
      if (!resource.path.startsWith(prefix)) return;
      const message = parse(data);
      if (message) created.remember(resource.path.slice(prefix.length), message);
    },
  });
  return created;
}

function parse(data: string): ChatMessage | undefined {
  try {
    const m = JSON.parse(data) as Partial<ChatMessage>;
    if (typeof m.text !== 'string') return undefined;
    return {
      user: typeof m.user === 'string' ? m.user : 'anonymous',
      text: m.text,
      at: typeof m.at === 'number' ? m.at : Date.now(),
      ...(m.simulated === true ? { simulated: true as const } : {}),
    };
  } catch {
    return undefined;
  }
}
