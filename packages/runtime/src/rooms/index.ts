export { Rooms, useRooms, type RoomsOptions, type RoomInfo, type RoomsView } from './rooms.js';
export { permits, type RoomRule, type RoomPolicy, type RoomAction } from './authorizer.js';
export { LocalPresence, type RoomPresence, type RoomMember } from './presence.js';
export type { HistoryPage, HistoryMessage, HistoryQuery } from './history.js';
export { ROOMS_CONFIG } from './config.js';
export { addresses, type VirtualMember, type MessageSender, type RoomHandle } from './virtual-member.js';
import './seams.js';
