/**
 * The `long-polling` transport: each GET returns a JSON array of frames (held open by the server
 * until there is something to send); the next GET names the resource by `tracking` and
 * acknowledges with `last`. Messages go up as POSTs.
 */
import { ClientError } from '../errors.js';
import { checkFrame } from '../frames.js';
import { endpointUrl } from '../endpoint.js';
import type { OpenRequest, TransportConnection } from '../transport.js';
import { httpError, missingFetch, networkError, postMessage } from './http.js';

export function openLongPolling({ endpoint, params, sink, env }: OpenRequest): TransportConnection {
  const fetchImpl = env.fetch;
  const abort = new AbortController();
  let done = false;
  let uuid: string | undefined;
  let last = Number(params.last ?? 0);
  const finish = (error: ClientError): void => {
    if (done) return;
    done = true;
    abort.abort();
    sink.end(error);
  };

  const poll = async (query: Record<string, string | undefined>): Promise<unknown> => {
    let res: Response;
    try {
      res = await fetchImpl!(endpointUrl(endpoint, 'http', { ...query, transport: 'long-polling' }), {
        headers: { accept: 'application/json' },
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
    while (!done) {
      const frames = await poll(query);
      if (done) return;
      if (!Array.isArray(frames)) throw new ClientError('protocol_error', 'long-polling answer is not a JSON array');
      for (const raw of frames) {
        if (done) return;
        if (typeof raw !== 'object' || raw === null) throw new ClientError('protocol_error', 'long-polling frame is not an object');
        const frame = checkFrame(raw as Record<string, unknown>);
        if (!frame) continue;
        if (frame.t === 'hs') uuid = frame.uuid;
        if (frame.t === 'm' && frame.id > last) last = frame.id;
        sink.frame(frame);
      }
      if (done) return;
      sink.alive();
      if (uuid === undefined) throw new ClientError('protocol_error', 'long-polling answer without a handshake');
      query = { fw: '1', tracking: uuid, last: String(last) };
    }
  };
  run().catch((e: unknown) => finish(networkError(e, 'long-polling')));

  return {
    send(data) {
      if (done || !fetchImpl || uuid === undefined) return Promise.reject(new ClientError('connection_lost', 'long-polling is not open'));
      return postMessage(fetchImpl, endpoint, uuid, data);
    },
    close() {
      done = true;
      abort.abort();
    },
  };
}
