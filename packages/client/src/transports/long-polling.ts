/**
 * The `long-polling` transport: each GET returns a JSON array of frames (held open by the server
 * until there is something to send); the next GET names the resource by `tracking` and
 * acknowledges with `last`. Messages go up as POSTs.
 */
import { ClientError, protocolError } from '../errors.js';
import { checkServerFrame, type ServerFrame } from '@fw/protocol';
import { endpointUrl } from '../endpoint.js';
import type { OpenRequest, TransportConnection } from '../transport.js';
import { authorization, deleteResource, httpError, missingFetch, networkError, postMessage } from './http.js';

/**
 * Resuming a resource that was already long-polling looks to the server like the next poll, so
 * it answers without a handshake, and maybe only when the poll times out. A poll the server holds
 * (rather than refusing at once with 404/410) has been accepted: after this long we say so.
 */
export const RESUME_ACCEPTED_AFTER = 500;

export function openLongPolling({ endpoint, params, sink, env, heartbeat, token }: OpenRequest): TransportConnection {
  const fetchImpl = env.fetch;
  const abort = new AbortController();
  let done = false;
  let uuid: string | undefined;
  let last = Number(params.last ?? 0);
  const resuming = params.tracking;
  let handshaken = false;
  let acceptTimer: ReturnType<typeof setTimeout> | undefined;

  const finish = (error: ClientError): void => {
    if (done) return;
    done = true;
    clearTimeout(acceptTimer);
    abort.abort();
    sink.end(error);
  };
  /**
   * A resume on long-polling is answered without `hs` and without `rec` (docs/protocol.md): both
   * are synthesized, the `rec` once the first answer (with any gap it carries) is delivered.
   */
  const accept = (answered: boolean): void => {
    clearTimeout(acceptTimer);
    if (handshaken || done || resuming === undefined) return;
    handshaken = true;
    uuid = resuming;
    sink.frame({ t: 'hs', uuid: resuming, transport: 'long-polling', heartbeat, resumed: true });
    if (!answered) sink.frame({ t: 'rec', recovered: true });
  };

  const poll = async (query: Record<string, string | undefined>): Promise<unknown> => {
    let res: Response;
    try {
      res = await fetchImpl!(endpointUrl(endpoint, 'http', { ...query, transport: 'long-polling' }), {
        headers: { accept: 'application/json', ...authorization(token) },
        cache: 'no-store',
        signal: abort.signal,
      });
    } catch (e) {
      throw networkError(e, 'long-polling request failed');
    }
    if (!res.ok) throw await httpError(res);
    try {
      return await res.json();
    } catch (e) {
      throw networkError(e, 'long-polling response broke');
    }
  };

  const run = async (): Promise<void> => {
    if (!fetchImpl) throw missingFetch();
    let query = params;
    if (resuming !== undefined) acceptTimer = setTimeout(() => accept(false), RESUME_ACCEPTED_AFTER);
    while (!done) {
      const answer = await poll(query);
      if (done) return;
      if (!Array.isArray(answer)) throw new ClientError('protocol_error', 'long-polling answer is not a JSON array');
      const frames: ServerFrame[] = [];
      for (const raw of answer) {
        if (typeof raw !== 'object' || raw === null) throw new ClientError('protocol_error', 'long-polling frame is not an object');
        let frame: ServerFrame | undefined;
        try {
          frame = checkServerFrame(raw as Record<string, unknown>);
        } catch (e) {
          throw protocolError(e);
        }
        if (frame) frames.push(frame);
        // Another kind (a room's frame): handed on now, ahead of this answer's frames (which only its handshake must precede).
        else sink.alive(raw as Record<string, unknown>);
      }
      let accepted = false;
      if (frames.some((f) => f.t === 'hs')) {
        clearTimeout(acceptTimer);
        handshaken = true;
      } else if (!handshaken && frames.every((f) => f.t !== 'close')) {
        accept(true);
        accepted = true;
      }
      for (const frame of frames) {
        if (done) return;
        if (frame.t === 'hs') uuid = frame.uuid;
        if (frame.t === 'm' && frame.id > last) last = frame.id;
        sink.frame(frame);
      }
      if (accepted && !done) sink.frame({ t: 'rec', recovered: true });
      if (done) return;
      // The server shuts down: polling it again would only be refused; this is a drop, so the
      // client reconnects with backoff (to another node behind a balancer) and resumes.
      if (frames.some((f) => f.t === 'reconnect')) throw new ClientError('connection_lost', 'the server is shutting down');
      sink.alive();
      if (uuid === undefined) throw new ClientError('protocol_error', 'long-polling answer without a handshake');
      query = { fw: '1', tracking: uuid, last: String(last) };
    }
  };
  run().catch((e: unknown) => finish(networkError(e, 'long-polling')));

  return {
    watchesSilence: false,
    confirms: true,
    send(data, kind, seq) {
      if (done || !fetchImpl || uuid === undefined) return Promise.reject(new ClientError('connection_lost', 'long-polling is not open'));
      return postMessage(fetchImpl, endpoint, uuid, data, kind, seq, token);
    },
    close(final) {
      done = true;
      clearTimeout(acceptTimer);
      abort.abort();
      if (final && fetchImpl && uuid !== undefined) deleteResource(fetchImpl, endpoint, uuid, token);
    },
  };
}
