import type { IncomingMessage } from 'node:http';

/**
 * Where a request really comes from and what it was addressed to, after trusted-proxy handling.
 * Recorded once per request by the framework's screening (`SecurityPolicy.screen`) before any fw
 * route runs, and read back by `clientAddress(req)` and friends, so every package sees the same
 * answer without being handed the configuration.
 */
export interface RequestSource {
  /** The client's IP address: the socket peer, or from `X-Forwarded-For` when the peer is a trusted proxy. */
  clientAddress: string | undefined;
  /** The authority the client addressed (`Host`, or `X-Forwarded-Host` from a trusted proxy), lower-cased. */
  host: string | undefined;
  /** `http` or `https` (the socket, or `X-Forwarded-Proto` from a trusted proxy). */
  protocol: 'http' | 'https';
  /** True when the forwarded headers were honoured (the peer is a trusted proxy). */
  viaProxy: boolean;
  /** `fw.limits.json-depth` of the framework that screened the request. */
  jsonDepth: number;
}

const sources = new WeakMap<IncomingMessage, RequestSource>();

export function recordSource(req: IncomingMessage, source: RequestSource): void {
  sources.set(req, source);
}

/** The recorded source, or what the socket alone says (a request fw did not screen). */
export function requestSource(req: IncomingMessage): RequestSource {
  return (
    sources.get(req) ?? {
      clientAddress: req.socket?.remoteAddress,
      host: req.headers?.host?.toLowerCase(),
      protocol: (req.socket as { encrypted?: boolean } | undefined)?.encrypted ? 'https' : 'http',
      viaProxy: false,
      jsonDepth: DEFAULT_JSON_DEPTH,
    }
  );
}

/** Default of `fw.limits.json-depth`. */
export const DEFAULT_JSON_DEPTH = 64;

/**
 * The client's IP address: `X-Forwarded-For` is believed only when the socket peer is one of
 * `fw.security.trusted-proxies` (then the rightmost address that is not itself a trusted proxy);
 * otherwise the socket's remote address. Use this, not `req.socket.remoteAddress`, for any
 * decision about the caller (the admin plane's loopback rule, per-address caps).
 */
export function clientAddress(req: IncomingMessage): string | undefined {
  const recorded = sources.get(req);
  return recorded ? recorded.clientAddress : req.socket?.remoteAddress;
}

/** The Host the client addressed (see `RequestSource.host`). */
export function requestHost(req: IncomingMessage): string | undefined {
  return requestSource(req).host;
}

/** `http` or `https` as the client used it (see `RequestSource.protocol`). */
export function requestProtocol(req: IncomingMessage): 'http' | 'https' {
  return requestSource(req).protocol;
}
