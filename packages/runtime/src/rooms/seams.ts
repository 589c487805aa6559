import type { RoomMember } from '@fw/protocol';
import type { RoomPresence } from './presence.js';
import type { RoomsView } from './rooms.js';

/**
 * The rooms layer's events and service, added to the kernel's maps the way every module adds its
 * own: the admin plane forwards the events on `/fw/admin/events` and audits `RoomRefused`.
 */
declare module '../events.js' {
  interface FwEventMap {
    /** `node`: the cluster node the member is on, when it is another one than this (cluster presence). */
    RoomMemberJoined: { room: string; member: RoomMember; node?: string };
    RoomMemberLeft: { room: string; member: RoomMember; node?: string };
    /** A join, publish or history read a room's rules turned down (or a publish over the connection's rate). */
    RoomRefused: { room: string; action: 'join' | 'publish' | 'presence' | 'history'; reason: string; principal: string | null };
  }
}

declare module '../services.js' {
  interface FwServices {
    /** The rooms (docs/rooms.md), provided by `useRooms(fw)`. */
    rooms: RoomsView;
    /** Cluster-wide presence (provided by `@fw/redis`); the rooms use it instead of their node-local one. */
    'rooms.presence': RoomPresence;
  }
}
