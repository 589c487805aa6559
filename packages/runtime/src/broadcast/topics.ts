import type { Outgoing } from './outgoing.js';

/**
 * Native topic fan-out: a server that sends one frame to every socket subscribed to a topic
 * itself (Bun's `server.publish`, uWebSockets in C++), so that a broadcast costs one call from
 * JavaScript instead of one send per recipient. `fw.listen()` on Bun installs one
 * (`Runtime.topics`); on Node there is none and broadcasts are written per socket.
 *
 * A connection takes a broadcaster's topic only while its resource is in the broadcaster's
 * cohort (see Cohort): in step with it, and, for an fw client, numbering frames itself
 * (`ids=implicit`), since a published frame is the same bytes for all and cannot carry a
 * recipient's own id.
 */
export interface Topics {
  /** Sends a broadcast to the sockets on its broadcaster's topics: fw clients get its shared frame (`fw`), raw clients its payload (`raw`). */
  publish(broadcaster: string, out: Outgoing, fw: boolean, raw: boolean): void;
}

/** A broadcaster's topic names: fw frames and raw payloads are different bytes, so two topics. */
export function topicName(fw: boolean, broadcaster: string): string {
  return (fw ? 'f' : 'r') + broadcaster;
}
