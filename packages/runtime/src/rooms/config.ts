import { defineConfig } from '../config.js';

/**
 * The rooms layer's keys (docs/rooms.md). Every bound a room has is one of these: a client's
 * metadata, how many members one frame lists, how fast one connection may publish, how much one
 * history read returns.
 */
export const ROOMS_CONFIG = defineConfig({
  'fw.rooms.max-meta-bytes': {
    type: 'number',
    default: 512,
    description:
      'Largest member metadata a client may ask for with `?meta=` (JSON characters); more is `400 invalid_room_meta`. At most the protocol ceiling, 8192 ([rooms](rooms.md#member-metadata))',
  },
  'fw.rooms.members-listed': {
    type: 'number',
    default: 100,
    description:
      'Most members a `members` frame and `GET /api/admin/rooms` list per room (the count is always whole); at most the protocol ceiling, 1000 ([rooms](rooms.md#presence))',
  },
  'fw.rooms.publish-rate': {
    type: 'number',
    default: 20,
    description:
      'Messages per second one connection may publish to a room (a token bucket); past it the message is not taken and the client gets a `refused` frame with `rate_limited`; 0 turns the limit off ([rooms](rooms.md#publish-rate))',
  },
  'fw.rooms.publish-burst': {
    type: 'number',
    default: 40,
    description: 'Messages one connection may publish at once before `fw.rooms.publish-rate` applies (the bucket size)',
  },
  'fw.rooms.history-max': {
    type: 'number',
    default: 100,
    description:
      "Most messages one history read returns (`GET <fw.path>/rooms/history`, the client's `room.history()`); a larger `last` is `400` ([rooms](rooms.md#history))",
  },
});
