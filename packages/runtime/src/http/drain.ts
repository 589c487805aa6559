import type { ServerResponse } from 'node:http';
import { sendProblem } from './problem.js';

/**
 * The requests fw's routes are answering, so that `close()` lets them finish instead of cutting
 * them: a POST whose body is still arriving when SIGTERM comes is answered, not reset.
 *
 * From the first moment of `close()` fw's routes refuse new requests (503 `shutting_down`, the
 * framework does it). Requests already in flight get until the drain deadline
 * (`fw.close.drain-timeout`) to be answered; whatever is still unanswered then gets the same 503
 * with `Retry-After`, so every request ends with an answer the client can act on. A response
 * that has started (an SSE stream) is not waited for: its route ends it on close; nor is one held
 * open by design (a long-poll, see `hold`), which the runtime answers when it shuts down.
 */
export class RequestDrain {
  /** Each request in flight, with the listener that forgets it when its response closes. */
  private readonly inFlight = new Map<ServerResponse, () => void>();
  private readonly held = new WeakSet<ServerResponse>();

  /**
   * The drain begins: a request in flight that is answered from now on closes its connection
   * once answered (`Connection: close`), so the client does not send its next request on a
   * connection this server is about to close; a request sent at that moment could not tell
   * whether it was taken. Not while its body is still arriving: closing a socket with unread
   * data resets it, and the answer with it.
   */
  begin(): void {
    for (const res of this.inFlight.keys()) if (!res.headersSent) closeOnceAnswered(res);
  }

  /** Tracks one request of an fw route until its response is closed. */
  track(res: ServerResponse): void {
    const forget = (): void => void this.inFlight.delete(res);
    this.inFlight.set(res, forget);
    res.once('close', forget);
  }

  /**
   * A response that has become a long-lived stream its route ends on close by itself (an SSE or
   * streaming connection): not tracked any longer, so that an open stream costs nothing here.
   */
  release(res: ServerResponse): void {
    const forget = this.inFlight.get(res);
    if (forget === undefined) return;
    this.inFlight.delete(res);
    res.off('close', forget);
  }

  /** A response held open by design until something happens (a long-poll): not waited for. */
  hold(res: ServerResponse): void {
    this.held.add(res);
  }

  /** Requests being tracked (leak checks: 0 once every request is answered). */
  get size(): number {
    return this.inFlight.size;
  }

  /** Requests in flight whose answer has not started. */
  unanswered(): ServerResponse[] {
    const out: ServerResponse[] = [];
    for (const res of this.inFlight.keys()) if (!res.headersSent && !this.held.has(res)) out.push(res);
    return out;
  }

  /** Resolves once every request in flight is answered, or at `deadline` (epoch ms). */
  async settle(deadline: number): Promise<void> {
    while (this.unanswered().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  }

  /**
   * Answers every request still unanswered with 503 `shutting_down` and `Retry-After` (seconds).
   * Its route may still be running (an upload still arriving, a handler still busy): whatever it
   * writes later is discarded, so it can neither throw nor mix a second answer into the
   * connection. A route that acts on a request once its body is in checks `res.headersSent`
   * first (the real-time message POST does): the 503 then means "not processed". Returns how
   * many were answered.
   */
  refuseUnanswered(retryAfter: string): number {
    const list = this.unanswered();
    for (const res of list) {
      sendProblem(res, 503, 'shutting_down', 'the server is shutting down; send the request again', undefined, {
        'retry-after': retryAfter,
      });
      discardLaterWrites(res);
    }
    return list.length;
  }
}

/** `Connection: close` on the answer if the request's body is in by then. */
export function closeOnceAnswered(res: ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    if (this.req.complete) this.shouldKeepAlive = false;
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
}

/** The route's own answer, if it comes after the drain answered, goes nowhere. */
function discardLaterWrites(res: ServerResponse): void {
  const r = res as unknown as Record<'writeHead' | 'setHeader' | 'write' | 'end' | 'flushHeaders', unknown>;
  r.writeHead = () => res;
  r.setHeader = () => res;
  r.flushHeaders = () => undefined;
  r.write = () => true;
  r.end = (...args: unknown[]) => {
    const done = args.find((a) => typeof a === 'function') as (() => void) | undefined;
    done?.();
    return res;
  };
}
