/** What the HTTP transports (sse, streaming, long-polling) share: errors, upstream POSTs, body reading. */
import { ClientError } from '../errors.js';
import { endpointUrl } from '../endpoint.js';
import type { UpstreamKind } from '@fw/protocol';
import type { FetchLike } from '../transport.js';

/** Turns an error answer (problem+json when the server is fw) into a ClientError. */
export async function httpError(res: Response): Promise<ClientError> {
  let code: string | undefined;
  let detail = res.statusText;
  let reason: string | undefined;
  try {
    const body = (await res.json()) as { code?: unknown; detail?: unknown; title?: unknown; reason?: unknown };
    if (typeof body.code === 'string') code = body.code;
    if (typeof body.reason === 'string') reason = body.reason;
    if (typeof body.detail === 'string') detail = body.detail;
    else if (typeof body.title === 'string') detail = body.title;
  } catch {
    // Not JSON: the status says enough.
  }
  if (res.status === 404 && code === 'unknown_tracking_id') return new ClientError('unknown_tracking_id', detail, 404, code);
  // A credential refused (missing, expired, revoked): the client gets a new one or stops.
  if (res.status === 401) return new ClientError('unauthorized', `HTTP 401${code ? ` ${code}` : ''}: ${detail}`, 401, code);
  // The server closed the resource while we were away: as final as a close frame.
  if (res.status === 410 && code === 'resource_closed') return new ClientError('closed_by_server', reason ?? detail, 410, code);
  return new ClientError('http_error', `HTTP ${res.status}${code ? ` ${code}` : ''}: ${detail}`, res.status, code);
}

export function networkError(e: unknown, what: string): ClientError {
  if (e instanceof ClientError) return e;
  return new ClientError('connection_lost', `${what}: ${e instanceof Error ? e.message : String(e)}`);
}

/** `Authorization: Bearer <token>` for the HTTP transports' requests, when there is a credential. */
export function authorization(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

/**
 * Client → server over HTTP: the message text is the POST body, addressed by `tracking`; a bridge
 * answer also carries `frame=tool-response`. `seq` is the message's number: with `tracking` its
 * idempotency key, so a POST sent again after a lost answer is taken once.
 */
export async function postMessage(
  fetchImpl: FetchLike,
  endpoint: URL,
  uuid: string,
  data: string,
  kind: UpstreamKind,
  seq: number,
  token: string | undefined,
): Promise<void> {
  let res: Response;
  try {
    res = await fetchImpl(endpointUrl(endpoint, 'http', { tracking: uuid, frame: kind === 'm' ? undefined : kind, seq: String(seq) }), {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=utf-8', ...authorization(token) },
      body: data,
    });
  } catch (e) {
    throw networkError(e, 'POST failed');
  }
  if (!res.ok) throw await httpError(res);
  // Drain the (empty) body so the keep-alive socket is reused.
  await res.arrayBuffer().catch(() => undefined);
}

/** The client is done: the server may end the resource now instead of after its resume grace. */
export function deleteResource(fetchImpl: FetchLike, endpoint: URL, uuid: string, token: string | undefined): void {
  // `keepalive` lets the request outlive a page that is being unloaded.
  fetchImpl(endpointUrl(endpoint, 'http', { tracking: uuid }), { method: 'DELETE', keepalive: true, headers: authorization(token) })
    .then(
      (res) => res.arrayBuffer(),
      () => undefined,
    )
    .catch(() => undefined);
}

/** Reads a response body as text chunks until it ends; rejects when the stream breaks. */
export async function readText(res: Response, onText: (text: string) => void, stopped: () => boolean): Promise<void> {
  if (!res.body) throw new ClientError('transport_unavailable', 'fetch without a streaming body');
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || stopped()) break;
      onText(decoder.decode(value, { stream: true }));
    }
  } finally {
    reader.releaseLock();
  }
}

export function missingFetch(): ClientError {
  return new ClientError('transport_unavailable', 'no fetch implementation (pass options.fetch)');
}
