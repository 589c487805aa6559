/**
 * The `sse` and `streaming` transports: one long GET whose body carries frames (SSE events, or one
 * JSON frame per line), messages go up as POSTs. Both are read with fetch so that the same code
 * runs in browsers and Node 20 and the client sees the status of a refused resume.
 */
import { ClientError, protocolError } from '../errors.js';
import { parseServerFrame, type ServerFrame } from '@fw/protocol';
import { endpointUrl } from '../endpoint.js';
import { SseParser } from '../sse-parser.js';
import type { OpenRequest, TransportConnection } from '../transport.js';
import { authorization, deleteResource, httpError, missingFetch, networkError, postMessage, readText } from './http.js';

type Mode = 'sse' | 'streaming';

export function openSse(request: OpenRequest): TransportConnection {
  return openStream(request, 'sse');
}

export function openStreaming(request: OpenRequest): TransportConnection {
  return openStream(request, 'streaming');
}

function openStream({ endpoint, params, sink, env, token }: OpenRequest, mode: Mode): TransportConnection {
  const fetchImpl = env.fetch;
  const abort = new AbortController();
  let done = false;
  let uuid: string | undefined;
  const finish = (error: ClientError): void => {
    if (done) return;
    done = true;
    abort.abort();
    sink.end(error);
  };
  const alive = (): void => {
    if (!done) sink.alive();
  };
  const deliver = (text: string): void => {
    if (done) return;
    let frame: ServerFrame | undefined;
    try {
      frame = parseServerFrame(text);
    } catch (e) {
      return finish(protocolError(e));
    }
    if (!frame) {
      if (!done) sink.alive(text);
      return;
    }
    if (frame.t === 'hs') uuid = frame.uuid;
    sink.frame(frame);
  };
  const consume = mode === 'sse' ? sseConsumer(deliver, alive) : ndjsonConsumer(deliver, alive);

  const run = async (): Promise<void> => {
    if (!fetchImpl) throw missingFetch();
    const url = endpointUrl(endpoint, 'http', { ...params, transport: mode });
    let res: Response;
    try {
      res = await fetchImpl(url, {
        headers: { accept: mode === 'sse' ? 'text/event-stream' : 'application/x-ndjson', ...authorization(token) },
        cache: 'no-store',
        signal: abort.signal,
      });
    } catch (e) {
      throw networkError(e, `${mode} request failed`);
    }
    if (!res.ok) throw await httpError(res);
    try {
      await readText(res, consume, () => done);
    } catch (e) {
      throw networkError(e, `${mode} stream broke`);
    }
    throw new ClientError('connection_lost', `${mode} stream ended`);
  };
  run().catch((e: unknown) => finish(networkError(e, mode)));

  return {
    watchesSilence: true,
    confirms: true,
    send(data, kind, seq) {
      if (done || !fetchImpl || uuid === undefined) return Promise.reject(new ClientError('connection_lost', `${mode} is not open`));
      return postMessage(fetchImpl, endpoint, uuid, data, kind, seq, token);
    },
    close(final) {
      done = true;
      abort.abort();
      if (final && fetchImpl && uuid !== undefined) deleteResource(fetchImpl, endpoint, uuid, token);
    },
  };
}

function sseConsumer(deliver: (text: string) => void, alive: () => void): (text: string) => void {
  const parser = new SseParser((event) => deliver(event.data), alive);
  return (text) => parser.feed(text);
}

/** One JSON frame per line; blank lines are keep-alives. */
export function ndjsonConsumer(deliver: (text: string) => void, alive: () => void): (text: string) => void {
  let rest = '';
  return (text) => {
    const lines = (rest + text).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') alive();
      else deliver(line);
    }
  };
}
