/** The `websocket` transport: one fw frame per text frame, both ways. */
import { ClientError, protocolError } from '../errors.js';
import { encodeUpstream, FINAL_CLOSE_CODES, HEARTBEAT_FRAME, type ImplicitIds, isCredentialReason, parseServerFrame } from '@fw/protocol';
import { endpointUrl } from '../endpoint.js';
import type { OpenRequest, TransportConnection, WebSocketLike } from '../transport.js';

/** The code the client closes an abandoned connection with (browsers allow 1000 and 3000–4999). */
const CLIENT_RECONNECTING = 4001;
const OPEN = 1;
const CLOSED = 3;
const noop = (): void => {};

export function openWebSocket({ endpoint, params, sink, env, token }: OpenRequest): TransportConnection {
  const Impl = env.WebSocket;
  if (!Impl) {
    // Reported asynchronously, like every other transport failure, so the caller's state is set.
    queueMicrotask(() =>
      sink.end(new ClientError('transport_unavailable', 'no WebSocket implementation (pass options.WebSocket, or use @fw/client/node)')),
    );
    return {
      send: () => Promise.reject(new ClientError('transport_unavailable', 'no WebSocket')),
      close: noop,
      watchesSilence: true,
      confirms: false,
    };
  }
  let done = false;
  let opened = false;
  let lastError = '';
  // A browser cannot set a WebSocket's headers: the credential goes in the query (docs/security.md).
  // `ids=implicit`: a frame may leave out its id, so that a broadcast is the same bytes for every recipient (docs/protocol.md).
  const ws: WebSocketLike = new Impl(endpointUrl(endpoint, 'ws', { ...params, ids: 'implicit', access_token: token }));
  const ids: ImplicitIds = { last: 0 };
  const finish = (error: ClientError): void => {
    if (done) return;
    shut(false);
    sink.end(error);
  };
  const shut = (final: boolean): void => {
    done = true;
    // Keep no-op handlers: `ws` throws an 'error' event nobody listens to.
    ws.onopen = noop;
    ws.onmessage = noop;
    ws.onclose = noop;
    ws.onerror = noop;
    if (ws.readyState === CLOSED) return;
    if (final) return ws.close(1000, 'client closed');
    // Abandoned for a reconnect: any code but 1000/1001 keeps the resource for the resume. `ws`
    // can drop the socket at once instead of waiting up to 30 s for a dead peer's close frame.
    const terminate = (ws as { terminate?: () => void }).terminate;
    if (terminate) terminate.call(ws);
    else ws.close(CLIENT_RECONNECTING, 'reconnecting');
  };
  ws.onopen = () => {
    opened = true;
  };
  ws.onerror = (event) => {
    // Browsers say nothing; `ws` says e.g. "Unexpected server response: 404".
    const message = (event as { message?: unknown } | null)?.message;
    if (typeof message === 'string') lastError = message;
  };
  ws.onmessage = (event) => {
    if (done) return;
    if (typeof event.data !== 'string') return finish(new ClientError('protocol_error', 'binary frame on an fw connection'));
    let frame;
    try {
      frame = parseServerFrame(event.data, ids);
    } catch (e) {
      return finish(protocolError(e));
    }
    if (frame) sink.frame(frame);
    else sink.alive(event.data);
  };
  ws.onclose = (event) => {
    if (FINAL_CLOSE_CODES.has(event.code)) {
      // 1008 with credential_expired / credential_revoked: the credential ended, not the resource.
      const code = isCredentialReason(event.reason) ? event.reason : 'closed_by_server';
      return finish(new ClientError(code, event.reason || `closed by the server with code ${event.code}`));
    }
    if (!opened && /\b401\b/.test(lastError)) return finish(new ClientError('unauthorized', lastError, 401));
    if (!opened && params.tracking !== undefined && /\b404\b/.test(lastError)) {
      return finish(new ClientError('unknown_tracking_id', lastError, 404, 'unknown_tracking_id'));
    }
    if (!opened && params.tracking !== undefined && /\b410\b/.test(lastError)) {
      return finish(new ClientError('closed_by_server', 'the server closed this resource', 410, 'resource_closed'));
    }
    const why = lastError || `code ${event.code}${event.reason ? ` ${event.reason}` : ''}`;
    // 1012: the server shut down after acknowledging everything it took (docs/protocol.md).
    finish(
      new ClientError(
        'connection_lost',
        `websocket ${opened ? 'closed' : 'failed'}: ${why}`,
        undefined,
        event.code === 1012 ? 'service_restart' : undefined,
      ),
    );
  };
  return {
    watchesSilence: true,
    confirms: false,
    send(data, kind, seq) {
      if (done || ws.readyState !== OPEN) return Promise.reject(new ClientError('connection_lost', 'websocket is not open'));
      ws.send(encodeUpstream(data, kind, seq));
      return Promise.resolve();
    },
    heartbeat() {
      if (!done && ws.readyState === OPEN) ws.send(HEARTBEAT_FRAME);
    },
    close(final) {
      if (!done) shut(final);
    },
  };
}
