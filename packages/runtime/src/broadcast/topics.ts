import type { Outgoing } from './outgoing.js';

/**
 * Native topic fan-out: a server that sends one frame to every socket subscribed to a topic
 * itself (Bun's `server.publish`, uWebSockets in C++), so that a broadcast costs one call from
 * JavaScript instead of one send per recipient. `fw.listen()` on Bun installs one
 * (`Runtime.topics`); on Node there is none and broadcasts are written per socket.
 *
 * A connection takes a broadcaster's topic only while it is in step with its resource (see
 * `FwResource.deliverByTopic`): everything before the broadcast written, nothing else to say
 * first, below the slow-consumer mark, and, for an fw client, numbering frames itself
 * (`ids=implicit`), since a published frame is the same bytes for all and cannot carry a
 * recipient's own id. The resource still numbers the message and keeps it for resume.
 */
export interface Topics {
  /** Sends a broadcast to the sockets on its broadcaster's topics: fw clients get its shared frame (`fw`), raw clients its payload (`raw`). */
  publish(broadcaster: string, out: Outgoing, fw: boolean, raw: boolean): void;
}

/** What `FwResource.deliverByTopic` did with a broadcast. */
export type TopicDelivery = typeof NOT_DELIVERED | typeof WRITTEN | typeof BY_FW_TOPIC | typeof BY_RAW_TOPIC;
/** Not delivered (the resource is closed, or its slow-consumer policy dropped it). */
export const NOT_DELIVERED = 0;
/** Delivered as `deliver` does: written by the resource's own flush. */
export const WRITTEN = 1;
/** Numbered and kept; the socket gets it from the publish to the broadcaster's fw topic. */
export const BY_FW_TOPIC = 2;
/** The same, from the raw topic. */
export const BY_RAW_TOPIC = 3;

/** A broadcaster's topic names: fw frames and raw payloads are different bytes, so two topics. */
export function topicName(fw: boolean, broadcaster: string): string {
  return (fw ? 'f' : 'r') + broadcaster;
}
