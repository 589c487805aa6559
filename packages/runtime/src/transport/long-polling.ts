import type { ServerResponse } from 'node:http';
import type { Outgoing } from '../broadcast/outgoing.js';
import type { FwResource } from '../resource/resource.js';
import type { Timers } from '../timers.js';
import { encodeClose, encodeReconnect } from '@fw/protocol';
import type { Connection } from './connection.js';

/**
 * One long-polling GET. It is held until there is something to send (then answered with a JSON
 * array of frames) or until `fw.long-polling.timeout` (then `[]`). Answering detaches it from the
 * resource, which waits for the next poll like any dropped fw connection (grace period).
 */
export class LongPollConnection implements Connection {
  readonly transport = 'long-polling' as const;
  resource: FwResource | undefined;
  private frames: string[] = [];
  private done = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly timers: Timers,
    timeout: number,
  ) {
    this.timer = timers.timeout(() => {
      this.timer = undefined;
      this.respond('poll timeout');
    }, timeout);
  }

  bufferedBytes(): number {
    return 0;
  }

  /** Nothing is buffered across polls: never a slow consumer. */
  onDrain(): void {}

  begin(): void {}

  message(out: Outgoing, id: number): void {
    this.frames.push(out.frame(id));
  }

  control(frame: string): void {
    this.frames.push(frame);
  }

  end(): void {
    if (this.frames.length > 0) this.respond('answered');
  }

  heartbeat(): void {}

  closeWith(reason: string): void {
    this.frames.push(encodeClose(reason));
    this.respond('closed');
  }

  goAway(reason: string): void {
    // The held poll is answered with what is pending and a reconnect frame: the client polls
    // again with backoff (to another node behind a balancer) and resumes.
    this.frames.push(encodeReconnect(reason));
    this.respond('closed');
  }

  destroy(): void {
    this.respond('replaced');
  }

  /** The client went away before the answer. */
  aborted(): void {
    if (this.done) return;
    this.finish();
    this.resource?.detach(this, 'connection lost');
  }

  private respond(why: string): void {
    if (this.done) return;
    this.finish();
    const body = `[${this.frames.join(',')}]`;
    this.frames = [];
    if (!this.res.writableEnded) {
      this.res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        'content-length': Buffer.byteLength(body),
      });
      this.res.end(body);
    }
    this.resource?.detach(this, why === 'answered' || why === 'poll timeout' ? 'connection lost' : why);
  }

  private finish(): void {
    this.done = true;
    this.timers.clear(this.timer);
    this.timer = undefined;
  }
}
