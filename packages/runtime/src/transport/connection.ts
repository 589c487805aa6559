import type { TransportName } from '../events.js';
import type { FrameRing } from '../broadcast/frame-ring.js';
import type { Outgoing } from '../broadcast/outgoing.js';
import type { FwResource } from '../resource/resource.js';

/**
 * One physical connection carrying a resource's frames. A resource outlives its connections (a
 * fw client resumes on a new one); a connection writes batches: `begin`, any number of
 * `message`/`control` calls, `end`, so that a transport can coalesce one tick's frames into one
 * write.
 */
export interface Connection {
  readonly transport: TransportName;
  /** The resource on this connection (set by `FwResource.attach`, cleared when it leaves). */
  resource: FwResource | undefined;
  /** Bytes written but not yet sent, for the slow-consumer policy. */
  bufferedBytes(): number;
  /** Calls `fn` once when what was buffered has been sent (never, where nothing is buffered: long-polling). */
  onDrain(fn: () => void): void;
  /**
   * Starts a batch. `single`: the batch is one message frame and nothing else, which a transport
   * may write as is instead of coalescing (a corked socket's write costs more than a plain one).
   */
  begin(single?: boolean): void;
  /** A message frame with the resource's id for it. */
  message(out: Outgoing, id: number): void;
  /**
   * Optional: the messages `from`…`to - 1` of the resource's ring at once, where the transport
   * can write them as bytes shared with other connections (see `FrameBatches`); false
   * when it cannot (then `message` is called for each).
   */
  messages?(ring: FrameRing<Outgoing>, from: number, to: number): boolean;
  /** A control frame (fw protocol only): handshake, heartbeat, gap, close; a JSON object string. */
  control(frame: string): void;
  end(): void;
  /** A keep-alive when nothing else was sent (fw heartbeat frame, WebSocket ping, SSE comment). */
  heartbeat(): void;
  /** Ends the connection on purpose: an fw client gets a close frame (or 4000 + reason), then the socket ends. */
  closeWith(reason: string, code?: number): void;
  /**
   * Ends the connection because the server is going away: pending frames are flushed but no
   * close frame is sent, so an fw client treats it as a drop and reconnects (to this node once it
   * is back, or to another one). WebSockets close with 1012 (service restart); SSE, streaming and
   * long-polling send a `reconnect` frame (fw protocol) before they end.
   */
  goAway(reason: string): void;
  /** Kills the connection without a goodbye (tests use this to simulate a network drop). */
  destroy(): void;
  /**
   * Native topics only (Bun, see broadcast/topics.ts): the broadcaster whose topic this connection
   * takes broadcasts from, if any; `takesTopics`, whether it ever can. `joinTopic` subscribes it, when its client can take the frames
   * of the topic after the last one written (`flushed`) from broadcast `bid` on, and says whether
   * it is subscribed; `tookFromTopic` says the id of the last frame the topic sent it and that
   * frame's broadcast; `leaveTopic` unsubscribes it.
   */
  readonly topic?: string | undefined;
  /** Whether it can ever take a topic (topics on, and a raw client or an fw client with implicit ids). */
  readonly takesTopics?: boolean;
  joinTopic?(broadcaster: string, flushed: number, bid: number): boolean;
  tookFromTopic?(id: number, broadcaster: string, bid: number): void;
  leaveTopic?(): void;
}
