import type { Outgoing } from '../broadcast/outgoing.js';
import { type Topics, topicName } from '../broadcast/topics.js';
import type { BunServer } from './bun-api.js';

/**
 * Topics on Bun: a broadcast is one `server.publish` per topic and server, framed once and sent
 * to every subscribed socket by Bun in C++ (`fw.bun.topics`; see broadcast/topics.ts). fw clients
 * that number frames themselves get it as a sequel frame (no id, `b` or `bid`), raw clients the payload.
 */
export class BunTopics implements Topics {
  /** Every `Bun.serve` of `fw.listen()`: a socket is subscribed on the server it came in on. */
  readonly servers = new Set<BunServer>();

  publish(broadcaster: string, out: Outgoing, fw: boolean, raw: boolean): void {
    for (const server of this.servers) {
      if (fw) server.publish(topicName(true, broadcaster), out.sequelFrame());
      if (raw) server.publish(topicName(false, broadcaster), out.payload);
    }
  }
}
