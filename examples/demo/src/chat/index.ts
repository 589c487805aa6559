import { sendJson, sendProblem, useRooms, type Framework } from '@fw/runtime';
import { roomHistory } from './history.js';

/** The rooms the page offers; any other `/fw/chat/{room}` works too. */
export const ROOMS = ['lobby', 'random', 'help'] as const;
const ROOM_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;

/**
 * The chat: one handler on `/chat/{room}`. It has no `message` callback, so whatever a client
 * sends is broadcast to its room's broadcaster (`/fw/chat/<room>`), the sender included. Room
 * names are checked by an interceptor; each room is an fw room (docs/rooms.md): its members and
 * their names (`?meta={"name":…}`) are its presence, which the page lists. `/demo/rooms` lists the
 * rooms with their member counts and `/demo/rooms/{room}/messages` returns a room's recent
 * messages (what a joining page shows first).
 */
export function installChat(fw: Framework): void {
  const history = roomHistory(fw);
  const rooms = useRooms(fw);
  fw.handle(
    '/chat/{room}',
    {},
    {
      description: 'Demo chat rooms: messages are broadcast to everyone in the room',
      interceptors: [
        {
          name: 'room-name',
          connect: (ctx) =>
            ROOM_NAME.test(ctx.params.room ?? '')
              ? undefined
              : { status: 400, code: 'invalid_room', detail: 'room names are 1–32 lowercase letters, digits or dashes' },
        },
        rooms.interceptor,
      ],
    },
  );
  fw.route('GET', '/demo/rooms', (_req, res) => {
    const prefix = `${fw.path}/chat/`;
    // Members as the rooms count them: the agent in the lobby too, and every node's in a cluster.
    const live = new Map(
      rooms
        .list()
        .filter((r) => r.name.startsWith(prefix))
        .map((r) => [r.name.slice(prefix.length), r.members]),
    );
    const list = [...new Set([...ROOMS, ...live.keys()])].map((name) => ({ name, members: live.get(name) ?? 0 }));
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    res.end(JSON.stringify({ rooms: list }));
  });
  fw.route('GET', '/demo/rooms/{room}/messages', (_req, res, ctx) => {
    const room = ctx.params.room ?? '';
    if (!ROOM_NAME.test(room)) {
      sendProblem(res, 400, 'invalid_room', 'room names are 1–32 lowercase letters, digits or dashes');
      return;
    }
    sendJson(res, 200, { room, messages: history.recent(room) }, { 'cache-control': 'no-store' });
  });
}
