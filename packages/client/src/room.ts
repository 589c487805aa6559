/**
 * `@fw/client/room` (the browser: `<fw>/room.js`): the room of a client's connection
 * (docs/rooms.md). Apart from the client's core so a page without rooms loads none of it: it
 * reads the frames the core passes on (`onOtherFrame`) and checks them itself.
 *
 *   const client = connect('/fw/chat/lobby');
 *   const lobby = room(client);
 *   lobby.onJoin((m) => …); lobby.onLeave((m) => …);
 *   const { messages, gaps } = await lobby.history({ last: 20 });
 */
import { checkRoomFrame, type Gap, type RefusedFrame, type RoomMember } from '@fw/protocol';
import type { FwClient } from './client.js';
import { ClientError } from './errors.js';
import type { FetchLike } from './transport.js';

export type { RoomMember, RefusedFrame };

export interface RoomOptions {
  /** fetch for `history()`. Default `globalThis.fetch`. */
  fetch?: FetchLike;
  /** The credential for `history()` (`Authorization: Bearer`); give the client's own. */
  token?: string | (() => string | Promise<string>);
  /** The server's framework path (`fw.path`), where `history()` is read. Default `/fw`. */
  fwPath?: string;
}

/** A page of the room's history (the server's `GET <fw>/rooms/history`). */
export interface RoomHistory {
  room: string;
  epoch: string;
  /** Oldest first; `bid` is the broadcaster sequence of the live message. */
  messages: { bid: number; d: string }[];
  /** What nobody holds any more, said: a gap without `to` means nothing can tell what came after `from`. */
  gaps: Gap[];
  /** More than `fw.rooms.history-max` matched: read on with `since` the last `bid`. */
  more: boolean;
}

type Listener<T> = (value: T) => void;

/** The room of one client connection: who is in it, their joins and leaves, refusals, and its history. */
export class Room {
  /** The members the server listed, by id (`fw.rooms.members-listed` at most, then every join and leave). */
  readonly members = new Map<string, RoomMember>();
  /** How many members the room has (a large room is counted, not listed). */
  total = 0;
  private readonly joins = new Set<Listener<RoomMember>>();
  private readonly leaves = new Set<Listener<RoomMember>>();
  private readonly refusals = new Set<Listener<RefusedFrame>>();
  private readonly lists = new Set<Listener<RoomMember[]>>();
  private readonly off: () => void;

  constructor(
    private readonly client: FwClient,
    private readonly options: RoomOptions = {},
  ) {
    this.off = client.onOtherFrame((raw) => {
      const f = checkRoomFrame(raw);
      if (f === undefined) return;
      if (f.t === 'members') {
        // A fresh resource (a reconnect the server could not resume) lists the room again.
        this.members.clear();
        for (const m of f.m) this.members.set(m.id, m);
        this.total = f.total;
        return emit(this.lists, [...this.members.values()]);
      }
      if (f.t === 'refused') return emit(this.refusals, f);
      if (f.ev === 'join') {
        if (!this.members.has(f.m.id)) this.total++;
        this.members.set(f.m.id, f.m);
        return emit(this.joins, f.m);
      }
      if (this.members.delete(f.m.id) || this.total > this.members.size) this.total--;
      emit(this.leaves, f.m);
    });
  }

  /** The room's name: the path of the client's endpoint (its broadcaster). */
  get name(): string {
    return new URL(this.client.url).pathname;
  }

  onJoin(listener: Listener<RoomMember>): () => void {
    return add(this.joins, listener);
  }

  onLeave(listener: Listener<RoomMember>): () => void {
    return add(this.leaves, listener);
  }

  /** The member list arrived (on joining, and again after a reconnect to a fresh resource). */
  onMembers(listener: Listener<RoomMember[]>): () => void {
    return add(this.lists, listener);
  }

  /** A message the room did not take: `not_allowed` (the publish rule), `rate_limited` (with `retryAfter` ms). */
  onRefused(listener: Listener<RefusedFrame>): () => void {
    return add(this.refusals, listener);
  }

  /** The room's last N messages, or those after broadcaster sequence `since` (of the handshake's `epoch`, when given). */
  async history(query: { last: number } | { since: number; epoch?: string }): Promise<RoomHistory> {
    const fetchImpl = this.options.fetch ?? globalThis.fetch;
    const url = new URL(`${this.options.fwPath ?? '/fw'}/rooms/history`, this.client.url.replace(/^ws/, 'http'));
    url.searchParams.set('room', this.name);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    const token = typeof this.options.token === 'function' ? await this.options.token() : this.options.token;
    const res = await fetchImpl(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    const body = (await res.json()) as RoomHistory & { code?: string; detail?: string };
    if (!res.ok) throw new ClientError('http_error', body.detail ?? `history: ${res.status}`, res.status, body.code);
    return body;
  }

  /** Stops following the room (the connection is the client's: close it there). */
  close(): void {
    this.off();
  }
}

/** The room of `client`'s connection. */
export function room(client: FwClient, options?: RoomOptions): Room {
  return new Room(client, options);
}

function add<T>(set: Set<T>, item: T): () => void {
  set.add(item);
  return () => set.delete(item);
}

function emit<T>(set: Set<Listener<T>>, value: T): void {
  for (const l of set) {
    try {
      l(value);
    } catch {
      // a listener's failure is its own; the room stays consistent
    }
  }
}
