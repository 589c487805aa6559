import type { IncomingMessage, ServerResponse } from 'node:http';
import { encodeMembers, encodePresence, encodeRefused, ROOM_LIMITS, type RoomMember } from '@fw/protocol';
import { frameworkAuthenticator } from '../auth/config.js';
import { FwError } from '../errors.js';
import type { Framework } from '../framework.js';
import { sendJson } from '../http/body.js';
import { PathPattern } from '../http/path-pattern.js';
import { sendError } from '../http/problem.js';
import type { RouteContext } from '../http/router.js';
import type { Interceptor, Principal, Resource } from '../model.js';
import { permits, type RoomAction, type RoomPolicy } from './authorizer.js';
import { readHistory, type HistoryPage, type HistoryQuery } from './history.js';
import { clientMeta } from './member-meta.js';
import { LocalPresence, type RoomPresence } from './presence.js';
import { PublishBucket } from './publish-rate.js';
import type { MessageSender, RoomHandle, VirtualMember } from './virtual-member.js';

export interface RoomsOptions {
  /** The rules per room pattern; the first pattern that matches a room's path applies. A room no pattern matches is open. */
  rooms?: readonly RoomPolicy[];
  /** Who is where; default this node's members only ({@link LocalPresence}). A cluster module provides one across nodes. */
  presence?: RoomPresence;
}

/** One room as the admin plane lists it (`GET /api/admin/rooms`). */
export interface RoomInfo {
  name: string;
  members: number;
  /** At most `fw.rooms.members-listed`, oldest first. */
  memberDetails: RoomMember[];
}

/** What the admin plane reads of the rooms (service `'rooms'`). */
export interface RoomsView {
  list(): RoomInfo[];
  get(name: string): RoomInfo | undefined;
}

/** A resource's place in its room: kept on the side, so a resource of a handler without rooms carries nothing. */
interface Membership {
  room: string;
  policy: RoomPolicy | undefined;
  member: RoomMember;
  bucket: PublishBucket | undefined;
  seesPresence: boolean;
}

const META_ATTRIBUTE = 'fw.rooms.meta';
const OPEN: RoomPolicy = { pattern: '' };

/**
 * Rooms on broadcasters (docs/rooms.md): a handler that has {@link Rooms.interceptor} among its
 * interceptors (after `authenticate(fw)`, which finds the principal) makes its path's broadcaster
 * a room. A connection is a member while its resource lives (a resume keeps it); members that may
 * see presence get the member list when they join and a `presence` frame for each join and
 * leave. Joins, publishes and history reads pass the room's rules; a refusal is a clear answer (a
 * 403 before any socket for a join or a history read, a `refused` frame for a publish) and a
 * `RoomRefused` event, which the admin plane audits. Nothing here runs on a broadcast: a room's
 * fan-out is its broadcaster's.
 */
export class Rooms implements RoomsView {
  private current: RoomPresence;
  /** Put it after `authenticate(fw)` in the handler's interceptors. */
  readonly interceptor: Interceptor;
  private readonly policies: { pattern: PathPattern; policy: RoomPolicy }[];
  private readonly memberships = new WeakMap<Resource, Membership>();
  /** This node's member resources per room: where presence frames go. */
  private readonly local = new Map<string, Set<Resource>>();
  /** Virtual members per room (agents, bots), with the handle each speaks through. */
  private readonly virtual = new Map<string, Map<string, { member: VirtualMember; handle: RoomHandle }>>();

  constructor(
    private readonly fw: Framework,
    options: RoomsOptions = {},
  ) {
    for (const key of ['fw.rooms.max-meta-bytes', 'fw.rooms.members-listed'] as const) {
      const ceiling = key === 'fw.rooms.max-meta-bytes' ? ROOM_LIMITS.maxMetaBytes : ROOM_LIMITS.maxMembersListed;
      const v = fw.config.get(key);
      if (!Number.isInteger(v) || v < 1 || v > ceiling) throw fw.config.invalid(key, `must be an integer from 1 to ${ceiling}`);
    }
    for (const key of ['fw.rooms.publish-rate', 'fw.rooms.publish-burst', 'fw.rooms.history-max'] as const) {
      const v = fw.config.get(key);
      if (!Number.isFinite(v) || v < 0 || (key === 'fw.rooms.history-max' && v < 1))
        throw fw.config.invalid(key, 'must be a positive number');
    }
    this.current = options.presence ?? new LocalPresence();
    // A cluster module provides presence across nodes: this node's members move into it.
    if (options.presence === undefined) fw.services.whenProvided('rooms.presence', (cluster) => this.useClusterPresence(cluster));
    this.policies = (options.rooms ?? []).map((policy) => ({ pattern: new PathPattern(policy.pattern), policy }));
    this.interceptor = {
      name: 'rooms',
      connect: (ctx) => {
        const policy = this.policyOf(ctx.path);
        if (!permits(policy.join, ctx.principal, ctx.path)) {
          this.refused(ctx.path, 'join', 'not_allowed', ctx.principal);
          return { status: 403, code: 'room_join_refused', detail: `${whoIs(ctx.principal)} may not join the room ${ctx.path}` };
        }
        const meta = clientMeta(ctx.url.searchParams.get('meta'), fw.config.get('fw.rooms.max-meta-bytes'));
        ctx.attributes.set(META_ATTRIBUTE, meta);
      },
      attach: (resource) => this.join(resource),
      detach: (resource) => this.leave(resource),
      inbound: (resource, data) => {
        if (!this.mayPublish(resource)) return false;
        const room = this.memberships.get(resource)?.room;
        if (room === undefined) return true;
        const relay = this.current.relay;
        if (!this.virtual.has(room) && relay === undefined) return true;
        const from: MessageSender = { member: resource.uuid, principal: resource.principal?.id ?? null };
        if (this.virtual.has(room)) this.tellVirtual(room, data, from);
        relay?.call(this.current, room, data, from);
        return true;
      },
    };
    fw.route('GET', `${fw.path}/rooms/history`, (req, res, ctx) => this.serveHistory(req, res, ctx));
    fw.services.provide('rooms', this);
  }

  /** Who is where: this node's own presence, or the cluster's once a cluster module provided it. */
  get presence(): RoomPresence {
    return this.current;
  }

  list(): RoomInfo[] {
    return this.presence
      .rooms()
      .sort()
      .map((name) => this.get(name))
      .filter((r): r is RoomInfo => r !== undefined);
  }

  get(name: string): RoomInfo | undefined {
    const { members, total } = this.presence.members(name, this.fw.config.get('fw.rooms.members-listed'));
    if (total === 0) return undefined;
    return { name, members: total, memberDetails: members };
  }

  /** The members of a room (at most `fw.rooms.members-listed`) and how many there are. */
  members(room: string): { members: RoomMember[]; total: number } {
    return this.presence.members(room, this.fw.config.get('fw.rooms.members-listed'));
  }

  /**
   * Adds a virtual member to `room` (a path such as `/fw/chat/lobby`): it is in the presence of
   * every node, hears what the room's members publish (on every node, in cluster mode), and speaks
   * with `publish`. Returns the function that takes it out.
   */
  addVirtualMember(room: string, member: VirtualMember): () => void {
    let members = this.virtual.get(room);
    if (members === undefined) this.virtual.set(room, (members = new Map()));
    if (members.has(member.name)) throw new FwError('duplicate_member', `${room} has a virtual member '${member.name}' already`, 409);
    const principal = member.principal ?? `room:${room}`;
    const info: RoomMember = {
      id: `virtual:${member.name}`,
      principal,
      meta: { ...member.meta, virtual: true },
      joinedAt: Date.now(),
    };
    let present = true;
    const handle: RoomHandle = {
      name: room,
      principal,
      publish: (message) => (present ? this.fw.broadcasters.lookup(room, true).broadcast(message) : 0),
      get present() {
        return present;
      },
    };
    members.set(member.name, { member, handle });
    this.presence.join(room, info);
    this.announce(room, encodePresence(room, 'join', info), undefined);
    this.fw.events.emit('RoomMemberJoined', { room, member: info });
    return () => {
      if (!present) return;
      present = false;
      members.delete(member.name);
      if (members.size === 0) this.virtual.delete(room);
      if (this.presence.leave(room, info.id) === undefined) return;
      this.announce(room, encodePresence(room, 'leave', info), undefined);
      this.fw.events.emit('RoomMemberLeft', { room, member: info });
    };
  }

  /** Hands a message the room took to its virtual members, once it is on its way to the others. */
  private tellVirtual(room: string, data: string, from: MessageSender): void {
    queueMicrotask(() => {
      for (const { member, handle } of this.virtual.get(room)?.values() ?? []) {
        try {
          member.message(data, from, handle);
        } catch (err) {
          this.fw.logger.error({ err, room, member: member.name }, 'virtual member failed');
        }
      }
    });
  }

  /** The room's past messages after `since`, or its `last` N, with the gaps nobody can fill said. */
  async history(room: string, query: HistoryQuery): Promise<HistoryPage | undefined> {
    const rt = this.fw.runtime;
    return readHistory(room, query, {
      broadcaster: rt.broadcasters.lookup(room),
      store: rt.replayStore,
      epoch: rt.epoch,
      max: this.fw.config.get('fw.rooms.history-max'),
    });
  }

  private useClusterPresence(cluster: RoomPresence): void {
    const local = this.current;
    this.current = cluster;
    for (const room of local.rooms()) for (const m of local.members(room, Number.MAX_SAFE_INTEGER).members) cluster.join(room, m);
    // Messages the members of other nodes published, for the virtual members of this one.
    cluster.onRelay?.((room, data, from) => {
      if (this.virtual.has(room)) this.tellVirtual(room, data, from);
    });
    cluster.watch?.((room, ev, member, node) => {
      this.announce(room, encodePresence(room, ev, member), undefined);
      this.fw.events.emit(ev === 'join' ? 'RoomMemberJoined' : 'RoomMemberLeft', { room, member, node });
    });
  }

  private policyOf(path: string): RoomPolicy {
    const relative = path.startsWith(this.fw.path) ? path.slice(this.fw.path.length) : path;
    for (const { pattern, policy } of this.policies) if (pattern.match(relative) !== undefined) return policy;
    return OPEN;
  }

  private join(resource: Resource): void {
    const room = resource.path;
    if (!resource.broadcasters.has(room)) return; // a handler that joins no broadcaster (or another one) has no room
    const policy = this.policyOf(room);
    const principal = resource.principal;
    const clientPart = (resource.attributes.get(META_ATTRIBUTE) as Record<string, unknown> | undefined) ?? {};
    resource.attributes.delete(META_ATTRIBUTE);
    const member: RoomMember = {
      id: resource.uuid,
      principal: principal?.id ?? null,
      meta: { ...clientPart, ...(policy.meta?.(principal) ?? {}) },
      joinedAt: Date.now(),
    };
    const rate = this.fw.config.get('fw.rooms.publish-rate');
    const membership: Membership = {
      room,
      policy,
      member,
      bucket: rate > 0 ? new PublishBucket(rate, this.fw.config.get('fw.rooms.publish-burst'), Date.now()) : undefined,
      seesPresence: permits(policy.presence, principal, room),
    };
    this.memberships.set(resource, membership);
    this.presence.join(room, member);
    this.announce(room, encodePresence(room, 'join', member), resource);
    let here = this.local.get(room);
    if (here === undefined) this.local.set(room, (here = new Set()));
    here.add(resource);
    if (membership.seesPresence) {
      const { members, total } = this.members(room);
      resource.writeControl(encodeMembers(room, members, total));
    }
    this.fw.events.emit('RoomMemberJoined', { room, member });
  }

  private leave(resource: Resource): void {
    const membership = this.memberships.get(resource);
    if (membership === undefined) return;
    this.memberships.delete(resource);
    const { room, member } = membership;
    const here = this.local.get(room);
    here?.delete(resource);
    if (here?.size === 0) this.local.delete(room);
    if (this.presence.leave(room, member.id) === undefined) return;
    this.announce(room, encodePresence(room, 'leave', member), undefined);
    this.fw.events.emit('RoomMemberLeft', { room, member });
  }

  /**
   * Tells this node's members that may see presence. A cluster presence calls it for the members
   * of other nodes (their joins and leaves, a dead node's members leaving).
   */
  announce(room: string, frame: string, except: Resource | undefined): void {
    const here = this.local.get(room);
    if (here === undefined) return;
    for (const r of here) if (r !== except && this.memberships.get(r)?.seesPresence) r.writeControl(frame);
  }

  /** The publish rule and the connection's rate, on every client message of a room member. */
  private mayPublish(resource: Resource): boolean {
    const m = this.memberships.get(resource);
    if (m === undefined) return true;
    if (m.policy?.publish !== undefined && !permits(m.policy.publish, resource.principal, m.room)) {
      resource.writeControl(encodeRefused(m.room, 'not_allowed'));
      this.refused(m.room, 'publish', 'not_allowed', resource.principal);
      return false;
    }
    const wait = m.bucket?.take(Date.now()) ?? 0;
    if (wait > 0) {
      resource.writeControl(encodeRefused(m.room, 'rate_limited', wait));
      this.refused(m.room, 'publish', 'rate_limited', resource.principal);
      return false;
    }
    return true;
  }

  private refused(room: string, action: RoomAction | 'history', reason: string, principal: Principal | undefined): void {
    if (this.fw.events.wants('RoomRefused')) this.fw.events.emit('RoomRefused', { room, action, reason, principal: principal?.id ?? null });
  }

  /** `GET <fw.path>/rooms/history?room=…&last=N | since=bid [&epoch=…]`, behind the room's join rule. */
  private async serveHistory(req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> {
    try {
      const q = ctx.url.searchParams;
      const room = q.get('room');
      if (room === null || room === '') throw badQuery('room', "'room' is required: the room's path, e.g. /fw/chat/lobby");
      const max = this.fw.config.get('fw.rooms.history-max');
      const last = q.get('last');
      const since = q.get('since');
      if (last !== null && since !== null) throw badQuery('last', "give 'last' or 'since', not both");
      const epoch = q.get('epoch') ?? undefined;
      let query: HistoryQuery;
      if (since !== null) {
        if (!/^\d{1,15}$/.test(since)) throw badQuery('since', "'since' must be a broadcaster sequence (an integer, 0 or more)");
        query = { since: Number(since), epoch };
      } else {
        if (last !== null && !/^\d{1,15}$/.test(last)) throw badQuery('last', "'last' must be an integer");
        const n = last === null ? max : Number(last);
        if (n < 1 || n > max) throw badQuery('last', `'last' must be from 1 to ${max} (fw.rooms.history-max)`);
        query = { last: n, epoch };
      }
      const authenticator = frameworkAuthenticator(this.fw);
      const principal = authenticator ? await authenticator(req, ctx.url) : undefined;
      if (!permits(this.policyOf(room).join, principal, room)) {
        this.refused(room, 'history', 'not_allowed', principal);
        throw new FwError('room_history_refused', `${whoIs(principal)} may not read the room ${room}`, 403);
      }
      const page = await this.history(room, query);
      if (page === undefined) throw new FwError('unknown_room', `no room ${room} here: nobody is in it and no history is kept`, 404);
      sendJson(res, 200, page);
    } catch (err) {
      sendError(res, err);
    }
  }
}

function badQuery(parameter: string, detail: string): FwError {
  return new FwError('invalid_query', detail, 400, { parameter });
}

function whoIs(principal: Principal | undefined): string {
  return principal === undefined ? 'an anonymous caller' : `'${principal.id}'`;
}

/** The framework's rooms, made on first use with these options (later calls return the same). */
export function useRooms(fw: Framework, options: RoomsOptions = {}): Rooms {
  return (fw.services.get('rooms') as Rooms | undefined) ?? new Rooms(fw, options);
}
